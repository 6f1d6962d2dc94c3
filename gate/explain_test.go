package gate_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

const scenario06 = "../testdata/scenarios/06-overnight-resume-duplicate"

// Failed is the stop of a check its caller could not ask: the same
// GATE_ERROR shape as a check that failed inside Check.
func TestFailedIsTheStopOfACheckThatFailed(t *testing.T) {
	d := gate.Failed(gate.Request{Task: "t1"}, errors.New("bad destination"))
	if d.Allowed() || d.Decision != "stop" || d.Err == nil || d.Checkpoint != gate.Resume {
		t.Fatalf("decision %+v", d.CheckReport)
	}
	if len(d.Reasons) != 1 || d.Reasons[0].Rule != gate.ReasonError || !strings.Contains(d.Reasons[0].Message, "bad destination") ||
		d.Reasons[0].Evidence == nil || d.Inputs == nil {
		t.Fatalf("reasons %+v, inputs %v", d.Reasons, d.Inputs)
	}
	if d := gate.Failed(gate.Request{Task: "t1"}, nil); d.Err == nil || d.Decision != "stop" {
		t.Fatalf("a nil error must still stop with an error: %+v", d)
	}
}

// A ledger that WithLedgerFrom cannot get is an unreadable history: the
// check stops, over histories that would allow.
func TestWithLedgerFromThatFailsStops(t *testing.T) {
	ctx := context.Background()
	req := gate.Request{Task: "t9", Checkpoint: gate.Send, Intent: newIntent(), Paths: []string{"../testdata/scenarios/03-prior-not-sent"}}
	g, err := gate.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Check(ctx, req); !d.Allowed() {
		t.Fatalf("without the ledger: %s %+v", d.Decision, d.Reasons)
	}
	g, err = gate.New(ctx, gate.WithLedgerFrom("ledger:down", func(context.Context) (ledger.Store, error) { return nil, errors.New("connection refused") }))
	if err != nil {
		t.Fatal(err)
	}
	d := g.Check(ctx, req)
	if d.Allowed() || d.Reasons[0].Rule != "HISTORY_UNREADABLE" {
		t.Fatalf("with a ledger that cannot be got: %s %+v", d.Decision, d.Reasons)
	}
	// One that can be got joins the histories.
	s := ledgertest.NewMemory(ledger.Config{})
	g, err = gate.New(ctx, gate.WithLedgerFrom("ledger:memory", func(context.Context) (ledger.Store, error) { return s, nil }))
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Check(ctx, req); !d.Allowed() {
		t.Fatalf("with an empty ledger: %s %+v", d.Decision, d.Reasons)
	}
}

func TestExplain(t *testing.T) {
	ctx := context.Background()
	g, err := gate.New(ctx, gate.WithPoliciesOfEitherKind(), gate.WithAsOf(mustTime("2026-11-30T08:09:59Z")))
	if err != nil {
		t.Fatal(err)
	}
	x, err := g.Explain(ctx, gate.ExplainRequest{Task: "t2", Paths: []string{scenario06}})
	if err != nil {
		t.Fatal(err)
	}
	if x.Gate == nil || x.Gate.Gate.Decision != "stop" || x.Scopes != nil {
		t.Fatalf("task explanation %+v", x)
	}
	var b bytes.Buffer
	if err := x.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "STOP task t2 at resume") {
		t.Fatalf("text %q, %v", b.String(), err)
	}
	key := x.Facts.Scopes[0].Key
	x, err = g.Explain(ctx, gate.ExplainRequest{Key: key, Paths: []string{scenario06}})
	if err != nil {
		t.Fatal(err)
	}
	if x.Gate != nil || len(x.Scopes) != 1 || x.Scopes[0].State.State != "send_status_unknown" {
		t.Fatalf("key explanation %+v", x)
	}
	for _, bad := range []gate.ExplainRequest{
		{Paths: []string{scenario06}},
		{Key: key, Task: "t2", Paths: []string{scenario06}},
		{Key: "v1|nonsense", Paths: []string{scenario06}},
		{Key: key, Scope: "a9", Paths: []string{scenario06}},
		{Task: "t2", Checkpoint: "sned", Paths: []string{scenario06}},
		{Task: "t2", Paths: []string{"no/such/history"}},
	} {
		if x, err := g.Explain(ctx, bad); err == nil {
			t.Errorf("%+v: explained %+v", bad, x)
		}
	}
}

func newIntent() analyzer.IntentSpec {
	return analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack", ID: "C0OTHER99"}, SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}
}
