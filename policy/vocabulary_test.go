package policy

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/policy/builtin"
)

// The consumed states are one set: the rules' consumed_states and
// effect.Consumes, which the reports use, agree on every state.
func TestConsumedStates_TheRulesAndEffectAgree(t *testing.T) {
	rs, err := rego.New(rego.Module(builtin.RulesName, builtin.Rules), rego.Query("x := data.effectlint.consumed_states")).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("consumed_states: %v %v", rs, err)
	}
	var inRules []string
	for _, v := range rs[0].Bindings["x"].([]any) {
		inRules = append(inRules, v.(string))
	}
	sort.Strings(inRules)
	var inGo []string
	for _, s := range []string{effect.SentVerified, effect.SendStatusUnknown, effect.InFlight, effect.NotSent, effect.Open} {
		if effect.Consumes(s) {
			inGo = append(inGo, s)
		}
	}
	sort.Strings(inGo)
	if strings.Join(inRules, ",") != strings.Join(inGo, ",") {
		t.Errorf("rules.rego consumes %v, effect.Consumes %v", inRules, inGo)
	}
}
