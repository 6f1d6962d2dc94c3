package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/policy/builtin"
)

// rules.rego is written for speed in places: scans test a fact's type
// inline before calling a predicate, a key scope's gate checks and
// crossings are listed once, classes come from a table. Each such helper
// is held to the plain predicate it stands for, by the Rego tests at the
// end of rules_test.rego and by the test below, so a change of a decision
// is made in one place.

// fact_class is the table rules.rego uses for class: the same answer for
// every type of the vocabulary, with every field that matters.
func TestFactClass_IsClass(t *testing.T) {
	pq, err := rego.New(builtinRego(t,
		rego.Query(`bad := [[f, data.effectlint.class(f), data.effectlint.fact_class(f)] |
			some typ in {"picker_opened", "picker_dismissed", "picker_accepted", "send_fired", "request_sent",
				"outgoing_item_seen", "readback", "response", "ui_changed", "timeout", "response_lost",
				"failure_shown", "interrupted", "status", "gate_check", "tool_output", "", "heartbeat"}
			some extra in [{}, {"result": "confirmed"}, {"result": "mismatch"}, {"result": "unavailable"},
				{"ok": true}, {"ok": false}, {"ok": "true"}, {"decision": "allow", "checkpoint": "picker"},
				{"decision": "allow", "checkpoint": "send"}, {"decision": "allow", "checkpoint": "resume"},
				{"decision": "stop", "checkpoint": "send"}, {"label": "sent_verified"}]
			f := object.union({"type": typ}, extra)
			data.effectlint.class(f) != data.effectlint.fact_class(f)
		]`))...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs, err := pq.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bad := rs[0].Bindings["bad"].([]any); len(bad) > 0 {
		t.Fatalf("fact_class differs from class: %v", bad)
	}
}

// Each gate stop reason is a definition of `stop` with METADATA: a title,
// the contract's sentence, and its order among SPEC §5's reasons, which
// the reason's "order" field carries (no number in the rule's code).
func TestStopReasons_HaveMetadataInTheContractsOrder(t *testing.T) {
	m, err := ast.ParseModuleWithOpts(builtin.RulesName, builtin.Rules, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	order := map[string]int{"UNKNOWN_TASK": 1, "NO_KEY": 2, "HISTORY_UNREADABLE": 3, "UNKEYED_CROSSING": 4,
		"UNKNOWN_AUTHORIZATION": 5, "KEY_CONSUMED": 6, "ALREADY_CROSSED": 7, "NOT_ELECTED": 8}
	seen := map[string]bool{}
	for _, r := range m.Rules {
		if r.Head.Name.String() != "stop" && r.Head.Ref().String() != "stop" {
			continue
		}
		text := string(r.Location.Text)
		rule := ""
		for id := range order {
			if containsQuoted(text, id) {
				rule = id
			}
		}
		if rule == "" {
			t.Errorf("rules.rego:%d: a stop reason names no rule of SPEC §5", r.Location.Row)
			continue
		}
		seen[rule] = true
		if len(r.Annotations) != 1 || r.Annotations[0].Title == "" || r.Annotations[0].Description == "" {
			t.Errorf("rules.rego:%d: stop reason %s has no METADATA title and description", r.Location.Row, rule)
			continue
		}
		if got, _ := r.Annotations[0].Custom["order"].(int); got != order[rule] {
			t.Errorf("rules.rego:%d: stop reason %s has order %v, want %d", r.Location.Row, rule, r.Annotations[0].Custom["order"], order[rule])
		}
	}
	if len(seen) != len(order) {
		t.Errorf("stop reasons found: %v, want all of %v", seen, order)
	}
}

func containsQuoted(text, id string) bool {
	q := `"` + id + `"`
	for i := 0; i+len(q) <= len(text); i++ {
		if text[i:i+len(q)] == q {
			return true
		}
	}
	return false
}

// builtinRego is the options of a query of the built-in rules, compiled
// once for the package's tests (builtinEngine): compiling rules.rego for
// each query made one test take 12 s.
func builtinRego(t tb, opts ...func(*rego.Rego)) []func(*rego.Rego) {
	t.Helper()
	e := builtinEngine(t)
	return append([]func(*rego.Rego){rego.Compiler(e.compiler), rego.Store(e.store)}, opts...)
}

// referenceQuery prepares query over the built-in rules compiled with a
// reference module beside them (reference.rego, package effectlint): the
// rules a faster one replaced, so that a test can ask both of one input.
// The engine is compiled once per reference (CompileCached).
func referenceQuery(t tb, reference, query string) rego.PreparedEvalQuery {
	t.Helper()
	e, err := CompileCached(context.Background(), Config{Builtin: []Module{
		{Name: builtin.RulesName, Source: builtin.Rules},
		{Name: "reference.rego", Source: reference},
	}})
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store), rego.Query(query)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pq
}
