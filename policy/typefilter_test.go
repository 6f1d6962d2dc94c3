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
