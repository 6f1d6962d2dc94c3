package policy

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"

	"github.com/effectlint/effectlint/policy/builtin"
)

// rules.rego is written for speed in places (scans test a fact's type
// inline before calling a predicate, key scopes' gate checks and crossings
// are listed once, classes come from a table). testdata/rules-reference.rego
// is the last version written plainly, as SPEC reads; both must decide the
// same, to the byte. When a rule's meaning changes on purpose, change the
// reference with it.

func referenceEngine(t tb) *Engine { return engineFrom(t, "testdata/rules-reference.rego") }

func TestRules_DecideAsTheReference(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	e, ref := builtinEngine(t), referenceEngine(t)
	for name, f := range histories(t) {
		got, want := wholeAnalysis(t, e, f), wholeAnalysis(t, ref, f)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rules.rego and the reference judge differently", name)
		}
		if strings.HasPrefix(name, "corpus-") {
			continue
		}
		ids := make([]string, 0, len(f.Tasks))
		for id := range f.Tasks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if len(ids) > 12 {
			ids = append(ids[:6], "w001", "w042", "w113", "w150", "w199")
		}
		for _, id := range append(ids, "new-task") {
			for _, cp := range []string{"resume", "picker", "send"} {
				f.Query = f.Ask(id, cp, analyzer.IntentSpec{})
				if got, want := wholeGate(t, e, f), wholeGate(t, ref, f); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: check --task %s --checkpoint %s: %+v, reference %+v", name, id, cp, got, want)
				}
			}
		}
		f.Query = nil
	}
}

func TestProperty_RulesDecideAsTheReference(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	e, ref := builtinEngine(t), referenceEngine(t)
	scoped := 0
	defer func() {
		if scoped == 0 {
			t.Error("no random history had a key scope: the comparison proves nothing")
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(rt, "tasks")
		var lines []string
		var ids []string
		for i := 0; i < n; i++ {
			task := fmt.Sprintf("t%d", i+1)
			ids = append(ids, task)
			key := rapid.SampledFrom([]string{"C1", "C2"}).Draw(rt, "key")
			rel := rapid.SampledFrom([]string{`"relation":"sibling"`, `"relation":"resumed","resumes":"t1"`}).Draw(rt, "relation")
			lines = append(lines, fmt.Sprintf(`{"ts":"2026-11-30T07:00:0%dZ","task":"%s","type":"task_started",%s}`, i, task, rel))
			if rapid.IntRange(0, 3).Draw(rt, "declares") > 0 {
				lines = append(lines, fmt.Sprintf(`{"ts":"2026-11-30T07:00:0%dZ","task":"%s","type":"intent","destination":{"provider":"slack","id":"%s"},"content":{"sha256":"%s"}}`, i, task, key, digestAB))
			}
			for j, body := range rapid.SliceOfN(rapid.SampledFrom(append(bodies, evidenceBodies...)), 0, 12).Draw(rt, "events") {
				lines = append(lines, fmt.Sprintf(`{"ts":"2026-11-30T07:%02d:%02dZ","task":"%s",%s}`, 1+j/60, j%60, task, body))
			}
		}
		f := factsFrom(rt, strings.Join(lines, "\n")+"\n", "-")
		if len(f.Scopes) > 0 {
			scoped++
		}
		if got, want := wholeAnalysis(rt, e, f), wholeAnalysis(rt, ref, f); !reflect.DeepEqual(got, want) {
			rt.Fatalf("rules.rego %+v\nreference %+v", got, want)
		}
		for _, id := range append(ids, "new-task") {
			cp := rapid.SampledFrom([]string{"resume", "picker", "send"}).Draw(rt, "checkpoint")
			f.Query = f.Ask(id, cp, analyzer.IntentSpec{})
			if got, want := wholeGate(rt, e, f), wholeGate(rt, ref, f); !reflect.DeepEqual(got, want) {
				rt.Fatalf("check --task %s --checkpoint %s: %+v, reference %+v", id, cp, got, want)
			}
		}
	})
}

var evidenceBodies = []string{
	`"type":"gate_check","checkpoint":"send","decision":"allow"`, `"type":"gate_check","checkpoint":"picker","decision":"stop"`,
	`"type":"request_sent"`, `"type":"response","ok":false`, `"type":"readback","result":"confirmed"`,
	`"type":"readback","result":"mismatch"`, `"type":"outgoing_item_seen"`, `"type":"ui_changed"`, `"type":"timeout"`,
	`"type":"response_lost"`, `"type":"failure_shown"`, `"type":"status","label":"send_status_unknown"`,
	`"type":"interrupted","reason":"overnight"`, `"type":"task_ended","status":"failed"`, `"type":"picker_accepted","intent":"nope"`,
}

// fact_class is the table rules.rego uses for class: the same answer for
// every type of the vocabulary, with every field that matters.
func TestFactClass_IsClass(t *testing.T) {
	pq, err := rego.New(rego.Module(builtin.RulesName, builtin.Rules),
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
		]`)).PrepareForEval(context.Background())
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
