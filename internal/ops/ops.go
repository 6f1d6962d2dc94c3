// Package ops holds what effectlint's surfaces share when they act on the
// gate and the key ledger: the command line (package cmd) and the MCP
// server (package mcpserver) answer with the same shapes and run the same
// flow, so a refusal reads the same and fails closed the same whichever
// surface was asked.
//
//   - Answer is a ledger operation's answer (SPEC §9), as `claim`, `cross`
//     and `settle --format json` print it and as the MCP tools return it.
//   - Intent names an intent the way both surfaces take it: a key, or a
//     destination (PROVIDER/ID) or title with a file or a sha256.
//   - Claim is a claim as SPEC §9 orders it: the gate first over the
//     histories, when there are any, then the ledger.
package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
)

// Answer is a ledger operation's answer (SPEC §9): the scope's record
// after it, whether it was granted, and why not.
type Answer struct {
	Operation     string      `json:"operation" jsonschema:"the operation answered: claim, cross, settle or authorize"`
	Granted       bool        `json:"granted" jsonschema:"true only when the operation was granted; anything else is a refusal: do not act"`
	Key           string      `json:"key" jsonschema:"the key scope's idempotency key"`
	Scope         string      `json:"scope" jsonschema:"the key scope: original, or the authorization id of a redelivery"`
	State         string      `json:"state" jsonschema:"the scope's state after the operation: free, claimed, crossing, sent_verified or send_status_unknown (empty when the ledger could not answer)"`
	Token         int64       `json:"token" jsonschema:"the fencing token: the one granted by claim, to pass to cross and settle (0: none)"`
	Holder        *string     `json:"holder" jsonschema:"the task that holds, or last held, the token"`
	LeaseExpires  *string     `json:"lease_expires" jsonschema:"when the lease runs out (RFC 3339, by the ledger's clock)"`
	ProviderToken string      `json:"provider_token" jsonschema:"the Idempotency-Key to give a provider that accepts one: the same for every retry within the scope"`
	Reasons       []Reason    `json:"reasons" jsonschema:"why the operation was refused (empty when granted)"`
	Ledger        string      `json:"ledger" jsonschema:"the ledger that answered (no password)"`
	Gate          *GateDetail `json:"gate,omitempty" jsonschema:"the gate's decision, when a claim asked it first and it stopped"`
}

// Reason is one reason of a refusal, as in SPEC §8.
type Reason struct {
	Rule     string             `json:"rule" jsonschema:"the reason's rule, e.g. KEY_CONSUMED, CLAIMED, FENCED, EXPIRED, GATE_ERROR, LEDGER_ERROR"`
	Message  string             `json:"message" jsonschema:"what the rule found, in words"`
	Evidence []analyzer.Pointer `json:"evidence" jsonschema:"the events it rests on: file and line"`
}

// GateDetail is the gate's decision when a claim asked it first.
type GateDetail struct {
	Decision string  `json:"decision" jsonschema:"the gate's decision: stop"`
	State    *string `json:"state" jsonschema:"the key scope's state in the histories"`
}

// The rules of refusals that no store and no gate rule gave: the
// operation could not be made.
const (
	// NoLedger: the operation needs a ledger and none is configured.
	NoLedger = "NO_LEDGER"
	// LedgerError: the ledger could not be opened or did not answer; the
	// operation's effect is unknown.
	LedgerError = "LEDGER_ERROR"
	// InvalidRequest: the request was not one the ledger reads.
	InvalidRequest = "INVALID_REQUEST"
	// NoKey: the key could not be computed (as the gate's NO_KEY).
	NoKey = "NO_KEY"
)

// AnswerOf is the answer of an operation the store answered.
func AnswerOf(op string, s ledger.Store, r ledger.Result) Answer {
	a := Answer{Operation: op, Granted: r.Granted, Key: r.Key, Scope: r.Scope, State: string(r.State), Token: r.Token,
		ProviderToken: r.ProviderToken, Reasons: []Reason{}, Ledger: ledger.Redact(s.Where())}
	if r.Holder != "" {
		a.Holder = &r.Holder
	}
	if !r.LeaseExpires.IsZero() {
		t := r.LeaseExpires.UTC().Format(time.RFC3339Nano)
		a.LeaseExpires = &t
	}
	for _, x := range r.Reasons {
		a.Reasons = append(a.Reasons, Reason{Rule: x.Rule, Message: x.Message, Evidence: []analyzer.Pointer{}})
	}
	return a
}

// Refusal is the answer of an operation that could not be made: never
// granted, one reason. where names the ledger (a spec or a store's Where;
// its password is dropped), empty when there is none.
func Refusal(op, key, scope, where, rule, message string) Answer {
	a := Answer{Operation: op, Key: key, Scope: scope, Reasons: []Reason{{Rule: rule, Message: message, Evidence: []analyzer.Pointer{}}}}
	if where != "" {
		a.Ledger = ledger.Redact(where)
	}
	if key != "" {
		if scope == "" {
			a.Scope = ledger.OriginalScope
		}
		a.ProviderToken = ledger.ProviderToken(key, a.Scope)
	}
	return a
}

// FailureMessage says that an operation failed on a store: its effect is
// unknown, so the caller treats it as refused. An invalid request is said
// as it is.
func FailureMessage(where, op string, err error) string {
	if errors.Is(err, ledger.ErrInvalid) {
		return fmt.Sprintf("%s: %v", op, err)
	}
	return fmt.Sprintf("%s on ledger %s: %v (the operation's effect is unknown: treat it as refused)", op, ledger.Redact(where), err)
}

// FailureRule is the rule of a refusal for a store's error.
func FailureRule(err error) string {
	if errors.Is(err, ledger.ErrInvalid) {
		return InvalidRequest
	}
	return LedgerError
}

// Intent names an intent: a key, or a destination and content. Title
// alone is a weak destination; with Destination it is the channel's
// title too (the key stays provider/id), so the gate also weighs
// crossings known by that title alone.
type Intent struct {
	Key, Destination, Title, File, SHA256, Authorization string
}

// ErrNoIntent is the error of an intent that names nothing.
var ErrNoIntent = errors.New("no intent named")

// Spec reads the intent for the gate.
func (i Intent) Spec() (analyzer.IntentSpec, error) {
	s := analyzer.IntentSpec{Key: i.Key, File: i.File, SHA256: i.SHA256, Authorization: i.Authorization}
	if i.Destination != "" {
		d, err := effect.ParseDestination(i.Destination)
		if err != nil {
			return s, err
		}
		s.Destination = d
	}
	s.Destination.Title = i.Title
	return s, nil
}

// TitleBesidesKey is the destination title the intent names that its key
// does not carry (a provider/id destination's title): the ledger keeps it
// with the claim, since a title alone may name the same destination.
func (i Intent) TitleBesidesKey() string {
	if i.Key != "" || strings.TrimSpace(i.Destination) == "" {
		return ""
	}
	return strings.TrimSpace(i.Title)
}

// ComputeKey is the canonical key the intent names (ErrNoIntent when it
// names none).
func (i Intent) ComputeKey() (string, error) {
	s, err := i.Spec()
	if err != nil {
		return "", err
	}
	if s.Empty() {
		return "", ErrNoIntent
	}
	k, err := s.Compute()
	if err != nil {
		return "", err
	}
	return k.String(), nil
}

// GateFailed is the error of a claim whose gate could not decide: the
// stop decision, whose Err says why.
type GateFailed struct{ Decision gate.Decision }

func (e *GateFailed) Error() string { return e.Decision.Err.Error() }

func (e *GateFailed) Unwrap() error { return e.Decision.Err }

// StoreFailed is the error of an operation the store did not answer: its
// effect is unknown.
type StoreFailed struct {
	Op  string
	Err error
}

func (e *StoreFailed) Error() string { return e.Err.Error() }

func (e *StoreFailed) Unwrap() error { return e.Err }

// Claim is a claim as SPEC §9 orders it. req must have passed
// ledger.NormalizeClaim. With paths, g (whose histories include the
// ledger's journal) is asked first at picker, for the task and the key
// scope: a stop there is a refusal that carries the gate's reasons and
// the scope's record as the ledger has it. Then the ledger answers.
//
// Errors: *GateFailed when the gate could not decide, *StoreFailed when
// the store did not answer. Either is a refusal to the caller.
//
// in is the intent as the caller named it: the gate weighs all of it (a
// --title beside --destination may name the same destination as a
// crossing known by that title alone, SPEC §2), not only the key.
func Claim(ctx context.Context, s ledger.Store, g *gate.Gate, req ledger.ClaimRequest, in Intent, paths []string) (Answer, error) {
	if len(paths) > 0 {
		intent := analyzer.IntentSpec{Key: req.Key}
		if spec, err := in.Spec(); err == nil && !spec.Empty() {
			intent = spec
		}
		intent.Authorization = ""
		if req.Scope != ledger.OriginalScope {
			intent.Authorization = req.Scope
		}
		d := g.Check(ctx, gate.Request{Task: req.Task, Checkpoint: gate.Picker, Intent: intent, Paths: paths})
		if d.Err != nil {
			return Answer{}, &GateFailed{Decision: d}
		}
		if d.Decision != "allow" {
			rec, _, err := s.Get(ctx, req.Key, req.Scope)
			if err != nil {
				return Answer{}, &StoreFailed{Op: "claim", Err: err}
			}
			a := AnswerOf("claim", s, ledger.Result{Record: rec, ProviderToken: ledger.ProviderToken(req.Key, req.Scope)})
			a.Key, a.Scope = req.Key, req.Scope
			if a.State == "" {
				a.State = string(ledger.Free)
			}
			a.Gate = &GateDetail{Decision: d.Decision, State: d.State}
			for _, r := range d.Reasons {
				a.Reasons = append(a.Reasons, Reason(r))
			}
			return a, nil
		}
	}
	r, err := s.Claim(ctx, req)
	if err != nil {
		return Answer{}, &StoreFailed{Op: "claim", Err: err}
	}
	return AnswerOf("claim", s, r), nil
}
