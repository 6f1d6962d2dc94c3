package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

func firingsText(fs []policy.Firing) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%d %s %s reason=%s tasks=%v facts=%v\n", f.Depth, f.Rule, f.Value, f.Reason, f.Tasks, f.Facts)
	}
	return b.String()
}

func TestExplainState_KeepsToTheScopeAsked(t *testing.T) {
	// 07: two key scopes, each with one task whose history is incomplete.
	// The explanation of each names its own task only.
	e := mustCompile(t, nil)
	f := facts(t, "../testdata/scenarios/07-unreadable-history")
	if len(f.Scopes) != 2 {
		t.Fatalf("%d scopes", len(f.Scopes))
	}
	for _, s := range f.Scopes {
		x, err := e.ExplainState(context.Background(), f, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := firingsText(x.Firings)
		want := fmt.Sprintf("0 state_of send_status_unknown reason= tasks=[] facts=[]\n1 status_unknown true reason= tasks=%v facts=[]\n", s.Tasks)
		if x.State != "send_status_unknown" || got != want {
			t.Errorf("%s: %s\n%s\nwant\n%s", s.ID, x.State, got, want)
		}
	}
	if _, err := e.ExplainState(context.Background(), f, "no-such-scope"); err == nil {
		t.Error("no error for an unknown scope")
	}
}

func TestExplainGate_EveryStopDefinitionWithItsReason(t *testing.T) {
	e := mustCompile(t, nil, "always.rego", "package effectlint.custom.always\n\nstop contains {\"rule\": \"ALWAYS\", \"message\": \"no\"} if true\n")
	f := facts(t, incidentDir)
	f.Query = f.Ask("t2", "send", analyzer.IntentSpec{})
	x, err := e.ExplainGate(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, fi := range x.Firings {
		reasons = append(reasons, fi.Reason+"@"+strings.SplitN(fi.Location, ":", 2)[0])
	}
	if strings.Join(reasons, ",") != "KEY_CONSUMED@rules.rego,ALREADY_CROSSED@rules.rego,NOT_ELECTED@rules.rego,ALWAYS@always.rego" {
		t.Errorf("firings: %v", reasons)
	}
	if x.StateOf != "others" || x.State == nil || x.State.State != "send_status_unknown" {
		t.Fatalf("state: %s %+v", x.StateOf, x.State)
	}
	// t1 crossed three times before its segment ended, and labelled itself
	// send_status_unknown: both definitions of status_unknown hold.
	got := firingsText(x.State.Firings)
	for _, want := range []string{"1 status_unknown true reason= tasks=[] facts=[{" + incidentDir + "/t1.jsonl 5} {" + incidentDir + "/t1.jsonl 7} {" + incidentDir + "/t1.jsonl 9}]",
		"1 status_unknown true reason= tasks=[] facts=[{" + incidentDir + "/t1.jsonl 10}]"} {
		if !strings.Contains(got, want) {
			t.Errorf("state firings lack %q:\n%s", want, got)
		}
	}
}
