package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/effectlint/effectlint/analyzer"
)

// evalCounter counts the expressions an evaluation runs: a measure of its
// work that, unlike time, does not depend on the machine or its load.
type evalCounter struct{ n int }

func (c *evalCounter) Enabled() bool               { return true }
func (c *evalCounter) Config() topdown.TraceConfig { return topdown.TraceConfig{PlugLocalVars: false} }
func (c *evalCounter) TraceEvent(e topdown.Event) {
	c.n += map[bool]int{true: 1}[e.Op == topdown.EvalOp]
}
func (c *evalCounter) count(t *testing.T, pq *rego.PreparedEvalQuery, in rego.EvalOption) int {
	t.Helper()
	c.n = 0
	if _, err := pq.Eval(context.Background(), in, rego.EvalQueryTracer(c)); err != nil {
		t.Fatal(err)
	}
	return c.n
}

// One task's many approaches and retreats (an eighth review: a check took
// 17 s over 2,000 picker_opened/picker_dismissed pairs, analyze 19 s with
// an interruption after them, a delegated worker's unkeyed ones 16 s):
// twice the pairs cost at most 2.2 times the evaluation, for the gate and
// for the whole-document analysis, keyed and unkeyed.
func TestWork_LinearInOneTasksApproachesAndRetreats(t *testing.T) {
	e := builtinEngine(t)
	sha := strings.Repeat("0", 64)
	write := func(t *testing.T, n int, keyed, interrupted bool) *analyzer.Facts {
		t0 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
		at := func(i int) string { return t0.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano) }
		var lines []string
		add := func(m map[string]any) {
			b, _ := json.Marshal(m)
			lines = append(lines, string(b))
		}
		add(map[string]any{"ts": at(0), "task": "p1", "type": "task_started", "relation": "root"})
		add(map[string]any{"ts": at(1), "task": "p1", "type": "intent", "destination": map[string]any{"provider": "slack", "id": "C1"}, "content": map[string]any{"sha256": sha}})
		if keyed {
			add(map[string]any{"ts": at(2), "task": "w1", "type": "task_started", "relation": "root"})
			add(map[string]any{"ts": at(3), "task": "w1", "type": "intent", "destination": map[string]any{"provider": "slack", "id": "C1"}, "content": map[string]any{"sha256": sha}})
		} else {
			add(map[string]any{"ts": at(2), "task": "w1", "type": "task_started", "relation": "delegated", "parent": "p1"})
		}
		i := 4
		for k := 0; k < n; k++ {
			add(map[string]any{"ts": at(i), "task": "w1", "type": "picker_opened"})
			add(map[string]any{"ts": at(i + 1), "task": "w1", "type": "picker_dismissed"})
			i += 2
		}
		if interrupted {
			add(map[string]any{"ts": at(i), "task": "w1", "type": "interrupted", "reason": "crash"})
		}
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return factsOf(t, path)
	}
	var c evalCounter
	for _, sh := range []struct {
		name               string
		keyed, interrupted bool
	}{{"keyed", true, false}, {"keyed, interrupted", true, true}, {"unkeyed", false, false}, {"unkeyed, interrupted", false, true}} {
		t.Run(sh.name, func(t *testing.T) {
			work := func(n int) (check, whole int) {
				f := write(t, n, sh.keyed, sh.interrupted)
				f.Query = f.Ask("p1", "send", analyzer.IntentSpec{})
				check = c.count(t, e.check, rego.EvalParsedInput(checkInput(f, e.scopeTypes, e.unkeyedTypes)))
				f.Query = nil
				in, err := Input(f)
				if err != nil {
					t.Fatal(err)
				}
				whole = c.count(t, e.analyze, rego.EvalParsedInput(in))
				return check, whole
			}
			c1, w1 := work(150)
			c2, w2 := work(300)
			t.Logf("expressions evaluated, 150 -> 300 pairs: check %d -> %d, analysis %d -> %d", c1, c2, w1, w2)
			if float64(c2) > 2.2*float64(c1) {
				t.Errorf("check: %d -> %d expressions for twice the pairs (%.2f×)", c1, c2, float64(c2)/float64(c1))
			}
			if float64(w2) > 2.2*float64(w1) {
				t.Errorf("analysis: %d -> %d expressions for twice the pairs (%.2f×)", w1, w2, float64(w2)/float64(w1))
			}
		})
	}
}
