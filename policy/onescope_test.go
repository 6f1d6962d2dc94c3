package policy

import (
	"path/filepath"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
)

// factInTwoScopes names a fact (by its seq) that is in two key scopes, or
// returns "". The rules name an approach by its seq among the scopes a
// check weighs (q_resolved in rules.rego): that is sound only because the
// analyzer puts each fact in the scope of the one intent it belongs to.
func factInTwoScopes(f *analyzer.Facts) string {
	in := map[int]string{}
	for _, s := range f.Scopes {
		for _, x := range s.Facts {
			if other, ok := in[x.Seq]; ok {
				return x.Task + " " + x.Type + " in " + other + " and " + s.ID
			}
			in[x.Seq] = s.ID
		}
	}
	return ""
}

func TestFacts_NoFactIsInTwoScopes(t *testing.T) {
	planted := &analyzer.Facts{Scopes: []*analyzer.Scope{{ID: "a", Facts: []analyzer.Fact{{Seq: 1}}}, {ID: "b", Facts: []analyzer.Fact{{Seq: 1}}}}}
	if factInTwoScopes(planted) == "" {
		t.Fatal("a fact planted in two scopes is not seen")
	}
	for name, f := range histories(t) {
		if two := factInTwoScopes(f); two != "" {
			t.Errorf("%s: %s", name, two)
		}
	}
	dirs, _ := filepath.Glob("../testdata/adversarial/*")
	for _, d := range dirs {
		if two := factInTwoScopes(factsOf(t, d)); two != "" {
			t.Errorf("%s: %s", filepath.Base(d), two)
		}
	}
}

// FactInTwoScopes lets the property tests (package policy_test) hold every
// random history to the same invariant.
var FactInTwoScopes = factInTwoScopes
