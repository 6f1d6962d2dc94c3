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
	if r, ok := conflicting(related, req.Task, req.Key, req.Scope, []string{req.Title, rec.Title}, now); ok {
		if !exists {
			rec = Record{Key: req.Key, Scope: req.Scope, State: Free}
		}
		return refuseRelated(rec, r, now)
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
//
// related are as for ApplyClaim, and refuse the same way: a claim is
// granted while another scope whose destination may be the same is only
// held by the same task, or before a title made the two the same, and
// that scope may be consumed by now (a review: one task claimed
// https/https://h/hook and http/http://h/hook, and crossed both).
func ApplyCross(rec Record, exists bool, related []Record, req CrossRequest, now time.Time) Result {
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
		if r, ok := conflicting(related, rec.Holder, req.Key, req.Scope, []string{rec.Title}, now); ok {
			return refuseRelated(rec, r, now)
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

// refuseRelated refuses an operation on rec because of r, a related
// scope whose destination may be the same (conflicting).
func refuseRelated(rec, r Record, now time.Time) Result {
	if eff := r.Effective(now); eff.Consumed() {
		return refuse(rec, KeyConsumed, "key %s, whose destination may be the same, is %s (token %d, %s): this scope may be that one", r.Key, eff, r.Token, r.Holder)
	}
	return refuse(rec, ClaimedByOther, "task %s holds key %s, whose destination may be the same, until %s", r.Holder, r.Key, r.LeaseExpires.UTC().Format(time.RFC3339Nano))
}

// conflicting finds a related record whose destination may be the
// claimed one's and that is consumed, or held by another task, now.
// titles are the titles the claim and the scope's own record give the
// claimed key's destination. A strong destination also carries every
// title a related record, of any scope name, gives its provider identity
// (folded): the journal titled it so (a review: a channel titled "Hook" by one claim
// was not weighed with a crossing known by "Hook" alone when another
// spelling of it was claimed untitled).
func conflicting(related []Record, task, key, scope string, titles []string, now time.Time) (Record, bool) {
	want, ok := destinationOf(key, "")
	if !ok {
		return Record{}, false
	}
	byIdentity := map[string][]string{}
	give := func(d effect.Destination, title string) {
		if !d.Weak() && title != "" {
			for _, id := range d.FoldedIdentities() {
				byIdentity[id] = append(byIdentity[id], title)
			}
		}
	}
	for _, t := range titles {
		give(want, t)
	}
	dests := make([]effect.Destination, len(related))
	readable := make([]bool, len(related))
	for i, r := range related {
		if dests[i], readable[i] = destinationOf(r.Key, r.Title); readable[i] {
			give(dests[i], dests[i].Title)
		}
	}
	for i, r := range related {
		if r.Key == key || r.Scope != scope {
			continue
		}
		// A record whose key cannot be read (written by a version whose
		// canonical form differed) may be any destination of this
		// content: it conflicts.
		if readable[i] && !mayBeSameTitled(dests[i], want, byIdentity) {
			continue
		}
		eff := r.Effective(now)
		if eff.Consumed() || eff == Claimed && r.Holder != task {
			return r, true
		}
	}
	return Record{}, false
}

// mayBeSameTitled is effect.MayBeSame with each strong destination under
// each title byIdentity gives its identity, as well as its own.
func mayBeSameTitled(a, b effect.Destination, byIdentity map[string][]string) bool {
	variants := func(d effect.Destination) []effect.Destination {
		out := []effect.Destination{d}
		if !d.Weak() {
			for _, id := range d.FoldedIdentities() {
				for _, t := range byIdentity[id] {
					v := d
					v.Title = t
					out = append(out, v)
				}
			}
		}
		return out
	}
	for _, x := range variants(a) {
		for _, y := range variants(b) {
			if effect.MayBeSame(x, y) {
				return true
			}
		}
	}
	return false
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
