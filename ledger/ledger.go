// Package ledger is the key ledger: a transactional store in which a worker
// claims a key scope before it crosses the delivery boundary, and gets a
// lease and a fencing token — an integer that grows with every grant for
// that scope, so a worker whose lease ran out can no longer write with its
// old token.
//
// The state machine is defined once, as pure functions (ApplyClaim,
// ApplyCross, ApplySettle, ApplyAuthorize in machine.go); the stores only
// load a scope's record, call one of them with the store's clock, and save
// the record and its journal entry in the same transaction (Do* in tx.go).
// The stores live in their own packages (ledger/sqlite, ledger/postgres)
// and register themselves with Register, so this package and its callers'
// import graph carry no database driver.
//
// A worker's loop:
//
//	res, err := store.Claim(ctx, ledger.ClaimRequest{Task: "w1", Key: key, Lease: time.Minute})
//	if err != nil || !res.Granted { stop }
//	res, err = store.Cross(ctx, ledger.CrossRequest{Key: key, Token: res.Token})
//	if err != nil || !res.Granted { stop }
//	err = deliver(res.ProviderToken) // the irreversible action
//	store.Settle(ctx, ledger.SettleRequest{Key: key, Token: res.Token, Outcome: ledger.Confirmed})
package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// State is a key scope's state in the ledger.
type State string

// The states of a scope in the ledger.
const (
	// Free: never claimed, or released before any crossing.
	Free State = "free"
	// Claimed: a task holds the current token until its lease expires.
	Claimed State = "claimed"
	// Crossing: the holder announced under its token that it is crossing
	// now. Consumed from this write on.
	Crossing State = "crossing"
	// SentVerified: the effect was confirmed. Consumed.
	SentVerified State = "sent_verified"
	// SendStatusUnknown: crossed, or may have, and not confirmed. Consumed.
	SendStatusUnknown State = "send_status_unknown"
)

// Consumed reports whether a scope in state s can never be claimed again.
func (s State) Consumed() bool {
	return s == Crossing || s == SentVerified || s == SendStatusUnknown
}

// Terminal reports whether no operation can move a scope out of state s
// but a confirmation of an unknown outcome.
func (s State) Terminal() bool { return s == SentVerified || s == SendStatusUnknown }

// OriginalScope is the scope of a key's original intent; every other scope
// is named by the authorization that opened it.
const OriginalScope = "original"

// Outcome is what a worker reports when it settles its claim.
type Outcome string

// The outcomes of Settle.
const (
	Confirmed  Outcome = "confirmed"
	Unknown    Outcome = "unknown"
	NotCrossed Outcome = "not_crossed"
)

// ParseOutcome reads an outcome's name.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case Confirmed, Unknown, NotCrossed:
		return o, nil
	}
	return "", fmt.Errorf("outcome must be confirmed, unknown or not_crossed, not %q", s)
}

// Record is a key scope's record after an operation.
type Record struct {
	Key   string `json:"key"`
	Scope string `json:"scope"`
	// State is the stored state; Effective gives it as of a time.
	State State `json:"state"`
	// Token is the last token granted for this scope (0: never claimed).
	// Tokens are the ledger's: each grant takes one greater than every
	// token granted before in any scope.
	Token int64 `json:"token"`
	// Holder is the task that holds, or last held, Token.
	Holder       string    `json:"holder"`
	LeaseExpires time.Time `json:"lease_expires"`
	// CrossedToken is the token under which Cross was granted (0: none).
	CrossedToken int64 `json:"crossed_token,omitempty"`
	// Checkpoint is where the holder crossed (picker or send).
	Checkpoint string `json:"checkpoint,omitempty"`
	// Authorization names the person's authorization that opened a scope
	// other than the original one.
	Authorization *Authorization `json:"authorization,omitempty"`
	// Title is the destination's display title the last grant named
	// (the key of a provider/id destination does not carry it): a title
	// alone may name the same destination (SPEC §2).
	Title   string    `json:"title,omitempty"`
	Updated time.Time `json:"updated"`
}

// Authorization is a person's authorization of one more delivery of a key.
type Authorization struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Live reports whether the record's lease runs at now.
func (r Record) Live(now time.Time) bool { return now.Before(r.LeaseExpires) }

// Effective is the state as of now: a crossing whose lease expired is
// send_status_unknown (it is never freed), and a claim whose lease expired
// before any crossing is free to be claimed again.
func (r Record) Effective(now time.Time) State {
	switch {
	case r.State == Crossing && !r.Live(now):
		return SendStatusUnknown
	case r.State == Claimed && !r.Live(now):
		return Free
	}
	return r.State
}

// ProviderToken is the Idempotency-Key to give providers that accept one:
// derived from key and scope only, so every retry within a scope sends the
// same one and a provider that honours it deduplicates what the ledger
// cannot see.
func ProviderToken(key, scope string) string {
	sum := sha256.Sum256([]byte(key + "\x00" + scope))
	return "effectlint-" + hex.EncodeToString(sum[:16])
}

// Reason is why an operation was refused, in the vocabulary of the gate's
// reasons.
type Reason struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// The rules a refusal names.
const (
	// KeyConsumed: the scope is crossing, sent_verified or send_status_unknown.
	KeyConsumed = "KEY_CONSUMED"
	// ClaimedByOther: another task holds a live claim.
	ClaimedByOther = "CLAIMED"
	// Fenced: the token is not the scope's current token.
	Fenced = "FENCED"
	// Expired: the lease under this token ran out.
	Expired = "EXPIRED"
	// NotClaimed: nobody holds the scope.
	NotClaimed = "NOT_CLAIMED"
	// AlreadyCrossed: the scope was crossed; a release is refused.
	AlreadyCrossed = "ALREADY_CROSSED"
	// AlreadySettled: the scope is settled otherwise.
	AlreadySettled = "SETTLED"
	// UnknownAuthorization: the scope names an authorization with no record.
	UnknownAuthorization = "UNKNOWN_AUTHORIZATION"
	// AuthorizationExists: the authorization id is taken, with other words.
	AuthorizationExists = "AUTHORIZATION_EXISTS"
)

// Result is an operation's answer: the scope's record after it, whether it
// was granted, and why not.
type Result struct {
	Record
	Granted       bool     `json:"granted"`
	ProviderToken string   `json:"provider_token"`
	Reasons       []Reason `json:"reasons"`
	// changed tells the transaction to save the record; newToken, to
	// give it the ledger's next token first.
	changed, newToken bool
}

// ClaimRequest asks for a scope's lease.
type ClaimRequest struct {
	Task string
	// Key is the canonical key string (effect.Key.String()).
	Key string
	// Scope is OriginalScope (or empty) or an authorization id.
	Scope string
	// Title is the destination's display title when the key names it by
	// provider and id: a claim of a destination known by that title alone
	// may be the same, and so is refused while this one holds or consumed.
	Title string
	Lease time.Duration
	// Ref is the caller's reference for this claim, kept in the journal:
	// a Claude Code tool_use_id, say, so a transcript that names it can be
	// tied to the key computed when the claim was made.
	Ref string
}

// CrossRequest announces a crossing under a token.
type CrossRequest struct {
	Key, Scope string
	Token      int64
	// Checkpoint is picker or send (default send).
	Checkpoint string
}

// SettleRequest reports the outcome of a claim.
type SettleRequest struct {
	Key, Scope string
	Token      int64
	Outcome    Outcome
}

// AuthorizeRequest records a person's authorization of one more delivery
// of a key: the scope named Authorization can then be claimed once.
type AuthorizeRequest struct {
	Key, Authorization, By, Reason string
}

// Store is a key ledger. Every method is one transaction; a non-nil error
// means the operation's effect is unknown to the caller, who must treat it
// as a refusal (and a refused or failed Cross as "do not cross").
type Store interface {
	Claim(ctx context.Context, req ClaimRequest) (Result, error)
	Cross(ctx context.Context, req CrossRequest) (Result, error)
	Settle(ctx context.Context, req SettleRequest) (Result, error)
	Authorize(ctx context.Context, req AuthorizeRequest) (Result, error)
	// Get reads one scope's record; ok is false when the ledger has none.
	Get(ctx context.Context, key, scope string) (rec Record, ok bool, err error)
	// Journal calls fn with every entry, in the order they were written,
	// of one key (every key when key is empty).
	Journal(ctx context.Context, key string, fn func(Entry) error) error
	// Prune drops the journal detail of terminal scopes last changed
	// before t, keeping one tombstone entry per scope; it never changes a
	// record, so a consumed scope stays consumed.
	Prune(ctx context.Context, before time.Time) (int, error)
	// Now is the store's clock (leases are measured by it).
	Now(ctx context.Context) (time.Time, error)
	// Where names the store (a file path, a URL without password).
	Where() string
	Close() error
}

// ErrInvalid marks a request the ledger refuses to read (a malformed key,
// a missing task, a non-positive lease).
var ErrInvalid = errors.New("invalid request")

// MaxLease bounds a lease: a claim that outlives any worker is a lock
// nobody can take back.
const MaxLease = 24 * time.Hour

// DefaultLease is the lease of a claim that names none.
const DefaultLease = 5 * time.Minute
