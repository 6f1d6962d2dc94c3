package transcripts

import (
	"path/filepath"
	"strings"
	"testing"
)

// Copies are counted once (resumed and forked sessions copy lines
// verbatim: same uuid, same content); a line or call that shares a uuid or
// a tool_use id with an earlier one but says something else is another
// line, another call, never dropped.
func TestClaudeCode_SameIDsDifferentContentAreOtherCalls(t *testing.T) {
	curl := "curl -sS -F file=@report.pdf https://slack.example/api/files.upload"
	t.Run("two sessions share uuids and a tool_use id", func(t *testing.T) {
		dir := t.TempDir()
		for _, s := range []struct{ session, cmd string }{{"aaaa", "ls -la"}, {"bbbb", curl}} {
			c := &cc{session: s.session, cwd: "/w"}
			c.add(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Upload report.pdf"}})
			c.add(map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": s.cmd}}}}})
			c.add(map[string]any{"type": "user", "uuid": "u2", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": `{"ok":true}`}}}})
			c.write(t, filepath.Join(dir, s.session+".jsonl"))
		}
		_, evs := readPaths(t, Options{}, dir)
		got := summary(evs)
		for _, want := range []string{"intent intent=call:toolu_1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf",
			"request_sent intent=call:toolu_1", "response intent=call:toolu_1 ok=true"} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %q in\n%s", want, got)
			}
		}
		for _, e := range ofType(evs, "request_sent") {
			if e.Task != "bbbb" {
				t.Errorf("request_sent of task %s, want bbbb", e.Task)
			}
		}
	})
	t.Run("one session reuses a tool_use id for another command", func(t *testing.T) {
		s := &cc{session: "s1", cwd: "/w"}
		s.call("toolu_1", "Bash", map[string]any{"command": "ls -la"})
		s.result("toolu_1", false, "ok", nil)
		s.call("toolu_1", "Bash", map[string]any{"command": curl})
		s.result("toolu_1", false, `{"ok":true}`, nil)
		_, evs := readSession(t, s)
		want := "intent intent=call:toolu_1~2 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
			"request_sent intent=call:toolu_1~2\nresponse intent=call:toolu_1~2 ok=true"
		if got := summary(evs); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("a retry under the same id after a timeout", func(t *testing.T) {
		s := &cc{session: "s1", cwd: "/w"}
		s.call("toolu_1", "Bash", map[string]any{"command": curl})
		s.result("toolu_1", true, "curl: (28) Operation timed out", nil)
		s.call("toolu_1", "Bash", map[string]any{"command": "curl -sS --retry 2 -F file=@report.pdf https://slack.example/api/files.upload"})
		s.result("toolu_1", false, `{"ok":true}`, nil)
		_, evs := readSession(t, s)
		want := "intent intent=call:toolu_1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
			"request_sent intent=call:toolu_1\nresponse intent=call:toolu_1 ok=false\n" +
			"intent intent=call:toolu_1~2 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
			"request_sent intent=call:toolu_1~2\nresponse intent=call:toolu_1~2 ok=true"
		if got := summary(evs); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("the same call again under a new uuid is a second call", func(t *testing.T) {
		s := &cc{session: "s1", cwd: "/w"}
		s.call("toolu_1", "Bash", map[string]any{"command": curl})
		s.result("toolu_1", true, "curl: (28) Operation timed out", nil)
		s.call("toolu_1", "Bash", map[string]any{"command": curl})
		_, evs := readSession(t, s)
		if n := len(ofType(evs, "request_sent")); n != 2 {
			t.Errorf("%d request_sent, want 2:\n%s", n, summary(evs))
		}
	})
	t.Run("verbatim copies in a fork count once", func(t *testing.T) {
		dir := t.TempDir()
		for _, session := range []string{"fork", "orig"} {
			c := &cc{session: session, cwd: "/w"}
			c.add(map[string]any{"type": "assistant", "uuid": "a1", "timestamp": "2026-12-01T08:00:01.000Z", "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": curl}}}}})
			c.add(map[string]any{"type": "user", "uuid": "u2", "timestamp": "2026-12-01T08:00:02.000Z", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": `{"ok":true}`}}}})
			c.write(t, filepath.Join(dir, session+".jsonl"))
		}
		_, evs := readPaths(t, Options{}, dir)
		want := "intent intent=call:toolu_1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
			"request_sent intent=call:toolu_1\nresponse intent=call:toolu_1 ok=true"
		if got := summary(evs); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
}

// A Task/Agent call with no result in the history (a session cut while
// its subagent ran) started a subagent that may have delivered: unless
// something names it, the session's history is incomplete.
func TestClaudeCode_AgentCallWithoutResult(t *testing.T) {
	agent := func() *cc {
		s := &cc{session: "s1", cwd: "/w"}
		s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Upload report.pdf via a subagent"}})
		s.call("toolu_agent", "Agent", map[string]any{"description": "Upload", "prompt": "SUBAGENT_DO: upload report.pdf to C024BE91L"})
		return s
	}
	t.Run("nothing names the subagent", func(t *testing.T) {
		in, _ := readSession(t, agent())
		if len(in.Problems) != 1 || in.Problems[0].Line != 2 || in.Problems[0].Task != "s1" ||
			!strings.Contains(in.Problems[0].Message, "toolu_agent") {
			t.Errorf("problems %+v, want one of task s1 at line 2 naming the call", in.Problems)
		}
	})
	t.Run("its meta file names it", func(t *testing.T) {
		dir := t.TempDir()
		agent().write(t, filepath.Join(dir, "s1.jsonl"))
		writeFile(t, filepath.Join(dir, "s1", "subagents", "agent-a42.meta.json"), `{"agentType":"general-purpose","toolUseId":"toolu_agent"}`)
		res, evs := readPaths(t, Options{}, filepath.Join(dir, "s1.jsonl"))
		if len(res.Inputs[0].Problems) != 0 {
			t.Errorf("problems %+v", res.Inputs[0].Problems)
		}
		if got := summary(ofType(evs, "task_spawned")); got != "task_spawned child=s1/agent-a42" {
			t.Errorf("spawned %q, want the subagent the meta file names (a referenced task)", got)
		}
	})
	t.Run("its progress names it", func(t *testing.T) {
		s := agent()
		s.add(map[string]any{"type": "progress", "parentToolUseID": "toolu_agent", "data": map[string]any{"type": "agent_progress", "agentId": "a42",
			"message": map[string]any{"type": "user", "uuid": "sub-u1", "timestamp": "2026-12-01T08:00:30.000Z",
				"message": map[string]any{"role": "user", "content": "SUBAGENT_DO: upload report.pdf to C024BE91L"}}}})
		in, evs := readSession(t, s)
		if len(in.Problems) != 0 {
			t.Errorf("problems %+v", in.Problems)
		}
		if got := summary(ofType(evs, "task_spawned")); got != "task_spawned child=s1/agent-a42" {
			t.Errorf("spawned %q", got)
		}
	})
	t.Run("with its result", func(t *testing.T) {
		s := agent()
		s.result("toolu_agent", false, "done", map[string]any{"toolUseResult": map[string]any{"agentId": "a42"}})
		if in, _ := readSession(t, s); len(in.Problems) != 0 {
			t.Errorf("problems %+v", in.Problems)
		}
	})
}

// SPEC §3 as for native types: a line type or a content item type that
// differs from a known one only in letter case or separators is a problem
// of its line, not a notice.
func TestClaudeCode_TypeCaseVariantsAreProblems(t *testing.T) {
	curl := map[string]any{"command": "curl -F file=@report.pdf https://h.example/u"}
	for _, c := range []struct{ name, lineType, itemType string }{
		{"line", "Assistant", "tool_use"}, {"item", "assistant", "Tool_use"}, {"item with separators", "assistant", "tool-use"},
		{"result item", "assistant", "tool_use"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &cc{session: "s1", cwd: "/w"}
			s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Upload report.pdf"}})
			s.add(map[string]any{"type": c.lineType, "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": c.itemType, "id": "b1", "name": "Bash", "input": curl}}}})
			resType := "tool_result"
			if c.name == "result item" {
				resType = "ToolResult"
			}
			s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": resType, "tool_use_id": "b1", "content": "ok"}}}})
			in, _ := readSession(t, s)
			if len(in.Problems) != 1 || !strings.Contains(in.Problems[0].Message, "only in letter case or separators") {
				t.Errorf("problems %+v, want one", in.Problems)
			}
		})
	}
}
