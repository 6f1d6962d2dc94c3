package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/effectlint/effectlint/policy/builtin"
)

// TestRegoRules runs the Rego unit tests of the built-in rules through
// Verify (what `effectlint verify` runs), each as a subtest named after its
// Rego rule: under the engine's sandboxed capabilities and with builtin
// errors raised (the engine evaluates with StrictBuiltinErrors). A failed
// test is reported with its location and the last expression of its body
// that failed.
func TestRegoRules(t *testing.T) {
	modules := []Module{{Name: builtin.RulesName, Source: builtin.Rules}, {Name: builtin.TestsName, Source: builtin.Tests}}
	results, err := Verify(context.Background(), VerifyConfig{Builtin: modules})
	if err != nil {
		t.Fatalf("compiling the built-in rules and tests: %v", err)
	}
	ran := 0
	for _, r := range results {
		if r.Outcome == TestSkip {
			continue
		}
		ran++
		t.Run(r.Name, func(t *testing.T) {
			switch r.Outcome {
			case TestError:
				t.Errorf("%s: %s: error: %s", r.Where(), r.Name, r.Error)
			case TestFail:
				t.Errorf("%s: %s: failed at %s", r.Where(), r.Name, r.FailedAt)
			}
			if r.Output != "" {
				t.Logf("output:\n%s", r.Output)
			}
		})
	}
	if ran < 100 {
		t.Fatalf("%d Rego tests ran, want the 100+ of rules_test.rego", ran)
	}
	t.Logf("%d Rego tests ran", ran)
}

// TestRegoRules_CoverEveryFindingAndGateReason keeps rules_test.rego
// complete: every finding id of the built-in rules (from their METADATA) and
// every gate reason of SPEC §5 is named by at least one test_* rule, so
// `effectlint verify` exercises each of them.
func TestRegoRules_CoverEveryFindingAndGateReason(t *testing.T) {
	e := builtinEngine(t)
	want := map[string]bool{}
	for _, r := range e.Rules() {
		want[r.ID] = true
	}
	if len(want) != 14 {
		t.Errorf("the built-in rules describe %d finding ids, SPEC §6 has 14", len(want))
	}
	for _, r := range []string{"UNKNOWN_TASK", "NO_KEY", "HISTORY_UNREADABLE", "UNKEYED_CROSSING", "UNKNOWN_AUTHORIZATION", "KEY_CONSUMED",
		"ALREADY_CROSSED", "NOT_ELECTED", "NO_MATCHING_HISTORY", "PRIOR_NOT_SENT", "ELECTED_EXECUTOR", "AUTHORIZED_REDELIVERY"} {
		want[r] = true
	}
	mod, err := ast.ParseModuleWithOpts(builtin.TestsName, builtin.Tests, parserOptions())
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	for _, r := range mod.Rules {
		if !strings.HasPrefix(r.Head.Ref()[0].Value.String(), "test_") {
			continue
		}
		seen := map[string]bool{}
		ast.WalkTerms(r, func(x *ast.Term) bool {
			if s, ok := x.Value.(ast.String); ok && want[string(s)] && !seen[string(s)] {
				seen[string(s)] = true
				named[string(s)]++
			}
			return false
		})
	}
	for id := range want {
		if named[id] == 0 {
			t.Errorf("no test_* rule of rules_test.rego names %s", id)
		}
	}
}
