package policy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/transcripts"
)

// evalRules evaluates query over the built-in rules.
func evalRules(t *testing.T, query string, input any) any {
	t.Helper()
	opts := builtinRego(t, rego.Query("x := "+query))
	if input != nil {
		opts = append(opts, rego.Input(input))
	}
	rs, err := rego.New(opts...).Eval(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(rs) != 1 {
		return nil
	}
	return rs[0].Bindings["x"]
}

func stringSet(t *testing.T, v any) []string {
	t.Helper()
	xs, ok := v.([]any)
	if !ok {
		t.Fatalf("not a set: %v", v)
	}
	var out []string
	for _, x := range xs {
		out = append(out, x.(string))
	}
	sort.Strings(out)
	return out
}

// Issue 12: the crossing types are defined once, rules.rego's
// crossing_types; the inline set literals the scans use for speed are
// held to it here, so none can drift.
func TestCrossingTypes_DefinedOnceAndEveryCopyAgrees(t *testing.T) {
	crossing := stringSet(t, evalRules(t, "data.effectlint.crossing_types", nil))
	native := transcripts.NativeTypes()
	for _, c := range crossing {
		if !slices.Contains(native, c) {
			t.Errorf("crossing_types holds %q, which is no SPEC §3 event type", c)
		}
	}
	// The subsets a literal may list, by what they mean.
	subsets := map[string]string{
		"request_sent,send_fired":                 "submissions",
		"picker_accepted,request_sent,send_fired": "crossings gated at a checkpoint (picker, send)",
		"readback,response":                       "the types that can confirm (confirmation(f))",
		"gate_check,readback,response":            "the types whose class depends on more than the type (fact_class)",
	}
	key := func(xs []string) string { sort.Strings(xs); return strings.Join(xs, ",") }
	whole := key(slices.Clone(crossing))
	copies := 0
	for _, r := range parsedRules(t).Rules {
		if r.Head.Name.Equal(ast.Var("crossing_types")) || r.Head.Name.Equal(ast.Var("scope_fact_types")) {
			continue
		}
		ast.WalkTerms(r, func(term *ast.Term) bool {
			set, ok := term.Value.(ast.Set)
			if !ok {
				return false
			}
			var elems, crossings []string
			set.Foreach(func(x *ast.Term) {
				if s, ok := x.Value.(ast.String); ok {
					elems = append(elems, string(s))
					if slices.Contains(crossing, string(s)) {
						crossings = append(crossings, string(s))
					}
				}
			})
			switch k := key(elems); {
			case len(crossings) == 0:
			case k == whole:
				copies++
			case key(crossings) == whole:
				// Every crossing type, and others: a scan's type test for
				// a predicate that holds for crossings and more.
			case subsets[k] != "":
			default:
				t.Errorf("rules.rego:%d lists the types %s: some crossing types (%s), not all of crossing_types (%s), and no named subset",
					term.Location.Row, k, key(crossings), whole)
			}
			return false
		})
	}
	if copies < 3 { // crossing(f), unit_pairs, crossings_of
		t.Errorf("found %d copies of crossing_types in the rules, want the 3 the scans use", copies)
	}
	// crossing(f) holds for exactly these types.
	var types []string
	types = append(types, native...)
	for _, typ := range types {
		got := evalRules(t, fmt.Sprintf("data.effectlint.crossing({%q: %q})", "type", typ), nil) == true
		if want := slices.Contains(crossing, typ); got != want {
			t.Errorf("crossing({type: %q}) = %v, crossing_types says %v", typ, got, want)
		}
	}
	// class_of_type classes crossings by type, except those whose class
	// depends on their result (readback, response: through class).
	byType := evalRules(t, "data.effectlint.class_of_type", nil).(map[string]any)
	var classed []string
	for typ, c := range byType {
		if c == "crossing" {
			classed = append(classed, typ)
		}
	}
	if got := key(append(classed, "readback", "response")); got != whole {
		t.Errorf("class_of_type's crossings and readback, response: %s; crossing_types: %s", got, whole)
	}
	scopeTypes := stringSet(t, evalRules(t, "data.effectlint.scope_fact_types", nil))
	for _, c := range crossing {
		if !slices.Contains(scopeTypes, c) {
			t.Errorf("scope_fact_types leaves out the crossing type %q", c)
		}
	}
}
