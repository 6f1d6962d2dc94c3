package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// The state analyze must derive from a ledger's export for a scope in
// the ledger (SPEC §9: "analyze reads a ledger like any history and
// reproduces its states"); "" when the scope has no task (an
// authorization nobody claimed).
func exportedState(rec ledger.Record, now time.Time) string {
	switch rec.Effective(now) {
	case ledger.Claimed:
		return effect.Open
	case ledger.Crossing:
		return effect.InFlight
	case ledger.SentVerified:
		return effect.SentVerified
	case ledger.SendStatusUnknown:
		return effect.SendStatusUnknown
	}
	if rec.Token == 0 {
		return ""
	}
	return effect.NotSent
}

// randomLedger plays random operations on an in-memory ledger. With
// oneScopePerTask, each task works on one key scope only (the export is
// exact then); otherwise tasks hold several scopes at once.
func randomLedger(rt *rapid.T, oneScopePerTask bool) (*ledgertest.Memory, []string) {
	clock := &ledgertest.Clock{}
	s := ledgertest.NewMemory(clock.Config())
	ctx := context.Background()
	keys := []string{ledgertest.Key(1), ledgertest.Key(2)}
	scopes := []string{ledger.OriginalScope, "a1"}
	tokens := map[[2]string]int64{}
	// One record the export always has, so no run reads an empty ledger
	// (which is no input at all).
	if _, err := s.Authorize(ctx, ledger.AuthorizeRequest{Key: ledgertest.Key(9), Authorization: "seed", By: "pat", Reason: "r"}); err != nil {
		rt.Fatal(err)
	}
	n := rapid.IntRange(1, 30).Draw(rt, "steps")
	for i := 0; i < n; i++ {
		ki := rapid.IntRange(0, 1).Draw(rt, "key")
		si := rapid.IntRange(0, 1).Draw(rt, "scope")
		key, scope := keys[ki], scopes[si]
		task := fmt.Sprintf("t%d", rapid.IntRange(1, 3).Draw(rt, "task"))
		if oneScopePerTask {
			task = fmt.Sprintf("%s-k%ds%d", task, ki, si)
		}
		tok := tokens[[2]string{key, scope}]
		if rapid.Bool().Draw(rt, "stale") {
			tok--
		}
		var err error
		var r ledger.Result
		switch rapid.SampledFrom([]string{"claim", "claim", "cross", "settle", "authorize", "wait"}).Draw(rt, "op") {
		case "wait":
			clock.Advance(4 * time.Second * time.Duration(rapid.IntRange(1, 3).Draw(rt, "wait")))
		case "claim":
			r, err = s.Claim(ctx, ledger.ClaimRequest{Task: task, Key: key, Scope: scope, Lease: 10 * time.Second})
			if r.Granted {
				tokens[[2]string{key, scope}] = r.Token
			}
		case "cross":
			cp := rapid.SampledFrom([]string{"picker", "send"}).Draw(rt, "checkpoint")
			_, err = s.Cross(ctx, ledger.CrossRequest{Key: key, Scope: scope, Token: max(tok, 1), Checkpoint: cp})
		case "settle":
			o := rapid.SampledFrom([]ledger.Outcome{ledger.Confirmed, ledger.Unknown, ledger.NotCrossed}).Draw(rt, "outcome")
			_, err = s.Settle(ctx, ledger.SettleRequest{Key: key, Scope: scope, Token: max(tok, 1), Outcome: o})
		case "authorize":
			_, err = s.Authorize(ctx, ledger.AuthorizeRequest{Key: key, Authorization: "a1", By: "pat", Reason: "once more"})
		}
		if err != nil {
			rt.Fatal(err)
		}
	}
	return s, keys
}

func TestLedgerExport_AnalyzeReproducesEveryScopesState(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		s, keys := randomLedger(rt, true)
		g, err := gate.New(ctx, gate.WithLedger(s))
		if err != nil {
			rt.Fatal(err)
		}
		rep, err := g.Analyze(ctx, gate.AnalyzeRequest{FailOn: "none"})
		if err != nil {
			rt.Fatal(err)
		}
		now, _ := s.Now(ctx)
		got := map[[2]string]string{}
		for _, k := range rep.Keys {
			got[[2]string{k.Key, k.Scope}] = k.State
		}
		for _, in := range rep.Inputs {
			if len(in.Problems) > 0 {
				rt.Fatalf("the export has problems: %+v", in.Problems)
			}
		}
		for _, key := range keys {
			for _, scope := range []string{ledger.OriginalScope, "a1"} {
				rec, ok, _ := s.Get(ctx, key, scope)
				want := ""
				if ok {
					want = exportedState(rec, now)
				}
				if got[[2]string{key, scope}] != want {
					rt.Fatalf("%s/%s: ledger %s (token %d, %s), analyze of the export %q, want %q",
						key[len(key)-4:], scope, rec.Effective(now), rec.Token, rec.Holder, got[[2]string{key, scope}], want)
				}
			}
		}
	})
}

// Whatever tasks hold at once, a gate over the export never lets a new
// task cross a scope the ledger holds or consumed.
func TestLedgerExport_GateNeverAllowsWhatTheLedgerWouldRefuse(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		s, keys := randomLedger(rt, rapid.Bool().Draw(rt, "oneScopePerTask"))
		g, err := gate.New(ctx, gate.WithLedger(s))
		if err != nil {
			rt.Fatal(err)
		}
		now, _ := s.Now(ctx)
		for _, key := range keys {
			for _, scope := range []string{ledger.OriginalScope, "a1"} {
				rec, ok, _ := s.Get(ctx, key, scope)
				if !ok || rec.Effective(now) == ledger.Free {
					continue
				}
				intent := analyzer.IntentSpec{Key: key}
				if scope != ledger.OriginalScope {
					intent.Authorization = scope
				}
				// A task started long before anything in the ledger, holding
				// the same intent in a history of its own, is no executor
				// while another task holds the scope in the ledger.
				early := filepath.Join(t.TempDir(), "early.jsonl")
				auth := ""
				if scope != ledger.OriginalScope {
					auth = fmt.Sprintf(`,"authorization":%q`, scope)
				}
				hist := `{"ts":"2000-01-01T00:00:00Z","task":"early","type":"task_started","relation":"root"}` + "\n" +
					fmt.Sprintf(`{"ts":"2000-01-01T00:00:01Z","task":"early","type":"intent","key":%q%s}`, key, auth) + "\n"
				if err := os.WriteFile(early, []byte(hist), 0o644); err != nil {
					rt.Fatal(err)
				}
				for _, cp := range []string{gate.Picker, gate.Send} {
					for _, req := range []gate.Request{
						{Task: "newcomer", Checkpoint: cp, Intent: intent},
						{Task: "early", Checkpoint: cp, Paths: []string{early}},
					} {
						d := g.Check(ctx, req)
						if d.Decision != "stop" {
							rt.Fatalf("%s/%s is %s in the ledger (holder %s), yet the gate allows %s at %s: %+v",
								key[len(key)-4:], scope, rec.Effective(now), rec.Holder, req.Task, cp, d.Reasons)
						}
					}
				}
			}
		}
	})
}
