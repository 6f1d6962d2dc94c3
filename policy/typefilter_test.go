package policy

import (
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/effectlint/effectlint/transcripts"
)

// The built-in rules are given only the scope facts of the types in
// rules.rego's scope_fact_types (evaluate.go). That the filtered
// evaluation decides as the whole one is held by TestAnalyzeByParts_SameAsWhole,
// TestCheckInput_SameDecisionAsWhole and TestProperty_PartsJudgeAsTheWhole,
// whose "whole" is the unfiltered document; this test holds the set to the
// rules: an event type the rules name outside the set would be a type they
// read but never see.
func TestScopeFactTypes_NameEveryTypeTheRulesRead(t *testing.T) {
	mod := parsedRules(t)
	native := transcripts.NativeTypes()
	e := builtinEngine(t)
	if e.scopeTypes == nil {
		t.Fatal("the engine read no scope_fact_types from rules.rego")
	}
	for typ := range e.scopeTypes {
		if !slices.Contains(native, typ) {
			t.Errorf("scope_fact_types holds %q, which is no SPEC §3 event type", typ)
		}
	}
	named := map[string]int{}
	for _, r := range mod.Rules {
		if r.Head.Name.Equal(ast.Var("scope_fact_types")) {
			continue
		}
		var visit func(x any)
		visit = func(x any) {
			ast.WalkTerms(x, func(term *ast.Term) bool {
				switch v := term.Value.(type) {
				case ast.Ref:
					// A field name (i.authorization) is no type: walk the
					// head and the variable parts only.
					for j, p := range v {
						if _, isName := p.Value.(ast.String); j == 0 || !isName {
							visit(p)
						}
					}
					return true
				case ast.String:
					if slices.Contains(native, string(v)) {
						if _, seen := named[string(v)]; !seen {
							named[string(v)] = term.Location.Row
						}
					}
				}
				return false
			})
		}
		visit(r)
	}
	for typ, row := range named {
		if !e.scopeTypes[typ] {
			t.Errorf("rules.rego:%d names the event type %q, which scope_fact_types leaves out: the rules would never see it in a scope", row, typ)
		}
	}
	// A control: the test sees the types the rules name.
	for _, typ := range []string{"send_fired", "readback", "gate_check", "status", "interrupted"} {
		if _, ok := named[typ]; !ok {
			t.Errorf("the walk found no use of %q in rules.rego", typ)
		}
	}
}

// The built-in rules are given only the unkeyed facts of the types in
// unkeyed_fact_types. The equivalence tests above hold the filtered
// evaluation to the unfiltered document over the histories; this test
// holds the set to the predicates the rules test unkeyed facts with, and
// names the rules that read input.unkeyed: a new one must be read against
// the set before it joins the list.
func TestUnkeyedFactTypes_EveryCrossingApproachAndRetreat(t *testing.T) {
	e := builtinEngine(t)
	if e.unkeyedTypes == nil {
		t.Fatal("the engine read no unkeyed_fact_types from rules.rego")
	}
	var types []any
	for _, typ := range transcripts.NativeTypes() {
		types = append(types, typ)
	}
	// Every type that one of the predicates holds for, with any decision,
	// checkpoint and result a fact of it may carry.
	facts := `some t in input.types
		some cp in ["resume", "picker", "send"]
		some d in ["allow", "stop"]
		some r in ["confirmed", "not_found", "ok", ""]
		f := {"type": t, "checkpoint": cp, "decision": d, "result": r}`
	read := stringSet(t, evalRules(t, "{t | "+facts+"; data.effectlint.crossing(f)} | {t | "+facts+
		"; data.effectlint.approach(f)} | {t | "+facts+"; data.effectlint.retreat(f)}", map[string]any{"types": types}))
	for _, typ := range read {
		if !e.unkeyedTypes[typ] {
			t.Errorf("unkeyed_fact_types leaves out %q, which crossing, approach or retreat holds for", typ)
		}
	}
	for typ := range e.unkeyedTypes {
		if !slices.Contains(read, typ) {
			t.Errorf("unkeyed_fact_types holds %q, which no predicate holds for", typ)
		}
	}
	if !slices.Contains(read, "send_fired") || !slices.Contains(read, "picker_dismissed") || !slices.Contains(read, "gate_check") {
		t.Errorf("the predicates hold for %v: the query sees too little", read)
	}
	var readers []string
	for _, r := range parsedRules(t).Rules {
		found := false
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			found = found || ref.HasPrefix(ast.MustParseRef("input.unkeyed"))
			return found
		})
		if found && !slices.Contains(readers, r.Head.Name.String()) {
			readers = append(readers, r.Head.Name.String())
		}
	}
	slices.Sort(readers)
	if want := []string{"unkeyed_candidates", "unkeyed_crossing", "unkeyed_last_resolution"}; !slices.Equal(readers, want) {
		t.Errorf("the rules that read input.unkeyed are %v, want %v: read what a new one tests against unkeyed_fact_types, then add it here", readers, want)
	}
}
