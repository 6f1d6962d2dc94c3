package policy

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/effectlint/effectlint/analyzer"
)

// The tasks' lineages become the same terms whether or not they share
// memory: tails of one chain, a branch off it, a cycle's rotations, an
// empty lineage and a missing one.
func TestLineages_SameTermsAsEachOnItsOwn(t *testing.T) {
	chain := []string{"t5", "t4", "t3", "t2", "t1", "t0"}
	branch := []string{"b1", "t3", "t2", "t1", "t0"}
	cycle := []string{"c1", "c2", "c3", "c1", "c2", "c3"}
	tasks := map[string]*analyzer.Task{
		"t6": {ID: "t6", Lineage: chain}, "t4": {ID: "t4", Lineage: chain[2:]}, "t1": {ID: "t1", Lineage: chain[5:]},
		"t0": {ID: "t0", Lineage: []string{}}, "b2": {ID: "b2", Lineage: branch}, "b1": {ID: "b1", Lineage: branch[1:]},
		"c3": {ID: "c3", Lineage: cycle[0:2:2]}, "c1": {ID: "c1", Lineage: cycle[1:3:3]}, "c2": {ID: "c2", Lineage: cycle[2:4:4]},
		"x": {ID: "x"}, "gone": nil,
	}
	x := newLineages(tasks)
	for id, task := range tasks {
		if task == nil {
			continue
		}
		if got, want := x.term(task.Lineage), strs(task.Lineage); !got.Equal(want) {
			t.Errorf("%s: lineage %v, want %v", id, got, want)
		}
	}
	if got := x.task(nil); !got.Equal(ast.NullTerm()) {
		t.Errorf("a missing task: %v", got)
	}
}

// A check of the last task of a chain of N resumptions allocates about
// twice as much for twice the chain. The lineages list N²/2 ids; walked
// and converted one by one they took a check of a chain 4,000 deep 13 s
// and 745 MB (issue 15). Bytes allocated, not time: they do not depend
// on the machine's load.
func TestCheck_AChainOfResumptionsAllocatesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("reads two generated chains; runs without -short")
	}
	e := builtinEngine(t)
	alloc := func(n int) uint64 {
		var text strings.Builder
		fmt.Fprintf(&text, `{"ts":"2026-11-30T07:00:00Z","task":"t0","type":"task_started","relation":"root"}`+"\n")
		fmt.Fprintf(&text, `{"ts":"2026-11-30T07:00:00Z","task":"t0","type":"intent","destination":{"provider":"slack","id":"C1"},"content":{"sha256":"%s"}}`+"\n", strings.Repeat("a", 64))
		for i := 0; i < n; i++ {
			if i > 0 {
				fmt.Fprintf(&text, `{"ts":"2026-11-30T08:%02d:%02d.%03dZ","task":"t%d","type":"task_started","relation":"resumed","resumes":"t%d"}`+"\n", i/60000, i/1000%60, i%1000, i, i-1)
			}
			fmt.Fprintf(&text, `{"ts":"2026-11-30T08:%02d:%02d.%03dZ","task":"t%d","type":"status","label":"not_sent"}`+"\n", i/60000, i/1000%60, i%1000, i)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f := factsFrom(t, text.String(), "-")
		for _, q := range f.AskAll(fmt.Sprintf("t%d", n-1), "resume", analyzer.IntentSpec{}) {
			newCheckDoc(f, e.scopeTypes, e.unkeyedTypes).input(q)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	a1, a2 := alloc(1000), alloc(2000)
	t.Logf("bytes allocated reading and building the check's input, chain 1,000 -> 2,000 deep: %d -> %d", a1, a2)
	if float64(a2) > 2.5*float64(a1) {
		t.Errorf("%d -> %d bytes for twice the chain (%.2f×)", a1, a2, float64(a2)/float64(a1))
	}
}
