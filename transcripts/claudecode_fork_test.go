package transcripts

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// forkPair writes, in dir, a parent session that uploaded report.pdf with
// curl (allowed, confirmed) and a fork of it as 2.1.197's --resume
// --fork-session writes one: a mode line and the fork's own prompt first,
// then the parent's lines copied under the fork's id (same uuids, same
// timestamps), then the fork's own turn. The fork's id sorts before the
// parent's, so its file is read first. withForkedFrom writes the copies
// as /branch does instead: new uuids, forkedFrom naming the originals.
func forkPair(t *testing.T, dir string, withForkedFrom bool) (parent, fork string) {
	t.Helper()
	parent, fork = "p2-parent", "f1-fork"
	up := "curl -sS -F file=@report.pdf -F channels=C1 https://slack.example/api/files.upload"
	lines := []map[string]any{
		{"type": "user", "uuid": "u1", "timestamp": "2026-12-01T08:00:01.000Z", "message": map[string]any{"role": "user", "content": "send the report"}},
		{"type": "assistant", "uuid": "a1", "timestamp": "2026-12-01T08:00:02.000Z", "message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": up}}}}},
		{"type": "user", "uuid": "u2", "timestamp": "2026-12-01T08:00:03.000Z", "toolUseResult": map[string]any{"stdout": `{"ok":true}`},
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": `{"ok":true}`}}}},
	}
	write := func(path string, recs []map[string]any) {
		var b strings.Builder
		for _, r := range recs {
			j, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		writeFile(t, path, b.String())
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{"cwd": "/w"}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	var p []map[string]any
	for _, l := range lines {
		p = append(p, with(l, "sessionId", parent))
	}
	write(filepath.Join(dir, parent+".jsonl"), p)
	f := []map[string]any{
		{"type": "mode", "mode": "normal", "sessionId": fork},
		{"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-12-01T09:00:00.000Z", "sessionId": fork, "content": "fork and check"},
	}
	for _, l := range lines {
		c := with(l, "sessionId", fork)
		if withForkedFrom {
			c["forkedFrom"] = map[string]any{"sessionId": parent, "messageUuid": l["uuid"]}
			c["uuid"] = "new-" + l["uuid"].(string)
		}
		f = append(f, c)
	}
	f = append(f, with(map[string]any{"type": "user", "uuid": "u3", "timestamp": "2026-12-01T09:00:01.000Z",
		"message": map[string]any{"role": "user", "content": "fork and check"}}, "sessionId", fork))
	write(filepath.Join(dir, fork+".jsonl"), f)
	return parent, fork
}

// A fork resumes its parent, and the parent's lines it copies count once,
// as the parent's, whichever file is read first.
func TestClaudeCode_AForkResumesItsParentAndItsCopiesAreTheParents(t *testing.T) {
	for _, ff := range []bool{false, true} {
		dir := t.TempDir()
		parent, fork := forkPair(t, dir, ff)
		res, evs := readPaths(t, Options{}, dir)
		for _, in := range res.Inputs {
			if len(in.Problems) != 0 {
				t.Errorf("forkedFrom %v: %s: problems %v", ff, in.Path, in.Problems)
			}
		}
		for _, e := range evs {
			switch {
			case e.Type == "task_started" && e.Task == fork:
				if e.Str("relation") != "resumed" || e.Str("resumes") != parent || e.Line != 6 {
					t.Errorf("forkedFrom %v: the fork started %+v at line %d, want resumed of %s at its own first line 6", ff, e.Fields, e.Line, parent)
				}
			case e.Task == fork:
				t.Errorf("forkedFrom %v: the fork has %s at line %d: a copied line read as its own", ff, e.Type, e.Line)
			}
		}
		want := "intent intent=call:toolu_1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
			"request_sent intent=call:toolu_1\nresponse intent=call:toolu_1 ok=true"
		if got := summary(evs); got != want {
			t.Errorf("forkedFrom %v\n got  %s\n want %s", ff, got, want)
		}
		for _, e := range ofType(evs, "request_sent") {
			if e.Task != parent {
				t.Errorf("forkedFrom %v: the crossing is %s's, want the parent's", ff, e.Task)
			}
		}
		// The fork alone: what it copied is the only record of it, read
		// as the fork's (nothing is lost), and it resumes no known task.
		_, evs = readPaths(t, Options{}, filepath.Join(dir, fork+".jsonl"))
		if n := len(ofType(evs, "request_sent")); n != 1 {
			t.Errorf("forkedFrom %v: the fork alone: %d crossings, want its copy of the parent's", ff, n)
		}
	}
}

// The corpus: 09's fork (384f…) of the session of 01 (c6e5…) resumes it,
// from its first own line (21), read with the parent's file of 09 alone
// or with every snapshot of the parent (01, 07, 08); 07 and 08 append to
// the parent's own file and stay one root task.
func TestClaudeCode_CorpusForkResumesItsParent(t *testing.T) {
	root := sharedtest.Path(t, "corpus/claude-code/cli-2.1.197/sessions")
	const parent, fork = "c6e5ca35-8ea6-4c4c-be12-b9ea98a9c013", "384f1826-e9da-4dfc-a576-95be542bf1d2"
	for _, paths := range [][]string{{"09_resume_fork"}, {"01_echo_allow", "07_resume", "08_continue", "09_resume_fork"}, {"."}} {
		var full []string
		for _, p := range paths {
			full = append(full, filepath.Join(root, p))
		}
		_, evs := readPaths(t, Options{}, full...)
		starts := map[string]Event{}
		for _, e := range evs {
			if e.Type == "task_started" {
				if _, dup := starts[e.Task]; dup {
					t.Errorf("%v: task %s started twice", paths, e.Task)
				}
				starts[e.Task] = e
			}
			if e.Task == fork && e.Line < 21 {
				t.Errorf("%v: the fork has %s at line %d, a line copied from its parent", paths, e.Type, e.Line)
			}
		}
		if f := starts[fork]; f.Str("relation") != "resumed" || f.Str("resumes") != parent || f.Line != 21 {
			t.Errorf("%v: fork started %+v at line %d", paths, f.Fields, f.Line)
		}
		if p := starts[parent]; p.Str("relation") != "root" {
			t.Errorf("%v: parent started %+v", paths, p.Fields)
		}
	}
	// The fork's file alone: its own task, the copied lines its record.
	_, evs := readPaths(t, Options{}, filepath.Join(root, "09_resume_fork", "projects", "-home-user-work-echo", fork+".jsonl"))
	if s := ofType(evs, "task_started"); len(s) != 1 || s[0].Str("relation") != "root" {
		t.Errorf("the fork alone: %s", summary(s))
	}
}

// The pre-read kept session ids as views of the line reader's buffer,
// which the next line overwrites: in one file of many sessions, each
// holding a copy of the line before it (a chain of forks), most sessions
// were lost and others got ids cut from other lines ("s00091 with a
// quote in it). Every session is a task, and each resumes the one before.
func TestClaudeOwners_SessionIDsOutliveTheLine(t *testing.T) {
	const n = 300
	var b strings.Builder
	line := func(session, uuid string, k, ts int) {
		j, err := json.Marshal(map[string]any{"parentUuid": nil, "isSidechain": false, "type": "user",
			"sessionId": session, "uuid": uuid, "timestamp": fmt.Sprintf("2026-11-29T%02d:%02d:%02d.000Z", ts/3600, ts/60%60, ts%60),
			"cwd": "/w", "message": map[string]any{"role": "user", "content": fmt.Sprintf("hello %d", k)}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	for k := range n {
		if k > 0 {
			line(fmt.Sprintf("s%06d", k), fmt.Sprintf("u%06d", k-1), k-1, k)
		}
		line(fmt.Sprintf("s%06d", k), fmt.Sprintf("u%06d", k), k, k)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), b.String())
	started := map[string]Event{}
	if _, err := Read([]string{dir}, Options{}, func(e Event) {
		if e.Type == "task_started" {
			started[e.Task] = e
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(started) != n {
		t.Fatalf("%d tasks, want %d", len(started), n)
	}
	for k := 1; k < n; k++ {
		e, ok := started[fmt.Sprintf("s%06d", k)]
		if want := fmt.Sprintf("s%06d", k-1); !ok || e.Fields["resumes"] != want {
			t.Fatalf("s%06d: started %v, resumes %v, want %s", k, ok, e.Fields["resumes"], want)
		}
	}
}

// reachesCycle is the walk it replaced, from every session: a session
// whose chain of resumes passes a session twice.
func TestReachesCycle_AsTheWalkFromEverySession(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		resumes := map[string]string{}
		for i := range n {
			if rapid.IntRange(0, 4).Draw(rt, "has") > 0 {
				resumes[strconv.Itoa(i)] = strconv.Itoa(rapid.IntRange(0, n+1).Draw(rt, "to"))
			}
		}
		want := map[string]bool{}
		for s := range resumes {
			seen := map[string]bool{s: true}
			for p := resumes[s]; p != ""; p = resumes[p] {
				if seen[p] {
					want[s] = true
					break
				}
				seen[p] = true
			}
		}
		got := map[string]bool{}
		for _, s := range reachesCycle(resumes) {
			if got[s] {
				rt.Fatalf("%s listed twice", s)
			}
			got[s] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("resumes %v: got %v, want %v", resumes, got, want)
		}
	})
}
