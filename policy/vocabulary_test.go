package policy

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/effect"
)

// The consumed states are one set: the rules' consumed_states and
// effect.Consumes, which the reports use, agree on every state.
func TestConsumedStates_TheRulesAndEffectAgree(t *testing.T) {
	rs, err := rego.New(builtinRego(t, rego.Query("x := data.effectlint.consumed_states"))...).Eval(context.Background())
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

// "May be the same" is decided in Go (effect.MayBeSame: which scope an
// authorization opens) and in Rego (may_be_same: which scopes the gate
// weighs): one relation, held equal on pairs of every kind.
func TestMayBeSame_GoAndRegoAgree(t *testing.T) {
	ds := []effect.Destination{
		{Provider: "slack", ID: "C1"}, {Provider: "Slack", ID: "c1"}, {Provider: "slack", ID: "C2"},
		{Provider: "mail", ID: "C1"}, {Provider: "slack", ID: "C1", Title: "#Fin"}, {Title: "#fin"},
		{Title: "  #FIN "}, {Title: "#other"}, {Provider: "slack", ID: "C2", Title: "#fin"}, {Provider: " slack ", ID: "C1 "},
		// A provider or id holding the separator: the folded identities join them alike.
		{Provider: "a/b", ID: "c"}, {Provider: "a", ID: "b/c"},
		// URLs: the providers http and https, and the scheme, fold away.
		{Provider: "http", ID: "https://h.example/hook"}, {Provider: "HTTPS", ID: "https://h.example/hook"},
		{Provider: "https", ID: "http://h.example/hook"}, {Provider: " http", ID: "HTTPS://H.example/hook "},
		{Provider: "http", ID: "https://h.example/other"}, {Provider: "api", ID: "https://h.example/hook"},
		{Provider: "httpx", ID: "http://h.example/hook"}, {Provider: "https", ID: "h.example/hook"},
		{Provider: "http", ID: "h.example/hook"}, {Provider: "http", ID: "ftp://h.example/hook"},
		// Simple case folds: the long s, the final sigma, the Kelvin sign.
		{Title: "#ſales"}, {Title: "#Sales"}, {Title: "ΟΔΟΣ"}, {Title: "οδος"},
		{Provider: "slack", ID: "\u212a1"}, {Provider: "slack", ID: "k1"}, {Provider: "httpſ", ID: "httpſ://h.example/hook"},
	}
	q, err := rego.New(builtinRego(t, rego.Query("x := data.effectlint.may_be_same(input.a, input.b)"))...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asMap := func(d effect.Destination) map[string]any {
		m := map[string]any{}
		for k, v := range map[string]string{"provider": d.Provider, "id": d.ID, "title": d.Title} {
			if v != "" {
				m[k] = v
			}
		}
		return m
	}
	for _, a := range ds {
		for _, b := range ds {
			rs, err := q.Eval(context.Background(), rego.EvalInput(map[string]any{"a": asMap(a), "b": asMap(b)}))
			if err != nil {
				t.Fatal(err)
			}
			inRego := len(rs) == 1 && rs[0].Bindings["x"] == true
			if got := effect.MayBeSame(a, b); got != inRego {
				t.Errorf("%+v ~ %+v: Go %v, Rego %v", a, b, got, inRego)
			}
		}
	}
}
