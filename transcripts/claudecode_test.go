package transcripts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// cc builds Claude Code session lines for tests.
type cc struct {
	session, cwd string
	lines        []string
	n            int
}

func (c *cc) ts() string {
	c.n++
	return fmt.Sprintf("2026-12-01T08:00:%02d.000Z", c.n)
}

func (c *cc) add(m map[string]any) {
	m["sessionId"] = c.session
	if _, ok := m["timestamp"]; !ok {
		m["timestamp"] = c.ts()
	}
	if _, ok := m["cwd"]; !ok && c.cwd != "" {
		m["cwd"] = c.cwd
	}
	if _, ok := m["uuid"]; !ok {
		m["uuid"] = fmt.Sprintf("%s-u%d", c.session, len(c.lines)+1)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	c.lines = append(c.lines, string(b))
}

// call records an assistant tool_use.
func (c *cc) call(id, name string, input map[string]any) {
	c.add(map[string]any{"type": "assistant", "isSidechain": false, "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
}

// result records a tool_result; extra fields go on the line (toolUseResult).
func (c *cc) result(id string, isError bool, content any, extra map[string]any) {
	m := map[string]any{"type": "user", "isSidechain": false, "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError, "content": content}}}}
	for k, v := range extra {
		m[k] = v
	}
	c.add(m)
}

func (c *cc) text() string { return strings.Join(c.lines, "\n") + "\n" }

func (c *cc) write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(c.text()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPaths(t *testing.T, opt Options, paths ...string) (Result, []Event) {
	t.Helper()
	var evs []Event
	res, err := Read(paths, opt, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	return res, evs
}

func ofType(evs []Event, typ string) []Event {
	var out []Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func contentPath(e Event) string {
	c, _ := e.Fields["content"].(map[string]any)
	p, _ := c["path"].(string)
	return p
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SPEC §2: in formats that record a working directory, a content path
// resolves against it, not against the transcript's folder.
func TestClaudeCode_FilePathsResolveAgainstTheLinesCwd(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFile(t, filepath.Join(work, "report.pdf"), "the report that was sent\n")
	writeFile(t, filepath.Join(work, "only-here.pdf"), "only under cwd\n")
	proj := filepath.Join(dir, "projects", "p")
	// A different file of the same name next to the transcript.
	writeFile(t, filepath.Join(proj, "report.pdf"), "another file\n")
	s := &cc{session: "s1", cwd: work}
	s.call("t1", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "report.pdf"})
	s.call("t2", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "only-here.pdf"})
	s.call("t3", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "/abs/else.pdf"})
	nocwd := &cc{session: "s2"}
	nocwd.call("t4", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "report.pdf"})
	s.write(t, filepath.Join(proj, "s1.jsonl"))
	nocwd.write(t, filepath.Join(proj, "s2.jsonl"))
	_, evs := readPaths(t, Options{}, proj)
	var got []string
	for _, e := range ofType(evs, "intent") {
		got = append(got, contentPath(e))
	}
	want := []string{filepath.Join(work, "report.pdf"), filepath.Join(work, "only-here.pdf"), "/abs/else.pdf",
		"report.pdf"} // no cwd recorded: relative, resolved against the transcript's folder
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("content paths\n got  %q\n want %q", got, want)
	}
}

// summary shows the evidence events of a read as "task type k=v ...".
func summary(evs []Event) string {
	var out []string
	for _, e := range evs {
		if e.Type == "task_started" {
			continue
		}
		s := e.Type
		for _, k := range []string{"intent", "checkpoint", "decision", "ok", "child"} {
			if v, ok := e.Fields[k]; ok {
				s += fmt.Sprintf(" %s=%v", k, v)
			}
		}
		if d, ok := e.Fields["destination"].(map[string]any); ok {
			s += fmt.Sprintf(" dest=%v/%v", d["provider"], d["id"])
		}
		if c, ok := e.Fields["content"].(map[string]any); ok {
			for _, k := range []string{"path", "sha256"} {
				if v, ok := c[k]; ok {
					s += fmt.Sprintf(" %s=%v", k, v)
				}
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

func bashSession(cwd string, cmds ...[3]string) *cc {
	s := &cc{session: "s1", cwd: cwd}
	for i, c := range cmds {
		id := fmt.Sprintf("b%d", i+1)
		s.call(id, "Bash", map[string]any{"command": c[0]})
		switch c[1] {
		case "ok":
			s.result(id, false, c[2], nil)
		case "error":
			s.result(id, true, c[2], nil)
		}
	}
	return s
}

func readSession(t *testing.T, s *cc) (Input, []Event) {
	t.Helper()
	dir := t.TempDir()
	s.write(t, filepath.Join(dir, s.session+".jsonl"))
	res, evs := readPaths(t, Options{}, filepath.Join(dir, s.session+".jsonl"))
	return res.Inputs[0], evs
}

// Item: a command that names a file it sends is keyed by the file's
// bytes, and a retry with its flags reordered has the same key.
func TestClaudeCode_CurlUploadsAreKeyedByTheFilesTheyName(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{`curl -sS -F file=@report.pdf -F channels=C1 https://slack.example/api/files.upload`,
			"intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf"},
		{`curl -F channels=C1 https://SLACK.example:443/api/files.upload -sS -F "file=@report.pdf"`,
			"intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf"},
		{`curl -F 'file=@"x y.pdf";type=application/pdf' https://h.example/u`,
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x y.pdf"},
		{`curl --form 'f=<notes.txt' -H 'Origin: https://other.example' https://h.example/u`,
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/notes.txt"},
		{`curl --data-binary @/tmp/body.json https://h.example/u`,
			"intent intent=call:b1 dest=http/https://h.example/u path=/tmp/body.json"},
		{`curl -d @body.json https://h.example/u`, "intent intent=call:b1 dest=http/https://h.example/u path=/w/body.json"},
		{`curl --data @body.json -e https://ref.example/ https://h.example/u`, "intent intent=call:b1 dest=http/https://h.example/u path=/w/body.json"},
		{`curl -T out.zip https://h.example/u`, "intent intent=call:b1 dest=http/https://h.example/u path=/w/out.zip"},
		{`curl --upload-file out.zip https://h.example/u`, "intent intent=call:b1 dest=http/https://h.example/u path=/w/out.zip"},
		{`gh pr comment 12 --repo acme/api --body-file notes.md`, "intent intent=call:b1 dest=github/acme/api path=/w/notes.md"},
		{`gh release upload v1.2 dist/a.zip --clobber -R acme/api`, "intent intent=call:b1 dest=github/acme/api path=/w/dist/a.zip"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, "", ""}))
			got := summary(ofType(evs, "intent"))
			if got != c.want {
				t.Errorf("\n got  %s\n want %s", got, c.want)
			}
			if n := len(ofType(evs, "request_sent")); n != 1 {
				t.Errorf("%d request_sent, want 1", n)
			}
		})
	}
	// Two files: one intent and one crossing for each.
	_, evs := readSession(t, bashSession("/w", [3]string{`curl -F a=@one.pdf -F b=@two.pdf https://h.example/u`, "ok", "{}"}))
	want := "intent intent=call:b1 dest=http/https://h.example/u path=/w/one.pdf\nrequest_sent intent=call:b1\n" +
		"intent intent=call:b1#2 dest=http/https://h.example/u path=/w/two.pdf\nrequest_sent intent=call:b1#2\n" +
		"response intent=call:b1 ok=true\nresponse intent=call:b1#2 ok=true"
	if got := summary(evs); got != want {
		t.Errorf("two files\n got  %s\n want %s", got, want)
	}
	// Inline data: the command's text, as before.
	_, evs = readSession(t, bashSession("/w", [3]string{`curl -X POST https://h.example/u -d '{"a":1}'`, "", ""}))
	if got := summary(ofType(evs, "intent")); !strings.Contains(got, "sha256=") {
		t.Errorf("inline body: %s", got)
	}
}

// Item: one shell line that does several things is judged command by
// command; a delivery in it is a crossing whatever else it does, and the
// line's result is read for each command the fail-closed way.
func TestClaudeCode_ShellLinesAreJudgedCommandByCommand(t *testing.T) {
	up := `curl -F f=@x.pdf https://h.example/u`
	check := `effectlint check --task s1 --checkpoint send --destination http/h --file x.pdf .`
	cases := []struct {
		name, cmd, result, output, want string
	}{
		// An allowed check declares the key it names (--destination,
		// --file) and approaches it: only that scope's crossing resolves it.
		{"check then upload, exit 0: allow, then a confirmed upload", check + " && " + up, "ok", "ALLOW task s1 at send\n",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1\n" +
				"intent intent=check:b1 dest=http/h path=/w/x.pdf\ngate_check intent=check:b1 checkpoint=send decision=allow\nresponse intent=call:b1 ok=true"},
		// The upload may have run, so the check may have allowed: allow, its
		// approach declared (a seventh review: nothing said which, and a
		// stop lost the approach).
		{"check then upload, failed, no report: an allow, and an unconfirmed upload", check + " && " + up, "error", "Exit code 7",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1\n" +
				"intent intent=check:b1 dest=http/h path=/w/x.pdf\ngate_check intent=check:b1 checkpoint=send decision=allow\nresponse intent=call:b1 ok=false"},
		{"check allowed, upload failed: the report says allow", check + " && " + up, "error", "ALLOW task s1 at send\ncurl: (7) failed",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1\n" +
				"intent intent=check:b1 dest=http/h path=/w/x.pdf\ngate_check intent=check:b1 checkpoint=send decision=allow\nresponse intent=call:b1 ok=false"},
		{"upload ; echo: success says nothing about the upload", up + "; echo done", "ok", "done",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1"},
		{"upload in a subshell", "(cd /w && " + up + ")", "", "",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1"},
		{"upload in bash -c", "bash -c '" + up + "'", "", "",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1"},
		{"upload in $( )", "echo $(" + up + ")", "", "",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1"},
		{"upload piped", up + " | jq .ok", "", "",
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/x.pdf\nrequest_sent intent=call:b1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, c.result, c.output}))
			if got := summary(evs); got != c.want {
				t.Errorf("%s\n got  %s\n want %s", c.cmd, got, c.want)
			}
		})
	}
}

// Item: the decision of a recorded `effectlint check` is its own: never
// allow from an exit status that is another command's.
func TestClaudeCode_GateDecisionIsReadFromTheChecksOwnResult(t *testing.T) {
	check := `effectlint check --task s1 --checkpoint send .`
	stopText := "STOP task s1 at send\n  KEY_CONSUMED ..."
	cases := []struct{ name, cmd, result, output, want string }{
		{"alone, exit 0", check, "ok", "", "allow"},
		{"alone, failed", check, "error", "Exit code 1\n" + stopText, "stop"},
		{"|| true, report says stop", check + " || true", "ok", stopText, "stop"},
		// Nothing says which: allow, an approach that keeps every other
		// task from the key (a seventh review: read as a stop, it was lost).
		{"|| true, no report", check + " || true", "ok", "", "allow"},
		{"| tee, report says stop", check + " | tee log", "ok", stopText, "stop"},
		{"| tee, report says allow", check + " | tee log", "ok", "ALLOW task s1 at send\n", "allow"},
		{"; echo done, no report", check + "; echo done", "ok", "done", "allow"},
		{"; echo done, report allow", check + "; echo done", "ok", "ALLOW task s1 at send\ndone", "allow"},
		{"JSON stop, exit 0 after || true", "effectlint check --format json --task s1 . || true", "ok", `{"decision": "stop", "task": "s1"}`, "stop"},
		{"JSON allow", "effectlint check --format json --task s1 . ; echo", "ok", `{"decision": "allow", "task": "s1"}`, "allow"},
		{"colored report", check + " || true", "ok", "\x1b[32mALLOW\x1b[0m task s1 at send", "allow"},
		// An allow beside a stop: which is the check's cannot be told (a
		// loop runs it twice, another command may print either), and the
		// allow it may have had is an approach.
		{"allow printed by another command, the check's stop too", "echo 'ALLOW task s1'; " + check + " || true", "ok", "ALLOW task s1\n" + stopText, "allow"},
		{"two checks in one call, an allow and a stop", check + " --destination slack/C1 --sha256 " + strings.Repeat("ab", 32) + "; " + check + " --destination slack/C2 --sha256 " + strings.Repeat("ab", 32), "ok", "ALLOW task s1 at send\n" + stopText, "allow allow"},
		{"output redirected, nothing of its own", check + " > /dev/null; echo done", "ok", "done", "allow"},
		{"another task's allow", check + " || true", "ok", "ALLOW task other at send", "allow"},
		{"&& chain, exit 0", "cd /w && " + check, "ok", "", "allow"},
		{"in a subshell", "(" + check + ")", "ok", "", "allow"},
		{"failed, last of an && chain", "cd /w && " + check, "error", "Exit code 1", "stop"},
		{"failed, an upload after it", check + " && curl -F f=@x.pdf https://h.example/u", "error", "Exit code 7", "allow"},
		{"path to the binary", "./bin/effectlint check --task s1 --checkpoint send . || true", "ok", stopText, "stop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, c.result, c.output}))
			gates := ofType(evs, "gate_check")
			var got []string
			for _, g := range gates {
				got = append(got, g.Str("decision"))
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("%s: gate checks %s, want one with decision %s", c.cmd, summary(gates), c.want)
			}
		})
	}
}

// SPEC §10: a call a PreToolUse hook denied never ran, so it is no
// crossing; effectlint's own denial is its gate_check with decision stop.
func TestClaudeCode_CallsDeniedByAHookAreNoCrossings(t *testing.T) {
	up := `curl -sS -F file=@report.pdf https://slack.example/api/files.upload`
	crossing := "intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
		"request_sent intent=call:b1\nresponse intent=call:b1 ok=false"
	stop := "intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
		"gate_check intent=call:b1 checkpoint=send decision=stop"
	cases := []struct{ name, output, want string }{
		{"exit 2", "PreToolUse:Bash hook error: [/home/u/hook.py pre Bash]: BLOCKED by policy hook (exit 2)\n", ""},
		{"effectlint's JSON deny", "effectlint: KEY_CONSUMED the scope is in_flight (at s0.jsonl:7)", stop},
		{"effectlint by exit 2", "PreToolUse:Bash hook error: [effectlint hook claude-code]: effectlint: KEY_CONSUMED", stop},
		// Bash's own failures have the shell error's form: any other
		// error text is a call that never ran (another hook's JSON deny,
		// a permission rule, the headless permission prompt).
		{"another hook's JSON deny", "BLOCKED by policy hook (JSON): delivery not permitted", ""},
		{"the permission prompt, headless", "This command requires approval", ""},
		{"a permission rule", "Permission to use Bash with command curl has been denied.", ""},
		// A command that ran, or may have: a crossing, unconfirmed.
		{"a failed upload", "Exit code 7\ncurl: (7) Failed to connect", crossing},
		{"interrupted while it ran", "[Request interrupted by user for tool use]", crossing},
		{"rejected or aborted", "The user doesn't want to proceed with this tool use. The tool use was rejected", crossing},
		{"the tool threw", "<tool_use_error>Error calling tool (Bash): spawn failed</tool_use_error>", crossing},
		{"timed out", "Command timed out after 2m 0.0s", crossing},
		{"a system error", "ENOSPC: no space left on device, write", crossing},
		{"any error report", "Error: something broke", crossing},
		{"no text", "", crossing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// As the CLI writes an error result: toolUseResult "Error: …".
			s := &cc{session: "s1", cwd: "/w"}
			s.call("b1", "Bash", map[string]any{"command": up})
			s.result("b1", true, c.output, map[string]any{"toolUseResult": "Error: " + c.output})
			_, evs := readSession(t, s)
			if got := summary(evs); got != c.want {
				t.Errorf("\n got  %s\n want %s", got, c.want)
			}
		})
	}
	// The same text without the CLI's record of it (a converter's line):
	// a failed call (fail closed).
	_, evs := readSession(t, bashSession("/w", [3]string{up, "error", "BLOCKED by policy hook (JSON): delivery not permitted"}))
	if got := summary(evs); got != crossing {
		t.Errorf("a JSON deny's text without toolUseResult\n got  %s\n want %s", got, crossing)
	}
	// A call with no result in the input may have run.
	_, evs = readSession(t, bashSession("/w", [3]string{up, "", ""}))
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Errorf("call without a result: %d crossings, want 1", n)
	}
	// Another tool's error text is its server's: only the exit-2 form
	// and effectlint's own denial say it never ran (fail closed).
	mcp := func(output string) string {
		s := &cc{session: "s1", cwd: "/w"}
		s.call("m1", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "report.pdf"})
		s.result("m1", true, output, nil)
		_, evs := readSession(t, s)
		return summary(evs)
	}
	mcpCrossing := "intent intent=call:m1 dest=uploader/C1 path=/w/report.pdf\nrequest_sent intent=call:m1\nresponse intent=call:m1 ok=false"
	for output, want := range map[string]string{
		"BLOCKED by policy hook (JSON): delivery not permitted":                         mcpCrossing,
		"PreToolUse:mcp__uploader__upload_file hook error: [hook.py]: BLOCKED (exit 2)": "",
		"effectlint: KEY_CONSUMED": "intent intent=call:m1 dest=uploader/C1 path=/w/report.pdf\n" +
			"gate_check intent=call:m1 checkpoint=send decision=stop",
	} {
		if got := mcp(output); got != want {
			t.Errorf("MCP call, result %q\n got  %s\n want %s", output, got, want)
		}
	}
}

// The corpus holds calls denied in both forms (exit 2 and JSON), in a
// session and in a subagent, next to the same calls allowed: a denied
// call is no crossing, an allowed one is, whether it then failed (curl
// could not connect) or not, and a hook that exited 1 blocked nothing.
func TestClaudeCode_CorpusDeniedCallsAreNoCrossings(t *testing.T) {
	root := sharedtest.Path(t, "corpus/claude-code/cli-2.1.197/sessions")
	count := func(dir string) (crossings, stops int) {
		_, evs := readPaths(t, Options{}, filepath.Join(root, dir))
		for _, e := range evs {
			switch e.Type {
			case "request_sent", "send_fired", "picker_accepted", "response":
				crossings++
			case "gate_check":
				stops++
			}
		}
		return crossings, stops
	}
	for _, dir := range []string{"03_curl_deny_exit2", "04_curl_deny_json", "04b_deny_json_include_hook_events",
		"06_subagent_deny_json", "09_resume_fork", "11_mcp_deny_exit2", "14a_noallow_default", "15_deny_exit2_include_hook_events"} {
		if n, stops := count(dir); n != 0 || stops != 0 {
			t.Errorf("%s: %d crossing event(s), %d gate check(s) of a call that never ran (no hook of effectlint's)", dir, n, stops)
		}
	}
	// Allowed deliveries (02 and 14c: curl, which then failed to
	// connect; 10 and 12: the MCP upload).
	for _, dir := range []string{"02_curl_allow", "10_mcp_allow", "12_mcp_wait_for_servers", "14c_noallow_hook_allow_json_curl"} {
		if n, _ := count(dir); n == 0 {
			t.Errorf("%s: no crossing", dir)
		}
	}
}

// A profile's rule that is no delivery does not silence the built-in
// delivery rules unless it says overrides_builtin (and then a notice says
// what it kept from being read).
func TestProfile_RulesThatAreNoDeliveryDoNotShadowBuiltinDeliveries(t *testing.T) {
	up := `curl -F file=@report.pdf https://h.example/u`
	for _, c := range []struct {
		name, profile string
		crossings     int
		notice        bool
	}{
		{"ignore on the whole call", `rules: [{name: quiet curl, tool: '^bash$', arg: command, matches: 'curl', evidence: ignore}]`, 1, false},
		{"ignore, shell", `rules: [{name: quiet curl, tool: '^bash$', arg: command, shell: true, matches: 'curl', evidence: ignore}]`, 1, false},
		{"navigate", `rules: [{name: nav, tool: '^bash$', arg: command, matches: 'curl', evidence: navigate}]`, 1, false},
		{"gate_check", `rules: [{name: my gate, tool: '^bash$', arg: command, matches: 'curl', evidence: gate_check, result: gate}]`, 1, false},
		{"overrides_builtin", `rules: [{name: quiet curl, tool: '^bash$', arg: command, matches: 'curl', evidence: ignore, overrides_builtin: true}]`, 0, true},
		{"a profile delivery rule decides", `rules: [{name: my upload, tool: '^bash$', arg: command, matches: 'curl', evidence: send_fired, destination: {provider: h, id_default: u}, content: {whole_arg: true}}]`, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseProfile("p", []byte(c.profile))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			s := bashSession("/w", [3]string{up, "", ""})
			s.write(t, filepath.Join(dir, "s1.jsonl"))
			res, evs := readPaths(t, Options{Profile: p}, dir)
			n := len(ofType(evs, "request_sent")) + len(ofType(evs, "send_fired"))
			if n != c.crossings {
				t.Errorf("%d crossings, want %d: %s", n, c.crossings, summary(evs))
			}
			noticed := strings.Contains(strings.Join(res.Inputs[0].Notices, "\n"), "overrides_builtin")
			if noticed != c.notice {
				t.Errorf("notices %q, want an overrides_builtin notice: %v", res.Inputs[0].Notices, c.notice)
			}
		})
	}
	if _, err := ParseProfile("bad", []byte(`rules: [{tool: x, evidence: request_sent, overrides_builtin: true}]`)); err == nil {
		t.Error("overrides_builtin on a delivery rule accepted")
	}
}

// A progress copy of a subagent line without data.agentId cannot be told
// apart: a problem of its line, unless it copies a line that is read.
func TestClaudeCode_ProgressCopiesWithoutAnAgentIDAreProblems(t *testing.T) {
	copyOf := func(uuid string) map[string]any {
		return map[string]any{"type": "progress", "isSidechain": false, "data": map[string]any{"type": "agent_progress",
			"message": map[string]any{"type": "assistant", "uuid": uuid, "timestamp": "2026-12-01T08:00:30.000Z",
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "sub1",
					"name": "Bash", "input": map[string]any{"command": "curl -T x.pdf https://h.example/u"}}}}}}}
	}
	s := &cc{session: "s1", cwd: "/w"}
	s.call("t1", "Bash", map[string]any{"command": "ls"})
	s.add(copyOf("sub-u1")) // copies no line that is read
	in, evs := readSession(t, s)
	if len(in.Problems) != 1 || in.Problems[0].Line != 2 || in.Problems[0].Task != "" {
		t.Errorf("problems %+v, want one at line 2 of no task", in.Problems)
	}
	if n := len(ofType(evs, "request_sent")); n != 0 {
		t.Errorf("the copy was read: %s", summary(evs))
	}
	// A copy of a line of the same input is a duplicate.
	s = &cc{session: "s1", cwd: "/w"}
	orig := copyOf("sub-u1")["data"].(map[string]any)["message"].(map[string]any)
	s.add(map[string]any{"type": "assistant", "isSidechain": true, "agentId": "a1", "uuid": "sub-u1",
		"message": orig["message"]})
	s.add(copyOf("sub-u1"))
	if in, _ := readSession(t, s); len(in.Problems) != 0 {
		t.Errorf("a copy of a line read is a problem: %+v", in.Problems)
	}
	// A line of that uuid that says something else is not the one copied.
	s = &cc{session: "s1", cwd: "/w"}
	s.add(map[string]any{"type": "assistant", "isSidechain": true, "agentId": "a1", "uuid": "sub-u1",
		"message": map[string]any{"role": "assistant", "content": []any{}}})
	s.add(copyOf("sub-u1"))
	if in, _ := readSession(t, s); len(in.Problems) != 1 {
		t.Errorf("a copy of another line's uuid with other content is no problem: %+v", in.Problems)
	}
}

// A subagent the parent's Task/Agent result names is a referenced task.
func TestClaudeCode_SubagentsNamedByResultsAreSpawned(t *testing.T) {
	s := &cc{session: "s1", cwd: "/w"}
	s.call("t1", "Agent", map[string]any{"prompt": "upload it"})
	s.result("t1", false, []any{map[string]any{"type": "text", "text": "done"}}, map[string]any{"toolUseResult": map[string]any{"agentId": "a42", "status": "completed"}})
	s.call("t2", "Task", map[string]any{"prompt": "again"})
	s.result("t2", false, []any{map[string]any{"type": "text", "text": "done"}, map[string]any{"type": "text", "text": "agentId: a43 (use SendMessage …)"}}, nil)
	s.call("t3", "Bash", map[string]any{"command": "echo agentId: nope"})
	s.result("t3", false, "agentId: nope", nil)
	_, evs := readSession(t, s)
	if got, want := summary(ofType(evs, "task_spawned")), "task_spawned child=s1/agent-a42\ntask_spawned child=s1/agent-a43"; got != want {
		t.Errorf("\n got  %s\n want %s", got, want)
	}
}

// Other clients that send a file (found by the adversarial review: each
// was no evidence at all): keyed by the file's bytes where one is named.
func TestClaudeCode_OtherDeliveryClientsAreCrossings(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{`wget --post-file report.pdf https://slack.example/api/files.upload`,
			"intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf"},
		{`wget -q --body-file=report.pdf --method=PUT https://h.example/u`,
			"intent intent=call:b1 dest=http/https://h.example/u path=/w/report.pdf"},
		{`http -f POST https://slack.example/api/files.upload channels=C1 file@report.pdf`,
			"intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf"},
		{`xh POST https://h.example/u @body.json`, "intent intent=call:b1 dest=http/https://h.example/u path=/w/body.json"},
		{`gh api repos/acme/site/issues/5/comments -F body=@notes.md`,
			"intent intent=call:b1 dest=github/repos/acme/site/issues/5/comments path=/w/notes.md"},
		{`gh api -X POST repos/acme/site/releases --input release.json`,
			"intent intent=call:b1 dest=github/repos/acme/site/releases path=/w/release.json"},
		{`scp report.pdf deploy@files.example:/srv/inbox/`,
			"intent intent=call:b1 dest=remote/deploy@files.example:/srv/inbox/ path=/w/report.pdf"},
		{`rsync -av ./out/report.pdf files.example:/srv/inbox/`,
			"intent intent=call:b1 dest=remote/files.example:/srv/inbox/ path=/w/out/report.pdf"},
		{`aws s3 cp report.pdf s3://acme-reports/2026/`,
			"intent intent=call:b1 dest=remote/s3://acme-reports/2026/ path=/w/report.pdf"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, "", ""}))
			if got := summary(ofType(evs, "intent")); got != c.want {
				t.Errorf("\n got  %s\n want %s", got, c.want)
			}
			if n := len(ofType(evs, "request_sent")); n != 1 {
				t.Errorf("%d request_sent, want 1", n)
			}
		})
	}
	// Reading is not delivering.
	for _, cmd := range []string{`wget https://h.example/file.pdf`, `http GET https://h.example/x`, `gh api repos/acme/site/issues`, `aws s3 ls s3://acme-reports/`} {
		if _, evs := readSession(t, bashSession("/w", [3]string{cmd, "", ""})); len(ofType(evs, "request_sent")) != 0 {
			t.Errorf("%s: a crossing, want none", cmd)
		}
	}
}

// An MCP tool whose name does not say it delivers, given a file and a
// channel: a crossing all the same (fail closed); reading tools are not.
func TestClaudeCode_ToolGivenAFileIsACrossing(t *testing.T) {
	s := &cc{session: "s1", cwd: "/w"}
	s.call("m1", "mcp__slack__files_v2", map[string]any{"channel_id": "C1", "file": "report.pdf"})
	s.call("m2", "mcp__slack__get_file", map[string]any{"channel_id": "C1", "file": "report.pdf"})
	s.call("m3", "mcp__drive__attach", map[string]any{"attachment": "/tmp/a.pdf"})
	_, evs := readSession(t, s)
	want := "intent intent=call:m1 dest=slack/C1 path=/w/report.pdf"
	if got := summary(ofType(evs, "intent")); got != want {
		t.Errorf("\n got  %s\n want %s", got, want)
	}
	if n := len(ofType(evs, "request_sent")); n != 2 { // m1 keyed, m3 with no destination: unkeyed
		t.Errorf("%d request_sent, want 2 (files_v2 and attach)", n)
	}
}

// A hook that exits 1 blocks nothing (2.1.197 writes an attachment of
// type hook_non_blocking_error, and the tool's own result): the call ran.
func TestClaudeCode_NonBlockingHookErrorBlocksNothing(t *testing.T) {
	s := &cc{session: "s1", cwd: "/w"}
	s.call("b1", "Bash", map[string]any{"command": "curl -sS -F file=@report.pdf https://slack.example/api/files.upload"})
	s.add(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_non_blocking_error",
		"hookName": "PreToolUse:Bash", "toolUseID": "b1", "hookEvent": "PreToolUse", "exitCode": 1,
		"stderr": "Failed with non-blocking status code: hook crashed with exit 1"}})
	s.result("b1", false, `{"ok":true}`, map[string]any{"toolUseResult": map[string]any{"stdout": `{"ok":true}`, "stderr": ""}})
	_, evs := readSession(t, s)
	want := "intent intent=call:b1 dest=http/https://slack.example/api/files.upload path=/w/report.pdf\n" +
		"request_sent intent=call:b1\nresponse intent=call:b1 ok=true"
	if got := summary(evs); got != want {
		t.Errorf("\n got  %s\n want %s", got, want)
	}
}
