package gate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
)

// A worker about to resume asks the gate over the histories of its
// siblings: t1 fired send, could not confirm, and said so; t2 must stop.
func ExampleGate_Check() {
	g, err := gate.New(context.Background(), gate.WithAsOf(mustTime("2026-11-30T08:09:59Z")))
	if err != nil {
		panic(err)
	}
	d := g.Check(context.Background(), gate.Request{
		Task:       "t2",
		Checkpoint: gate.Resume,
		Paths:      []string{"../testdata/scenarios/06-overnight-resume-duplicate"},
	})
	fmt.Println(d.Decision, d.Allowed())
	for _, r := range d.Reasons {
		fmt.Println(r.Rule)
	}
	// Output:
	// stop false
	// KEY_CONSUMED
}

// A task with no history yet names its intent: destination and content.
func ExampleGate_Check_newTask() {
	g, _ := gate.New(context.Background())
	d := g.Check(context.Background(), gate.Request{
		Task:       "t9",
		Checkpoint: gate.Send,
		Intent:     analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack", ID: "C0OTHER99"}, SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"},
		Paths:      []string{"../testdata/scenarios/03-prior-not-sent"},
	})
	fmt.Println(d.Decision, d.Reasons[0].Rule)
	// Output: allow NO_MATCHING_HISTORY
}

// Every failure is a stop: here a path that does not exist.
func ExampleGate_Check_failure() {
	g, _ := gate.New(context.Background())
	d := g.Check(context.Background(), gate.Request{Task: "t2", Paths: []string{"no/such/history"}})
	fmt.Println(d.Decision, d.Allowed(), d.Reasons[0].Rule, d.Err != nil)
	// Output: stop false GATE_ERROR true
}

// A post-incident review: the state of every key scope and the findings.
func ExampleGate_Analyze() {
	g, _ := gate.New(context.Background())
	rep, err := g.Analyze(context.Background(), gate.AnalyzeRequest{Paths: []string{"../testdata/scenarios/06-overnight-resume-duplicate"}})
	if err != nil {
		panic(err)
	}
	for _, k := range rep.Keys {
		fmt.Println(k.Scope, k.State)
	}
	fmt.Println(rep.Summary.Failed, rep.Findings[0].Rule)
	// Output:
	// original sent_verified
	// true DUPLICATE_DELIVERY
}

func mustTime(s string) (t time.Time) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
