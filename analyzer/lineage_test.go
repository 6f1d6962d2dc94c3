package analyzer

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// naiveLineage walks t's resumes links with a set of its own: the
// definition linkLineages must give, in a form too slow for deep chains.
func naiveLineage(f *Facts, t *Task) []string {
	out := []string{}
	seen := map[string]bool{t.ID: true}
	for cur := f.Tasks[t.Resumes]; cur != nil && !seen[cur.ID]; cur = f.Tasks[cur.Resumes] {
		seen[cur.ID] = true
		out = append(out, cur.ID)
	}
	return out
}

// naiveInherited is inheritedIntent by its definition: along the links,
// each task judged at its own start, a cycle cut where it comes back.
func naiveInherited(f *Facts, t *Task, seen map[string]bool) *Intent {
	cur := f.Tasks[t.Resumes]
	if cur == nil || seen[cur.ID] {
		return nil
	}
	seen[cur.ID] = true
	for i := len(cur.Intents) - 1; i >= 0; i-- {
		if in := cur.Intents[i]; !t.History || in.Seq < t.startSeq {
			return &in
		}
	}
	if cur.Relation == "resumed" && (!cur.History || !t.History || cur.startSeq < t.startSeq) {
		return naiveInherited(f, cur, seen)
	}
	return nil
}

// Lineages, cycles and inherited intents over random resumes links
// (chains, trees, cycles with tails, tasks resuming themselves or tasks
// that do not exist) are those of the definitions, and the lineages that
// share memory are never changed by another's.
func TestLinkLineages_AsTheDefinitionsOnAnyLinks(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "tasks")
		f := &Facts{Tasks: map[string]*Task{}}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("t%d", i)
			t := &Task{ID: id, History: rapid.IntRange(0, 5).Draw(rt, "history") > 0,
				Relation: rapid.SampledFrom([]string{"resumed", "resumed", "resumed", "root", "delegated"}).Draw(rt, "relation"),
				startSeq: rapid.IntRange(0, 40).Draw(rt, "start")}
			if r := rapid.IntRange(-1, n).Draw(rt, "resumes"); r >= 0 {
				t.Resumes = fmt.Sprintf("t%d", r) // t<n> does not exist
			}
			seq := 0
			for k := rapid.IntRange(0, 3).Draw(rt, "intents"); k > 0; k-- {
				seq += rapid.IntRange(1, 15).Draw(rt, "gap")
				t.Intents = append(t.Intents, Intent{ID: fmt.Sprintf("%s-i%d", id, seq), Seq: seq})
			}
			f.Tasks[id] = t
		}
		onCycle := f.linkLineages()
		inherited := f.inheritedIntents(onCycle)
		for id, task := range f.Tasks {
			if want := naiveLineage(f, task); !slices.Equal(task.Lineage, want) {
				rt.Fatalf("%s: lineage %v, want %v", id, task.Lineage, want)
			}
			if task.Lineage == nil {
				rt.Fatalf("%s: a nil lineage (the input writes null for it)", id)
			}
			comesBack := false // following the links returns to it
			for cur, k := f.Tasks[task.Resumes], 0; cur != nil && k <= n; cur, k = f.Tasks[cur.Resumes], k+1 {
				if cur == task {
					comesBack = true
					break
				}
			}
			if onCycle[task] != comesBack {
				rt.Fatalf("%s: on a cycle %v, want %v (lineage %v)", id, onCycle[task], comesBack, task.Lineage)
			}
			want := naiveInherited(f, task, map[string]bool{id: true})
			got := inherited[task]
			if (got == nil) != (want == nil) || got != nil && got.ID != want.ID {
				rt.Fatalf("%s: inherits %+v, want %+v", id, got, want)
			}
		}
		// Appending to one lineage leaves every other as it was.
		for _, task := range f.Tasks {
			_ = append(task.Lineage, "x")
		}
		for id, task := range f.Tasks {
			if want := naiveLineage(f, task); !slices.Equal(task.Lineage, want) {
				rt.Fatalf("%s: lineage %v after appending to the others, want %v", id, task.Lineage, want)
			}
		}
	})
}

// A chain of resumptions is one array: N tasks' lineages hold N ids, not
// N²/2.
func TestLinkLineages_AChainSharesOneArray(t *testing.T) {
	f := &Facts{Tasks: map[string]*Task{}}
	const n = 2000
	for i := 0; i < n; i++ {
		t := &Task{ID: fmt.Sprintf("t%04d", i), Relation: "resumed"}
		if i > 0 {
			t.Resumes = fmt.Sprintf("t%04d", i-1)
		}
		f.Tasks[t.ID] = t
	}
	f.linkLineages()
	deepest := f.Tasks[fmt.Sprintf("t%04d", n-1)].Lineage
	if len(deepest) != n-1 {
		t.Fatalf("the deepest lineage holds %d tasks, want %d", len(deepest), n-1)
	}
	for id, task := range f.Tasks {
		if l := task.Lineage; len(l) > 0 && &l[len(l)-1] != &deepest[len(deepest)-1] {
			t.Fatalf("%s's lineage is an array of its own", id)
		}
	}
}
