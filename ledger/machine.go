package ledger

import (
	"fmt"
	"time"

	"github.com/effectlint/effectlint/effect"
)

// The state machine of the ledger, as pure functions of a scope's record,
// a request and the store's clock. Each returns the record after the
// operation and the answer; a store saves the record when the answer says
// it changed. The Promela model in model/ledger.pml checks this protocol
// (at most one crossing per scope, a consumed scope never freed, a stale
// token never writes); its steps name these functions.

func refuse(rec Record, rule, format string, a ...any) Result {
	return Result{Record: rec, Reasons: []Reason{{Rule: rule, Message: fmt.Sprintf(format, a...)}}}
}

func grant(rec Record, changed bool) Result {
	return Result{Record: rec, Granted: true, changed: changed}
}

// expire turns a crossing whose lease ran out into send_status_unknown:
// it crossed, or may have, and nobody confirmed. It is never freed.
func expire(rec Record, now time.Time) (Record, bool) {
	if rec.State == Crossing && !rec.Live(now) {
		rec.State = SendStatusUnknown
		rec.Updated = now
		return rec, true
	}
	return rec, false
}

// ApplyClaim grants, renews or refuses a claim. exists is false when the
// ledger has no record of the scope: the original scope is then free, and
// any other scope names an authorization with no record.
//
// related are the records of the other keys with the same content and
// scope name: a claim is refused while one whose destination may be the
// same (SPEC §2: letter case, a title) is consumed or held by another
// task. Keys stay exact; the refusal is what fails closed.
func ApplyClaim(rec Record, exists bool, related []Record, req ClaimRequest, now time.Time) Result {
	if r, ok := conflicting(related, req, now); ok {
		if !exists {
			rec = Record{Key: req.Key, Scope: req.Scope, State: Free}
		}
		if eff := r.Effective(now); eff.Consumed() {
			return refuse(rec, KeyConsumed, "key %s, whose destination may be the same, is %s (token %d, %s): this scope may be that one", r.Key, eff, r.Token, r.Holder)
		}
		return refuse(rec, ClaimedByOther, "task %s holds key %s, whose destination may be the same, until %s", r.Holder, r.Key, r.LeaseExpires.UTC().Format(time.RFC3339Nano))
	}
	if !exists {
		if req.Scope != OriginalScope {
			return refuse(Record{Key: req.Key, Scope: req.Scope, State: Free}, UnknownAuthorization,
				"scope %q names an authorization the ledger has no record of", req.Scope)
		}
		rec = Record{Key: req.Key, Scope: req.Scope, State: Free}
	}
	rec, expired := expire(rec, now)
	if rec.State.Consumed() {
		r := refuse(rec, KeyConsumed, "the scope is %s (token %d, %s): it can never be claimed again; only an authorization opens a new scope", rec.State, rec.Token, rec.Holder)
		r.changed = expired
		return r
	}
	if rec.State == Claimed && rec.Live(now) {
		if rec.Holder != req.Task {
			return refuse(rec, ClaimedByOther, "task %s holds token %d until %s", rec.Holder, rec.Token, rec.LeaseExpires.UTC().Format(time.RFC3339Nano))
		}
		rec.LeaseExpires = now.Add(req.Lease)
		if req.Title != "" {
			rec.Title = req.Title
		}
		rec.Updated = now
		return grant(rec, true)
	}
	// Free, or a claim whose lease expired before any crossing: the next
	// token, so the previous holder is fenced off.
	rec.State = Claimed
	rec.Holder = req.Task
	if req.Title != "" {
		rec.Title = req.Title
	}
	rec.LeaseExpires = now.Add(req.Lease)
	rec.CrossedToken = 0
	rec.Checkpoint = ""
	rec.Updated = now
	// The next token is the ledger's, not the scope's (the transaction
	// gives it, DoClaim): greater than every token granted before, in any
	// scope, so a token meant for one scope never fits another's claim.
	r := grant(rec, true)
	r.newToken = true
	return r
}

// ApplyCross moves a live claim under its current token to crossing.
func ApplyCross(rec Record, exists bool, req CrossRequest, now time.Time) Result {
	if !exists {
		return refuse(Record{Key: req.Key, Scope: req.Scope, State: Free}, NotClaimed, "the scope was never claimed")
	}
	if req.Token != rec.Token {
		return refuse(rec, Fenced, "token %d is stale: the scope's token is %d (%s)", req.Token, rec.Token, rec.Holder)
	}
	switch rec.State {
	case Free:
		return refuse(rec, NotClaimed, "token %d was released; claim the scope again", req.Token)
	case Claimed:
		if !rec.Live(now) {
			return refuse(rec, Expired, "the lease under token %d expired at %s", rec.Token, rec.LeaseExpires.UTC().Format(time.RFC3339Nano))
		}
		rec.State = Crossing
		rec.CrossedToken = req.Token
		rec.Checkpoint = req.Checkpoint
		rec.Updated = now
		return grant(rec, true)
	case Crossing:
		if rec.Live(now) {
			return grant(rec, false) // a retry of the same announcement
		}
		rec, _ = expire(rec, now)
		r := refuse(rec, Expired, "the lease under token %d expired while crossing: the outcome is unknown", rec.Token)
		r.changed = true
		return r
	}
	return refuse(rec, KeyConsumed, "the scope is %s", rec.State)
}

// ApplySettle records the outcome of the current token's claim.
func ApplySettle(rec Record, exists bool, req SettleRequest, now time.Time) Result {
	if !exists {
		return refuse(Record{Key: req.Key, Scope: req.Scope, State: Free}, NotClaimed, "the scope was never claimed")
	}
	if req.Token != rec.Token {
		return refuse(rec, Fenced, "token %d is stale: the scope's token is %d (%s)", req.Token, rec.Token, rec.Holder)
	}
	if rec.State == Free {
		return refuse(rec, NotClaimed, "token %d was released", req.Token)
	}
	settled := func(s State) Result {
		if rec.State == s {
			return grant(rec, false)
		}
		rec.State = s
		rec.Updated = now
		return grant(rec, true)
	}
	switch req.Outcome {
	case Confirmed:
		// Evidence that the effect happened, accepted under the current
		// token even after its lease expired.
		return settled(SentVerified)
	case Unknown:
		if rec.State == SentVerified {
			return refuse(rec, AlreadySettled, "the scope is sent_verified: a confirmation stands")
		}
		return settled(SendStatusUnknown)
	case NotCrossed:
		if after, expired := expire(rec, now); after.State.Consumed() {
			r := refuse(after, AlreadyCrossed, "the scope is %s (crossed under token %d): it stays consumed, evidence beats a label", after.State, after.CrossedToken)
			r.changed = expired
			return r
		}
		if !rec.Live(now) {
			return refuse(rec, Expired, "the lease under token %d expired at %s", rec.Token, rec.LeaseExpires.UTC().Format(time.RFC3339Nano))
		}
		rec.State = Free
		rec.LeaseExpires = now
		rec.Updated = now
		return grant(rec, true)
	}
	return refuse(rec, "INVALID", "outcome %q", req.Outcome)
}

// ApplyAuthorize opens scope req.Authorization of a key, free to be claimed
// once. Recording the same authorization again is granted and changes
// nothing; reusing its id with other words is refused.
func ApplyAuthorize(rec Record, exists bool, req AuthorizeRequest, now time.Time) Result {
	if exists {
		if rec.Authorization != nil && rec.Authorization.By == req.By && rec.Authorization.Reason == req.Reason {
			return grant(rec, false)
		}
		return refuse(rec, AuthorizationExists, "authorization %q of this key is already recorded with other words", req.Authorization)
	}
	rec = Record{Key: req.Key, Scope: req.Authorization, State: Free, Updated: now,
		Authorization: &Authorization{By: req.By, Reason: req.Reason, At: now}}
	return grant(rec, true)
}

// conflicting finds a related record whose destination may be the
// claimed one's and that is consumed, or held by another task, now.
func conflicting(related []Record, req ClaimRequest, now time.Time) (Record, bool) {
	want, ok := destinationOf(req.Key, req.Title)
	if !ok {
		return Record{}, false
	}
	for _, r := range related {
		if r.Key == req.Key || r.Scope != req.Scope {
			continue
		}
		d, ok := destinationOf(r.Key, r.Title)
		if !ok || !effect.MayBeSame(d, want) {
			continue
		}
		eff := r.Effective(now)
		if eff.Consumed() || eff == Claimed && r.Holder != req.Task {
			return r, true
		}
	}
	return Record{}, false
}

// destinationOf reads a key's destination, with a title the key does not
// carry.
func destinationOf(key, title string) (effect.Destination, bool) {
	k, err := effect.ParseKey(key)
	if err != nil {
		return effect.Destination{}, false
	}
	d := k.Destination
	if d.Title == "" {
		d.Title = title
	}
	return d, true
}
