package cmd

import "testing"

// A subagent that the parent's Agent result names but whose file is not
// among the inputs makes the history incomplete (fail closed); with its
// file, the session is complete.
func TestCorpus_ClaudeCodeSubagentNamedByTheParentNeedsItsHistory(t *testing.T) {
	dir := needCorpus(t, "claude-code/cli-2.1.197/sessions/05_subagent_allow")
	const session = "aadc8f76-bbbd-4246-baf5-930cae8ba8a0"
	const child = session + "/agent-a82891d0535b652e0"
	rules := builtinRules(t)
	out, stderr, code := runWith(t, "", rules, "facts", dir)
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	f := decodeFacts(t, out)
	for _, id := range []string{session, child} {
		if tk := f.Tasks[id]; tk == nil || !tk.History || !tk.Complete {
			t.Errorf("with the subagent's file: task %s %+v, want complete", id, tk)
		}
	}
	parent := dir + "/projects/-home-user-work-subagent/" + session + ".jsonl"
	out, stderr, code = runWith(t, "", rules, "facts", parent)
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	f = decodeFacts(t, out)
	if tk := f.Tasks[child]; tk == nil || tk.History || tk.Complete {
		t.Errorf("without the subagent's file: %+v, want a referenced task with no history", tk)
	}
}
