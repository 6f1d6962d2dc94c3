package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/effectlint/effectlint/effect"
)

// Op names an operation in the journal.
type Op string

// The journal's operations. Expire is written when an operation finds a
// crossing whose lease ran out and records it as send_status_unknown;
// Tombstone is what Prune leaves of a terminal scope's detail.
const (
	OpClaim     Op = "claim"
	OpCross     Op = "cross"
	OpSettle    Op = "settle"
	OpAuthorize Op = "authorize"
	OpTombstone Op = "tombstone"
)

// Entry is one operation in the journal, granted or refused.
type Entry struct {
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Op    Op        `json:"op"`
	Task  string    `json:"task,omitempty"`
	Key   string    `json:"key"`
	Scope string    `json:"scope"`
	// Token is the token the operation named (a claim: the token granted).
	Token   int64 `json:"token"`
	Granted bool  `json:"granted"`
	// Rule is the refusal's rule.
	Rule string `json:"rule,omitempty"`
	// State is the scope's stored state after the operation.
	State        State     `json:"state"`
	LeaseExpires time.Time `json:"lease_expires"`
	Outcome      Outcome   `json:"outcome,omitempty"`
	Checkpoint   string    `json:"checkpoint,omitempty"`
	Ref          string    `json:"ref,omitempty"`
	By           string    `json:"by,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	// Title is a claim's destination title (ClaimRequest.Title).
	Title string `json:"title,omitempty"`
}

// Tx is one store transaction as the state machine needs it. A store's
// implementation holds the scope's row locked (SQLite: BEGIN IMMEDIATE;
// PostgreSQL: an advisory lock on the scope, then SELECT … FOR UPDATE —
// no placeholder row, since a missing row is "no record") from Load until
// the transaction commits.
type Tx interface {
	// Now is the store's clock, read inside the transaction.
	Now() (time.Time, error)
	Load(key, scope string) (rec Record, ok bool, err error)
	// Related lists the other records with the same content digest (the
	// key's last 64 characters): other keys under any scope name, and
	// this key under other scope names. Those of the same scope name are
	// the scopes whose destination may be the same (the state machine
	// decides which, effect.MayBeSame); every one gives the titles claims
	// gave its channel. The transaction must keep those of the same scope
	// name from changing until it commits (SQLite: the one writer;
	// PostgreSQL: the lock is taken on the content and scope, not the
	// key). Another scope name's records are read as committed: a title
	// a claim under another scope name gives at the same instant may be
	// missed (docs/ledger.md, known limits).
	Related(key, scope string) ([]Record, error)
	// NextToken takes the ledger's next fencing token: greater than every
	// token it gave before (gaps allowed).
	NextToken() (int64, error)
	Save(rec Record) error
	Append(e Entry) error
}

// Clock precision: both stores keep microseconds (PostgreSQL's timestamp
// precision), so they compare leases alike.
func storeTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func checkKey(key string) error {
	if _, err := effect.ParseKey(key); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

func scopeOf(s string) string {
	if s == "" {
		return OriginalScope
	}
	return s
}

func checkToken(n int64) error {
	if n <= 0 {
		return fmt.Errorf("%w: token must be a positive integer, not %d", ErrInvalid, n)
	}
	return nil
}

// NormalizeClaim checks a claim request and fills its defaults.
func NormalizeClaim(req ClaimRequest) (ClaimRequest, error) {
	req.Scope = scopeOf(req.Scope)
	if strings.TrimSpace(req.Task) == "" {
		return req, fmt.Errorf("%w: a claim names its task", ErrInvalid)
	}
	if req.Lease == 0 {
		req.Lease = DefaultLease
	}
	if req.Lease < time.Millisecond || req.Lease > MaxLease {
		return req, fmt.Errorf("%w: lease must be between 1ms and %s, not %s", ErrInvalid, MaxLease, req.Lease)
	}
	req.Lease = req.Lease.Truncate(time.Microsecond)
	req.Title = strings.TrimSpace(req.Title)
	return req, checkKey(req.Key)
}

func run(tx Tx, key, scope string, apply func(Record, bool, time.Time) Result, entry func(Result) Entry) (Result, error) {
	now, err := tx.Now()
	if err != nil {
		return Result{}, err
	}
	now = storeTime(now)
	rec, ok, err := tx.Load(key, scope)
	if err != nil {
		return Result{}, err
	}
	res := apply(rec, ok, now)
	res.ProviderToken = ProviderToken(key, scope)
	if res.Reasons == nil {
		res.Reasons = []Reason{}
	}
	if res.newToken {
		n, err := tx.NextToken()
		if err != nil {
			return Result{}, err
		}
		if n <= rec.Token {
			// Fencing needs tokens that only grow: never write one that
			// does not.
			return Result{}, fmt.Errorf("the ledger's token counter (%d) is behind scope %s's token %d", n, scope, rec.Token)
		}
		res.Token = n
	}
	if res.changed {
		if err := tx.Save(res.Record); err != nil {
			return Result{}, err
		}
	}
	e := entry(res)
	e.Time, e.Key, e.Scope, e.Granted, e.State = now, key, scope, res.Granted, res.State
	if !res.Granted {
		e.Rule = res.Reasons[0].Rule
	}
	if e.LeaseExpires.IsZero() {
		e.LeaseExpires = res.LeaseExpires
	}
	if err := tx.Append(e); err != nil {
		return Result{}, err
	}
	return res, nil
}

// DoClaim runs a claim in tx: the state machine, the record, the journal.
// req must have passed NormalizeClaim.
func DoClaim(tx Tx, req ClaimRequest) (Result, error) {
	related, err := tx.Related(req.Key, req.Scope)
	if err != nil {
		return Result{}, err
	}
	return run(tx, req.Key, req.Scope,
		func(rec Record, ok bool, now time.Time) Result { return ApplyClaim(rec, ok, related, req, now) },
		func(res Result) Entry {
			e := Entry{Op: OpClaim, Task: req.Task, Ref: req.Ref, Title: req.Title}
			if res.Granted {
				e.Token = res.Token
			}
			return e
		})
}

// NormalizeCross checks a cross request and fills its defaults.
func NormalizeCross(req CrossRequest) (CrossRequest, error) {
	req.Scope = scopeOf(req.Scope)
	if req.Checkpoint == "" {
		req.Checkpoint = string(effect.Send)
	}
	if req.Checkpoint != string(effect.Send) && req.Checkpoint != string(effect.Picker) {
		return req, fmt.Errorf("%w: a crossing is at picker or send, not %q", ErrInvalid, req.Checkpoint)
	}
	if err := checkToken(req.Token); err != nil {
		return req, err
	}
	return req, checkKey(req.Key)
}

// DoCross runs a cross in tx. req must have passed NormalizeCross.
func DoCross(tx Tx, req CrossRequest) (Result, error) {
	related, err := tx.Related(req.Key, req.Scope)
	if err != nil {
		return Result{}, err
	}
	return run(tx, req.Key, req.Scope,
		func(rec Record, ok bool, now time.Time) Result { return ApplyCross(rec, ok, related, req, now) },
		func(res Result) Entry {
			return Entry{Op: OpCross, Task: res.Holder, Token: req.Token, Checkpoint: req.Checkpoint}
		})
}

// NormalizeSettle checks a settle request.
func NormalizeSettle(req SettleRequest) (SettleRequest, error) {
	req.Scope = scopeOf(req.Scope)
	if _, err := ParseOutcome(string(req.Outcome)); err != nil {
		return req, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := checkToken(req.Token); err != nil {
		return req, err
	}
	return req, checkKey(req.Key)
}

// DoSettle runs a settle in tx. req must have passed NormalizeSettle.
func DoSettle(tx Tx, req SettleRequest) (Result, error) {
	return run(tx, req.Key, req.Scope,
		func(rec Record, ok bool, now time.Time) Result { return ApplySettle(rec, ok, req, now) },
		func(res Result) Entry {
			return Entry{Op: OpSettle, Task: res.Holder, Token: req.Token, Outcome: req.Outcome}
		})
}

// NormalizeAuthorize checks an authorize request.
func NormalizeAuthorize(req AuthorizeRequest) (AuthorizeRequest, error) {
	switch {
	case strings.TrimSpace(req.Authorization) == "" || req.Authorization == OriginalScope:
		return req, fmt.Errorf("%w: an authorization needs an id other than %q", ErrInvalid, OriginalScope)
	case strings.TrimSpace(req.By) == "":
		return req, fmt.Errorf("%w: an authorization names who gave it", ErrInvalid)
	case strings.TrimSpace(req.Reason) == "":
		return req, fmt.Errorf("%w: an authorization gives its reason", ErrInvalid)
	}
	return req, checkKey(req.Key)
}

// DoAuthorize runs an authorize in tx. req must have passed
// NormalizeAuthorize.
func DoAuthorize(tx Tx, req AuthorizeRequest) (Result, error) {
	return run(tx, req.Key, req.Authorization,
		func(rec Record, ok bool, now time.Time) Result { return ApplyAuthorize(rec, ok, req, now) },
		func(Result) Entry { return Entry{Op: OpAuthorize, By: req.By, Reason: req.Reason} })
}

// TombstoneOf is the one journal entry Prune keeps of a terminal scope:
// enough for an export to reproduce its state.
func TombstoneOf(rec Record) Entry {
	e := Entry{Op: OpTombstone, Time: rec.Updated, Task: rec.Holder, Key: rec.Key, Scope: rec.Scope,
		Token: rec.Token, Granted: true, State: rec.State, LeaseExpires: rec.LeaseExpires, Checkpoint: rec.Checkpoint, Title: rec.Title}
	if rec.Authorization != nil {
		e.By, e.Reason = rec.Authorization.By, rec.Authorization.Reason
	}
	return e
}

// ClaimsOfRef finds the granted claims made under a caller's reference (a
// Claude Code tool_use_id; one call may deliver several things), the last
// grant of each scope. It reads the whole journal.
func ClaimsOfRef(ctx context.Context, s Store, ref string) ([]Entry, error) {
	var out []Entry
	at := map[[2]string]int{}
	err := s.Journal(ctx, "", func(x Entry) error {
		if x.Op == OpClaim && x.Granted && x.Ref == ref {
			k := [2]string{x.Key, x.Scope}
			if i, ok := at[k]; ok {
				out[i] = x
			} else {
				at[k] = len(out)
				out = append(out, x)
			}
		}
		return nil
	})
	return out, err
}

// ContentOf is the content digest part of a key, by which stores find a
// key's related scopes: its last 64 characters.
func ContentOf(key string) string {
	if len(key) < 64 {
		return key
	}
	return key[len(key)-64:]
}
