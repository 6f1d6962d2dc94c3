package transcripts

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// A subagent's .meta.json and a log of hook payloads are no transcripts:
// each is listed with a notice, read as no history, and, being known, no
// unreadable input even where unrecognized inputs are problems (a gate).
func TestClaudeCode_FilesBesideSessionsAreNoHistories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "s1", "subagents", "agent-a42.meta.json"),
		`{"agentType":"general-purpose","description":"Upload","toolUseId":"toolu_agent","spawnDepth":1}`)
	pre := `{"session_id":"s1","transcript_path":"/h/.claude/projects/p/s1.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl -F file=@report.pdf https://h.example/u"},"tool_use_id":"toolu_1"}`
	other := `{"session_id":"s1","transcript_path":"/h/.claude/projects/p/s1.jsonl","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`
	writeFile(t, filepath.Join(dir, "hooks", "hook-pre.jsonl"), pre+"\n"+pre+"\n")
	writeFile(t, filepath.Join(dir, "hooks", "hook-other.jsonl"), other+"\n"+pre+"\n")
	for _, strict := range []bool{false, true} {
		res, evs := readPaths(t, Options{UnrecognizedIsProblem: strict}, dir)
		if len(evs) != 0 {
			t.Errorf("strict %v: events %s", strict, summary(evs))
		}
		if len(res.Inputs) != 3 {
			t.Fatalf("inputs %+v", res.Inputs)
		}
		for _, in := range res.Inputs {
			want := "hook payloads"
			if strings.HasSuffix(in.Path, ".meta.json") {
				want = "subagent metadata (the subagent started by call toolu_agent)"
			}
			if in.Format != FormatUnknown || len(in.Problems) != 0 || len(in.Notices) != 1 ||
				!strings.Contains(in.Notices[0], want) || !strings.Contains(in.Notices[0], "not a transcript") {
				t.Errorf("strict %v: %s: format %s, problems %v, notices %q; want one notice saying %q", strict, in.Path, in.Format, in.Problems, in.Notices, want)
			}
		}
	}
	// A line that is no hook payload in such a file may be a history's.
	writeFile(t, filepath.Join(dir, "hooks", "hook-post.jsonl"), pre+"\n"+`{"ts":"2026-12-01T08:00:00Z","task":"t1","type":"send_fired"}`+"\n")
	res, _ := readPaths(t, Options{}, filepath.Join(dir, "hooks", "hook-post.jsonl"))
	if in := res.Inputs[0]; len(in.Problems) != 1 || in.Problems[0].Line != 2 {
		t.Errorf("problems %+v, want one at line 2", in.Problems)
	}
	// A .meta.json of another shape is no subagent's metadata.
	writeFile(t, filepath.Join(dir, "x", "agent-b.meta.json"), `{"agentType":"general-purpose"}`)
	res, _ = readPaths(t, Options{UnrecognizedIsProblem: true}, filepath.Join(dir, "x"))
	if in := res.Inputs[0]; len(in.Problems) != 1 {
		t.Errorf("meta without toolUseId: problems %+v, want one (unrecognized, strict)", in.Problems)
	}
}

// The corpus: hooks/hook-*.jsonl and the subagents' .meta.json of
// cli-2.1.197, read strictly, are notices, never problems or events.
func TestClaudeCode_CorpusFilesBesideSessions(t *testing.T) {
	root := sharedtest.Path(t, "corpus/claude-code/cli-2.1.197")
	res, _ := readPaths(t, Options{UnrecognizedIsProblem: true}, root)
	n := 0
	for _, in := range res.Inputs {
		aside := strings.Contains(in.Path, "/hooks/hook-") || strings.HasSuffix(in.Path, ".meta.json")
		if len(in.Problems) != 0 {
			t.Errorf("%s: problems %v", in.Path, in.Problems)
		}
		if aside {
			n++
			if in.Format != FormatUnknown || in.Events != 0 || len(in.Notices) != 1 || !strings.Contains(in.Notices[0], "not a transcript") {
				t.Errorf("%s: format %s, events %d, notices %q", in.Path, in.Format, in.Events, in.Notices)
			}
		}
	}
	if n != 5 {
		t.Errorf("%d hook logs and meta files, want 5 (3 + 2)", n)
	}
}

// A subagent's .meta.json links it to the parent's Agent/Task call: the
// call spawned that child (at the call's line), whatever its result says.
func TestClaudeCode_SubagentMetaLinksTheChildToItsCall(t *testing.T) {
	dir := t.TempDir()
	s := &cc{session: "s1", cwd: "/w"}
	s.call("toolu_agent", "Agent", map[string]any{"description": "Upload", "prompt": "upload report.pdf"})
	s.result("toolu_agent", false, []any{map[string]any{"type": "text", "text": "done"}}, nil) // names no agent
	s.write(t, filepath.Join(dir, "s1.jsonl"))
	writeFile(t, filepath.Join(dir, "s1", "subagents", "agent-a42.meta.json"), `{"agentType":"general-purpose","toolUseId":"toolu_agent","spawnDepth":1}`)
	sub := &cc{session: "s1", cwd: "/w"}
	sub.add(map[string]any{"type": "user", "isSidechain": true, "agentId": "a42", "message": map[string]any{"role": "user", "content": "upload report.pdf"}})
	sub.write(t, filepath.Join(dir, "s1", "subagents", "agent-a42.jsonl"))
	res, evs := readPaths(t, Options{}, dir)
	for _, in := range res.Inputs {
		if len(in.Problems) != 0 {
			t.Errorf("%s: problems %v", in.Path, in.Problems)
		}
	}
	spawned := ofType(evs, "task_spawned")
	if len(spawned) != 1 || spawned[0].Task != "s1" || spawned[0].Str("child") != "s1/agent-a42" || spawned[0].Line != 1 {
		t.Errorf("spawned %+v, want s1 spawning s1/agent-a42 at the call's line 1", spawned)
	}
	for _, e := range ofType(evs, "task_started") {
		if e.Task == "s1/agent-a42" && (e.Str("relation") != "delegated" || e.Str("parent") != "s1") {
			t.Errorf("child started %+v, want delegated by s1", e.Fields)
		}
	}
}

// The corpus: the subagent of 05 and of 06 is spawned by the parent's
// Agent call that its .meta.json names, and is a delegated child.
func TestClaudeCode_CorpusSubagentsAreLinkedToTheirCalls(t *testing.T) {
	root := sharedtest.Path(t, "corpus/claude-code/cli-2.1.197/sessions")
	for dir, c := range map[string]struct{ session, agent string }{
		"05_subagent_allow":     {"aadc8f76-bbbd-4246-baf5-930cae8ba8a0", "a82891d0535b652e0"},
		"06_subagent_deny_json": {"2ab5cffa-2aa1-4f13-9d20-0c93fc1cbbdb", "abd6b32a8d87cfe8a"},
	} {
		res, evs := readPaths(t, Options{}, filepath.Join(root, dir))
		for _, in := range res.Inputs {
			if len(in.Problems) != 0 {
				t.Errorf("%s: problems %v", in.Path, in.Problems)
			}
		}
		child := c.session + "/agent-" + c.agent
		spawned := ofType(evs, "task_spawned")
		if len(spawned) != 1 || spawned[0].Task != c.session || spawned[0].Str("child") != child || spawned[0].Line != 7 {
			t.Errorf("%s: spawned %+v, want %s spawning %s at its Agent call (line 7)", dir, spawned, c.session, child)
		}
		started := false
		for _, e := range ofType(evs, "task_started") {
			if e.Task == child {
				started = e.Str("relation") == "delegated" && e.Str("parent") == c.session
			}
		}
		if !started {
			t.Errorf("%s: %s not started as a delegated child of %s", dir, child, c.session)
		}
	}
}
