package analyzer

import (
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// The index intentFor uses while facts are attributed answers what its
// scan of the task's intents answers, for every fact and named id, and is
// not used for intents out of order of Seq.
func TestIntentFor_IndexAsTheScan(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(rt, "n")
		task := &Task{ID: "t"}
		seq := 0
		for range n {
			gap := rapid.IntRange(0, 30).Draw(rt, "gap") // 0, rarely: an equal Seq
			if gap > 3 {
				gap = 1 + gap%3
			}
			seq += gap
			task.Intents = append(task.Intents, Intent{ID: "q" + strconv.Itoa(rapid.IntRange(0, 4).Draw(rt, "id")), Task: "t", Seq: seq})
		}
		if rapid.IntRange(0, 2).Draw(rt, "shuffle") == 0 && n > 1 {
			i, j := rapid.IntRange(0, n-1).Draw(rt, "i"), rapid.IntRange(0, n-1).Draw(rt, "j")
			task.Intents[i], task.Intents[j] = task.Intents[j], task.Intents[i]
		}
		f := &Facts{Tasks: map[string]*Task{"t": task}}
		for q := -1; q <= seq+2; q++ {
			for _, named := range []string{"", "q0", "q1", "q2", "q3", "q4", "q5"} {
				checkIntentFor(rt, f, task, named, q)
			}
		}
	})
}

func checkIntentFor(rt *rapid.T, f *Facts, task *Task, named string, q int) {
	f.intentIdx = nil
	wantIn, wantWhy := f.intentFor(task, named, q)
	f.intentIdx = map[*Task]*intentIndex{}
	gotIn, gotWhy := f.intentFor(task, named, q)
	if gotIn != wantIn || gotWhy != wantWhy {
		rt.Fatalf("intents %v, seq %d, named %q: indexed %v %q, scanned %v %q", task.Intents, q, named, gotIn, gotWhy, wantIn, wantWhy)
	}
}

// tiedGroup, lastBefore and namedAt answer with the index what their
// scans answer, intents in order of time or not.
func TestIntentIndex_TiesAndInstantsAsTheScan(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(rt, "n")
		task := &Task{ID: "t"}
		sec := int64(0)
		for i := range n {
			if rapid.IntRange(0, 2).Draw(rt, "later") > 0 {
				sec++
			}
			task.Intents = append(task.Intents, Intent{ID: "q" + strconv.Itoa(rapid.IntRange(0, 3).Draw(rt, "id")), Task: "t", Seq: i, at: stamp{sec: sec}})
		}
		if rapid.IntRange(0, 2).Draw(rt, "shuffle") == 0 && n > 1 {
			i, j := rapid.IntRange(0, n-1).Draw(rt, "i"), rapid.IntRange(0, n-1).Draw(rt, "j")
			task.Intents[i].at, task.Intents[j].at = task.Intents[j].at, task.Intents[i].at
		}
		for i := 1; i < n; i++ {
			task.Intents[i].tied = task.Intents[i].at == task.Intents[i-1].at
			task.Intents[i-1].tied = task.Intents[i-1].tied || task.Intents[i].tied
		}
		f := &Facts{Tasks: map[string]*Task{"t": task}}
		both := func(q func() any) (indexed, scanned any) {
			f.intentIdx = map[*Task]*intentIndex{}
			indexed = q()
			f.intentIdx = nil
			return indexed, q()
		}
		for i := range task.Intents {
			in := &task.Intents[i]
			if a, b := both(func() any { return fmt.Sprint(f.tiedGroup(in)) }); a != b {
				rt.Fatalf("tiedGroup of %d in %v: %v, scanned %v", i, task.Intents, a, b)
			}
		}
		for s := int64(-1); s <= sec+1; s++ {
			at := stamp{sec: s}
			if a, b := both(func() any { return f.lastBefore(task, at) }); a != b {
				rt.Fatalf("lastBefore %d in %v: %v, scanned %v", s, task.Intents, a, b)
			}
			for _, named := range []string{"q0", "q1", "q2", "q3", "q4"} {
				if a, b := both(func() any { return fmt.Sprint(f.namedAt(task, named, at)) }); a != b {
					rt.Fatalf("namedAt %s %d in %v: %v, scanned %v", named, s, task.Intents, a, b)
				}
			}
		}
	})
}
