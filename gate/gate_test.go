package gate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/effectlint/effectlint/analyzer"
)

const (
	incident = "../testdata/scenarios/06-overnight-resume-duplicate"
	sha      = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
)

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// A failure injected at each stage of Check yields a stop, never an
// allow, with the error kept; the same check without the failure allows.
func TestCheck_AFailureAtAnyStageIsAStop(t *testing.T) {
	g, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A new task for another channel: the control allows.
	req := Request{Task: "t9", Checkpoint: Send, Paths: []string{incident}, AsOf: mustParse(t, "2026-11-30T09:00:00Z"),
		Intent: analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack", ID: "C0OTHER99"}, SHA256: sha}}
	if d := g.Check(context.Background(), req); !d.Allowed() {
		t.Fatalf("the control check does not allow: %+v %v", d.CheckReport, d.Err)
	}
	boom := errors.New("injected")
	for _, at := range []stage{stageRead, stageFacts, stageCompile, stageEvaluate, stageReport} {
		failAt = func(s stage) error {
			if s == at {
				return boom
			}
			return nil
		}
		d := g.Check(context.Background(), req)
		failAt = nil
		if d.Allowed() || d.Decision != "stop" || !errors.Is(d.Err, boom) || len(d.Reasons) != 1 || d.Reasons[0].Rule != ReasonError {
			t.Errorf("failure at %s: %+v (err %v), want a stop with the error", at, d.CheckReport, d.Err)
		}
	}
	// A panic anywhere inside is a stop too.
	failAt = func(s stage) error {
		if s == stageEvaluate {
			panic("injected panic")
		}
		return nil
	}
	d := g.Check(context.Background(), req)
	failAt = nil
	if d.Allowed() || d.Err == nil {
		t.Errorf("a panic: %+v %v, want a stop", d.CheckReport, d.Err)
	}
}

// What a caller can get wrong is a stop: no task, a checkpoint that is
// not one, broken rules, an evaluation out of time.
func TestCheck_BadRequestsAndBrokenPolicyAreStops(t *testing.T) {
	g, _ := New(context.Background())
	for _, req := range []Request{{Checkpoint: Send, Paths: []string{incident}}, {Task: "t2", Checkpoint: "click", Paths: []string{incident}}, {Task: "t2"}} {
		if d := g.Check(context.Background(), req); d.Allowed() || d.Err == nil {
			t.Errorf("%+v: %+v, want a stop with an error", req, d.CheckReport)
		}
	}
	broken, _ := New(context.Background(), WithRules("package effectlint\n\ngate := {\"decision\": \"allow\"\n"))
	if d := broken.Check(context.Background(), Request{Task: "t9", Paths: []string{incident}}); d.Allowed() || d.Err == nil {
		t.Errorf("broken rules: %+v, want a stop", d.CheckReport)
	}
	allowAlways, _ := New(context.Background(), WithRules("package effectlint\n\ngate := {\"decision\": \"allow\", \"reasons\": []}\n"))
	if d := allowAlways.Check(context.Background(), Request{Task: "t9", Paths: []string{incident}}); d.Allowed() {
		t.Errorf("rules that decide nothing usable allowed: %+v", d.CheckReport)
	}
	slow, _ := New(context.Background(), WithTimeout(time.Nanosecond))
	d := slow.Check(context.Background(), Request{Task: "t9", Paths: []string{incident}})
	var te *TimeoutError
	if d.Allowed() || !errors.As(d.Err, &te) {
		t.Errorf("out of time: %+v %v, want a stop with a TimeoutError", d.CheckReport, d.Err)
	}
}

// A Gate is used concurrently (a server, a hook answering calls): every
// call waits for the one engine and decides alike (run with -race).
func TestCheck_ConcurrentCallsDecideAlike(t *testing.T) {
	g, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 8)
	for i := 0; i < cap(done); i++ {
		go func() {
			d := g.Check(context.Background(), Request{Task: "t2", Checkpoint: Send, Paths: []string{incident}})
			done <- d.Decision
		}()
	}
	for i := 0; i < cap(done); i++ {
		if got := <-done; got != "stop" {
			t.Errorf("call %d: %s, want stop", i, got)
		}
	}
}
