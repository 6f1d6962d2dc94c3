package analyzer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/transcripts"
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
				iid := rapid.SampledFrom([]string{"q1", "q2", fmt.Sprintf("%s-i%d", id, seq)}).Draw(rt, "id")
				t.Intents = append(t.Intents, Intent{ID: iid, Task: id, Seq: seq})
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
			if (got == nil) != (want == nil) || got != nil && (got.Task != want.Task || got.Seq != want.Seq) {
				rt.Fatalf("%s: inherits %+v, want %+v", id, got, want)
			}
		}
		// What a task takes over of a named id is the walk along its
		// lineage, whatever the order tasks are asked in (inheritedNamed
		// keeps its answers).
		f.onCycle = onCycle
		ids := make([]string, 0, n)
		for id := range f.Tasks {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, k := range rapid.Permutation(append(append([]string{}, ids...), ids...)).Draw(rt, "asked") {
			named := rapid.SampledFrom([]string{"q1", "q2"}).Draw(rt, "named")
			task := f.Tasks[k]
			got, want := f.inheritedNamed(task, named), f.inheritedNamedWalk(task, named)
			if got != want {
				rt.Fatalf("%s: takes over %+v of %s, want %+v", k, got, named, want)
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

// addChain adds n tasks t0000, t0001, … each resuming the one before.
func addChain(f *Facts, n int) {
	for i := 0; i < n; i++ {
		t := &Task{ID: fmt.Sprintf("t%04d", i), Relation: "resumed"}
		if i > 0 {
			t.Resumes = fmt.Sprintf("t%04d", i-1)
		}
		f.Tasks[t.ID] = t
	}
}

// A chain of resumptions is one array: N tasks' lineages hold N ids, not
// N²/2.
func TestLinkLineages_AChainSharesOneArray(t *testing.T) {
	f := &Facts{Tasks: map[string]*Task{}}
	const n = 2000
	addChain(f, n)
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

// A broom, 2,000 tasks resuming the last task of a chain of 2,000, is one
// array too: the broom's tasks share the chain's lineage with its last
// task in front, not 2,000 copies of it.
func TestLinkLineages_ABroomSharesOneArray(t *testing.T) {
	f := &Facts{Tasks: map[string]*Task{}}
	const n = 2000
	addChain(f, n)
	for i := 0; i < n; i++ {
		b := &Task{ID: fmt.Sprintf("b%04d", i), Relation: "resumed", Resumes: fmt.Sprintf("t%04d", n-1)}
		f.Tasks[b.ID] = b
	}
	f.linkLineages()
	first := f.Tasks["b0000"].Lineage
	if len(first) != n || first[0] != fmt.Sprintf("t%04d", n-1) {
		t.Fatalf("b0000's lineage holds %d tasks from %s, want %d from the chain's last", len(first), first[0], n)
	}
	for id, task := range f.Tasks {
		if l := task.Lineage; len(l) > 0 && &l[len(l)-1] != &first[len(first)-1] {
			t.Fatalf("%s's lineage is an array of its own", id)
		}
	}
}

// A task first named by a line the reader could not use (a misspelt
// type) is added after the lineages were first linked: it has a lineage
// too, an empty one, which the input writes as [] (users' rules count
// it; null made count fail, a twelfth review).
func TestBuild_EveryTaskHasALineage(t *testing.T) {
	text := `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"task_started","relation":"root"}
{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1"},"content":{"sha256":"56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"}}
{"ts":"2026-11-30T07:00:03Z","task":"t8","type":"Send_Fired"}
{"ts":"not a time","task":"t9","type":"picker_opened"}
`
	b := New()
	res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(text)}, b.Add)
	if err != nil {
		t.Fatal(err)
	}
	f := b.Build(res)
	if len(f.Tasks) < 3 {
		t.Fatalf("tasks %v: the history names t1, t8 and t9", f.Tasks)
	}
	for id, task := range f.Tasks {
		if task.Lineage == nil {
			t.Errorf("task %s has a nil lineage", id)
		}
	}
}
