package analyzer

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/policy/builtin"
)

// The analyzer's crossing types are rules.rego's crossing_types (issue
// 12: defined once; the ranks keep a copy for ordering an instant).
func TestCrossingType_AsTheRules(t *testing.T) {
	m := regexp.MustCompile(`(?m)^crossing_types := \{([^}]*)\}`).FindStringSubmatch(builtin.Rules)
	if m == nil {
		t.Fatal("rules.rego has no crossing_types")
	}
	var want []string
	for _, q := range strings.Split(m[1], ",") {
		want = append(want, strings.Trim(strings.TrimSpace(q), `"`))
	}
	var got []string
	for typ := range factRanks {
		if crossingType(typ) {
			got = append(got, typ)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("crossing types %v, rules.rego's crossing_types %v", got, want)
	}
}
