package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The files Claude Code CLI 2.1.197 wrote (corpus claude-code/cli-2.1.197),
// read together, with and without --path-map to where the files they name
// are: no problem anywhere, the hook logs and .meta.json are notices, and
// the only crossings are of the calls that ran (02 and 14c: curl, which
// then failed to connect; 10 and 12: the MCP upload). Denied calls (03,
// 04, 04b, 06, 09, 11, 14a, 15) are none, and the fork (09) copies no
// crossing of its parent (01, 07, 08).
func TestCorpus_ClaudeCode2_1_197ReadsCleanly(t *testing.T) {
	dir := needCorpus(t, "claude-code/cli-2.1.197")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{ // the sessions of the calls that ran
		"9e39dc61-edc2-4817-a3c6-f25bd6a3de58": true, // 02
		"918b5015-000d-4d37-92b4-1fccc79e5d04": true, // 14c
		"7eec9f50-ca05-4f07-b6d3-f57574992299": true, // 10
		"4702e158-2eea-4d67-b58d-8b13bd173fd0": true, // 12
	}
	for _, args := range [][]string{{dir}, {"--path-map", "/home/user/work=" + abs + "/work", dir}} {
		rep, _, stderr := analyzeJSON(t, "", args...)
		if rep.Summary.Problems != 0 || rep.Summary.Inputs != 29 {
			t.Errorf("%v: %d inputs, %d problems (%s)", args, rep.Summary.Inputs, rep.Summary.Problems, stderr)
		}
		for _, in := range rep.Inputs {
			aside := strings.Contains(in.Path, "/hooks/hook-") || strings.HasSuffix(in.Path, ".meta.json")
			if aside != (in.Format == "unknown") || (aside && (in.Events != 0 || len(in.Notices) != 1)) {
				t.Errorf("%s: format %s, %d events, notices %q", in.Path, in.Format, in.Events, in.Notices)
			}
		}
		crossed := map[string]bool{}
		for _, k := range rep.Keys {
			for _, e := range k.Evidence {
				if e.Class == "crossing" || e.Class == "confirmation" {
					crossed[e.Task] = true
				}
			}
		}
		for _, f := range rep.Findings {
			if f.Task != nil && (f.Rule == "UNKEYED_CROSSING" || f.Rule == "DUPLICATE_DELIVERY" || f.Rule == "DUPLICATE_RISK_RESUME") {
				crossed[*f.Task] = true
			}
		}
		var got, want []string
		for task := range crossed {
			got = append(got, task)
		}
		for task := range ran {
			want = append(want, task)
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%v: tasks that crossed %v, want %v (the calls that ran)", args, got, want)
		}
	}
	// The session of 01, resumed (07), continued (08) and forked (09):
	// nothing twice.
	var paths []string
	for _, c := range []string{"01_echo_allow", "07_resume", "08_continue", "09_resume_fork"} {
		paths = append(paths, filepath.Join(dir, "sessions", c))
	}
	rep, code, stderr := analyzeJSON(t, "", paths...)
	if code != ExitOK || len(rep.Findings) != 0 || rep.Summary.Problems != 0 {
		t.Errorf("01+07+08+09: exit %d, findings %+v (%s)", code, rep.Findings, stderr)
	}
}

// A fork copies its parent's crossing: analyzed with the parent, the
// crossing is the parent's alone (no DUPLICATE_DELIVERY from copied
// lines), whichever file comes first, and the fork is a resumed task.
func TestClaudeCode_AForkDoesNotDeliverItsParentsUploadAgain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), []byte("%PDF-1.4 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const parent, fork = "p2-parent", "f1-fork" // the fork's file is read first
	curl := "curl -sS -F file=@report.pdf https://slack.example/api/files.upload"
	line := func(session, uuid, ts string, m map[string]any) string {
		m["sessionId"], m["uuid"], m["timestamp"], m["cwd"] = session, uuid, ts, dir
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	history := func(session string) string {
		return line(session, "u1", "2026-12-01T08:00:01Z", map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "send the report"}}) +
			line(session, "a1", "2026-12-01T08:00:02Z", map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": curl}}}}}) +
			line(session, "u2", "2026-12-01T08:00:03Z", map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": `{"ok":true}`},
				"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": `{"ok":true}`}}}})
	}
	forkText := `{"type":"mode","mode":"normal","sessionId":"` + fork + `"}` + "\n" +
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T09:00:00Z","sessionId":"` + fork + `","content":"fork"}` + "\n" +
		history(fork) +
		line(fork, "u3", "2026-12-01T09:00:01Z", map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "fork"}})
	for name, text := range map[string]string{parent: history(parent), fork: forkText} {
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, code, stderr := analyzeJSON(t, "", dir)
	if code != ExitOK || len(rep.Findings) != 0 || len(rep.Keys) != 1 || rep.Keys[0].State != "sent_verified" {
		t.Fatalf("exit %d, keys %+v, findings %+v (%s)", code, rep.Keys, rep.Findings, stderr)
	}
	for _, e := range rep.Keys[0].Evidence {
		if e.Task != parent {
			t.Errorf("evidence %+v of %s, want the parent's", e, e.Task)
		}
	}
	for _, tk := range rep.Keys[0].Tasks {
		if tk.ID == fork && (tk.Relation != "resumed" || tk.Resumes != parent) {
			t.Errorf("fork %+v, want resumed of %s", tk, parent)
		}
	}
}
