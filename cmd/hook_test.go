package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/internal/sharedtest"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/transcripts"
)

// The hook fed the exact payloads Claude Code 2.1.197 passed to hooks
// (../shared/corpus/claude-code/cli-2.1.197/hooks), against histories
// built for each test, on a machine of the test's own: /home/user of the
// recording becomes a temporary folder.

type hookWorld struct {
	t      *testing.T
	home   string
	corpus string
}

func newHookWorld(t *testing.T) *hookWorld {
	return &hookWorld{t: t, home: t.TempDir(), corpus: sharedtest.Path(t, "corpus/claude-code/cli-2.1.197")}
}

// payloads reads a hook log's payloads.
func (w *hookWorld) payloads(name string) []map[string]any {
	w.t.Helper()
	f, err := os.Open(filepath.Join(w.corpus, "hooks", name))
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p map[string]any
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// localize moves a payload's paths under the test's home, and gives the
// session a project folder holding its own (empty-handed) history and the
// files its cwd names.
func (w *hookWorld) localize(p map[string]any) (payload []byte, project, cwd string) {
	w.t.Helper()
	move := func(s string) string { return filepath.Join(w.home, strings.TrimPrefix(s, "/home/user")) }
	cwd, tp := move(p["cwd"].(string)), move(p["transcript_path"].(string))
	project = filepath.Dir(tp)
	for _, d := range []string{cwd, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.t.Fatal(err)
		}
	}
	recorded := filepath.Join(w.corpus, "work", filepath.Base(p["cwd"].(string)), "report.pdf")
	if b, err := os.ReadFile(recorded); err == nil {
		if err := os.WriteFile(filepath.Join(cwd, "report.pdf"), b, 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	task := p["session_id"].(string)
	if a, ok := p["agent_id"].(string); ok && a != "" {
		task = a
	}
	own := fmt.Sprintf(`{"ts":"2026-12-01T10:00:00Z","task":%q,"type":"task_started","relation":"root"}`+"\n", task)
	if err := os.WriteFile(filepath.Join(project, "own-"+task+".jsonl"), []byte(own), 0o644); err != nil {
		w.t.Fatal(err)
	}
	q := map[string]any{}
	for k, v := range p {
		q[k] = v
	}
	q["cwd"], q["transcript_path"] = cwd, tp
	b, _ := json.Marshal(q)
	return b, project, cwd
}

// siblingCrossed writes, into the project folder, another session that
// delivered what the call would deliver and saw it confirmed.
func siblingCrossed(t *testing.T, project string, ev transcripts.Event) {
	t.Helper()
	dest := ev.Fields["destination"].(map[string]any)
	path := ev.Fields["content"].(map[string]any)["path"].(string)
	sha, err := effect.HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"ts":"2026-12-01T09:00:00Z","task":"other-session","type":"task_started","relation":"root"}`,
		fmt.Sprintf(`{"ts":"2026-12-01T09:00:01Z","task":"other-session","type":"intent","destination":{"provider":%q,"id":%q},"content":{"sha256":%q}}`, dest["provider"], dest["id"], sha),
		`{"ts":"2026-12-01T09:00:02Z","task":"other-session","type":"send_fired"}`,
		`{"ts":"2026-12-01T09:00:03Z","task":"other-session","type":"readback","result":"confirmed"}`,
		`{"ts":"2026-12-01T09:00:04Z","task":"other-session","type":"task_ended","status":"completed"}`,
	}
	if err := os.WriteFile(filepath.Join(project, "sibling.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runHook runs the hook in-process on stdin.
func runHookWith(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append([]string{"hook", "claude-code"}, args...), Env{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

// hookDenial reads Claude Code's deny form and returns its reason ("" when
// the output is no denial).
func hookDenial(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var d struct {
		H struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.H.Event != "PreToolUse" || d.H.Decision != "deny" || !strings.HasPrefix(d.H.Reason, "effectlint: ") {
		t.Fatalf("output is not Claude Code's deny form: %q", out)
	}
	return d.H.Reason
}

func classified(p map[string]any) (delivery bool, intent *transcripts.Event) {
	in, _ := json.Marshal(p["tool_input"])
	name, _ := p["tool_name"].(string)
	cl := transcripts.ClassifyClaudeCodeCall(transcripts.ClaudeCodeCall{Session: "t", ToolUseID: "x", Name: name, Input: in, Cwd: p["cwd"].(string)}, nil)
	for _, e := range cl.Events {
		if e.Type == "intent" {
			e := e
			intent = &e
		}
	}
	return cl.Delivery, intent
}

func TestHook_EveryRecordedPreToolUsePayload(t *testing.T) {
	w := newHookWorld(t)
	deliveries, untouched := 0, 0
	for i, p := range w.payloads("hook-pre.jsonl") {
		payload, project, _ := w.localize(p)
		var local map[string]any
		_ = json.Unmarshal(payload, &local)
		delivery, intent := classified(local)
		name := fmt.Sprintf("%d-%v", i, p["tool_name"])
		out, stderr, code := runHookWith(t, payload)
		if code != 0 {
			t.Fatalf("%s: exit %d (%s): the hook exits 0 with or without a denial", name, code, stderr)
		}
		if !delivery {
			untouched++
			if out != "" {
				t.Errorf("%s: a call that is no delivery was answered: %s", name, out)
			}
			continue
		}
		deliveries++
		if intent == nil {
			t.Fatalf("%s: a delivery without an intent", name)
		}
		if reason := hookDenial(t, out); reason != "" {
			t.Errorf("%s: nothing crossed, yet denied: %s", name, reason)
		}
		siblingCrossed(t, project, *intent)
		out, _, code = runHookWith(t, payload)
		reason := hookDenial(t, out)
		if code != 0 || !strings.Contains(reason, "KEY_CONSUMED") || !strings.Contains(reason, "sibling.jsonl") {
			t.Errorf("%s: a sibling session delivered the same file to the same place: exit %d, reason %q", name, code, reason)
		}
		os.Remove(filepath.Join(project, "sibling.jsonl"))
	}
	if deliveries < 10 || untouched < 10 {
		t.Fatalf("%d delivery-shaped and %d other payloads: the corpus should have both", deliveries, untouched)
	}
	t.Logf("%d delivery-shaped payloads (allowed alone, denied after a sibling's delivery), %d untouched", deliveries, untouched)
}

func TestHook_OtherEventsAreUntouched(t *testing.T) {
	w := newHookWorld(t)
	for _, log := range []string{"hook-post.jsonl", "hook-other.jsonl"} {
		for i, p := range w.payloads(log) {
			payload, _, _ := w.localize(p)
			out, stderr, code := runHookWith(t, payload)
			if code != 0 || out != "" || stderr != "" {
				t.Errorf("%s %d (%v): exit %d, %q %q; without a ledger nothing is done", log, i, p["hook_event_name"], code, out, stderr)
			}
		}
	}
}

// with is a hook payload with one field set.
func with(payload []byte, field string, v any) []byte {
	var p map[string]any
	_ = json.Unmarshal(payload, &p)
	p[field] = v
	b, _ := json.Marshal(p)
	return b
}

// without is a hook payload less one field.
func without(payload []byte, field string) []byte {
	var p map[string]any
	_ = json.Unmarshal(payload, &p)
	delete(p, field)
	b, _ := json.Marshal(p)
	return b
}

func TestHook_FailsClosed(t *testing.T) {
	w := newHookWorld(t)
	var curl map[string]any
	for _, p := range w.payloads("hook-pre.jsonl") {
		if s, _ := json.Marshal(p["tool_input"]); strings.Contains(string(s), "curl") {
			curl = p
			break
		}
	}
	payload, project, _ := w.localize(curl)
	// The same upload spelled so that the command line does not show it
	// (an adversarial review's finding): curl's abbreviated long options,
	// options from a file.
	spelled := func(cmd string) []byte {
		var p map[string]any
		_ = json.Unmarshal(payload, &p)
		p["tool_input"] = map[string]any{"command": cmd}
		b, _ := json.Marshal(p)
		return b
	}
	for name, tc := range map[string]struct {
		stdin []byte
		args  []string
		setup func()
		want  string
	}{
		"malformed stdin":    {stdin: []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash",`), want: "not valid JSON"},
		"empty stdin":        {stdin: nil, want: "no hook event"},
		"deadline":           {stdin: payload, args: []string{"--deadline", "1ns"}, want: "deadline"},
		"unreadable history": {stdin: payload, setup: func() { os.WriteFile(filepath.Join(project, "broken.jsonl"), []byte(`{"ts":`), 0o644) }, want: "HISTORY_UNREADABLE"},
		"ledger unreadable":  {stdin: payload, args: []string{"--ledger", filepath.Join(project, "own-"+curl["session_id"].(string)+".jsonl")}, want: "ledger"},
		"missing --history":  {stdin: payload, args: []string{"--history", filepath.Join(w.home, "nowhere")}, want: "GATE_ERROR"},
		// A sixth review today: with a --history and no transcript_path,
		// the project folder (a sibling's upload) went unread.
		"no transcript_path, a --history": {stdin: without(payload, "transcript_path"), args: []string{"--history", project}, want: "no transcript_path"},
		"relative transcript_path":        {stdin: with(payload, "transcript_path", "x.jsonl"), want: "not absolute"},
		"curl --upl":                      {stdin: spelled("curl -sS --upl report.pdf https://slack.example/api/files.upload"), want: "NO_KEY"},
		"curl --js":                       {stdin: spelled("curl -sS --js @report.pdf https://slack.example/api/files.upload"), want: "NO_KEY"},
		"curl -K":                         {stdin: spelled("curl -sS -K upload.cfg https://slack.example/api/files.upload"), want: "NO_KEY"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
				defer os.Remove(filepath.Join(project, "broken.jsonl"))
			}
			out, stderr, code := runHookWith(t, tc.stdin, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d (%s): a denial exits 0 (exit 1 would let the call through)", code, stderr)
			}
			if reason := hookDenial(t, out); !strings.Contains(reason, tc.want) {
				t.Fatalf("want a denial naming %q, got %q", tc.want, out)
			}
		})
	}
}

// Two hook processes for two sessions racing on the same upload through a
// ledger: one proceeds, one is denied; the tool then fails, and the scope
// is send_status_unknown.
func TestHook_LedgerRaceOneProceeds(t *testing.T) {
	w := newHookWorld(t)
	var mcpCall map[string]any
	for _, p := range w.payloads("hook-pre.jsonl") {
		if p["tool_name"] == "mcp__uploader__upload_file" {
			mcpCall = p
			break
		}
	}
	l := filepath.Join(t.TempDir(), "ledger.db")
	var payloads [][]byte
	for _, sess := range []string{"aaaaaaaa-0000-0000-0000-000000000001", "aaaaaaaa-0000-0000-0000-000000000002"} {
		p := map[string]any{}
		for k, v := range mcpCall {
			p[k] = v
		}
		p["session_id"], p["tool_use_id"] = sess, "toolu_"+sess
		b, _, _ := w.localize(p)
		payloads = append(payloads, b)
	}
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range payloads {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := exec.Command(os.Args[0], "hook", "claude-code", "--ledger", l)
			c.Env = append(os.Environ(), asCLI+"=1")
			c.Stdin = bytes.NewReader(payloads[i])
			var out bytes.Buffer
			c.Stdout = &out
			if err := c.Run(); err != nil {
				t.Errorf("hook %d: %v", i, err)
			}
			outs[i] = out.String()
		}(i)
	}
	wg.Wait()
	winner := -1
	for i, out := range outs {
		if hookDenial(t, out) == "" {
			if winner >= 0 {
				t.Fatalf("both sessions proceed: %q", outs)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("neither session proceeds: %q", outs)
	}
	var post map[string]any
	_ = json.Unmarshal(payloads[winner], &post)
	post["hook_event_name"] = "PostToolUseFailure"
	b, _ := json.Marshal(post)
	if out, stderr, code := runHookWith(t, b, "--ledger", l); code != 0 || out != "" {
		t.Fatalf("PostToolUseFailure: exit %d %q %q", code, out, stderr)
	}
	show, _, _ := cli(t, "ledger", "show", "--ledger", l)
	if !strings.Contains(show, "settle") || !strings.Contains(show, "send_status_unknown") {
		t.Fatalf("the journal after the failure:\n%s", show)
	}
	// The winner asking again is denied too: the scope is consumed.
	if reason := hookDenial(t, func() string { o, _, _ := runHookWith(t, payloads[winner], "--ledger", l); return o }()); reason == "" {
		t.Fatal("the same upload again was not denied")
	}
}

func TestHook_PrintSettings(t *testing.T) {
	out, _, code := run(t, "hook", "claude-code", "--print-settings", "--ledger", "/var/lib/effectlint/ledger.db", "--deadline", "8s")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"} {
		e := s.Hooks[ev]
		if len(e) != 1 || e[0].Matcher != "*" || len(e[0].Hooks) != 1 || e[0].Hooks[0].Type != "command" ||
			!strings.Contains(e[0].Hooks[0].Command, " hook claude-code --deadline 8s --ledger /var/lib/effectlint/ledger.db") ||
			e[0].Hooks[0].Timeout <= 8 {
			t.Fatalf("%s: %+v", ev, e)
		}
	}
}

// The gate remembers what it saw: the hook's claim records the key it
// computed at PreToolUse with the tool_use_id, and a transcript naming
// that id is read with the recorded key, even after the file changed; a
// reading without the ledger hashes the file as it is now.
func TestHook_LedgerRemembersTheKeyItSaw(t *testing.T) {
	w := newHookWorld(t)
	var call map[string]any
	for _, p := range w.payloads("hook-pre.jsonl") {
		if p["tool_use_id"] == "toolu_mock_20aabc4bf73e425f8a6b" { // case 10_mcp_allow
			call = p
			break
		}
	}
	if call == nil {
		t.Fatal("the corpus lacks the MCP upload of case 10")
	}
	payload, project, cwd := w.localize(call)
	l := filepath.Join(t.TempDir(), "ledger.db")
	if out, stderr, code := runHookWith(t, payload, "--ledger", l); code != 0 || out != "" {
		t.Fatalf("the first upload: exit %d %q %q", code, out, stderr)
	}
	before, err := effect.HashFile(filepath.Join(cwd, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	// The session's transcript as Claude Code wrote it, moved to this
	// machine; then the file changes.
	src := filepath.Join(w.corpus, "sessions/10_mcp_allow/projects/-home-user-work-mcp/7eec9f50-ca05-4f07-b6d3-f57574992299.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("/home/user"), []byte(w.home))
	if err := os.WriteFile(filepath.Join(project, "7eec9f50-ca05-4f07-b6d3-f57574992299.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(project, "own-"+call["session_id"].(string)+".jsonl"))
	if err := os.WriteFile(filepath.Join(cwd, "report.pdf"), []byte("other bytes now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := effect.HashFile(filepath.Join(cwd, "report.pdf"))
	keysOf := func(args ...string) string {
		out, stderr, _ := run(t, append([]string{"analyze", "--format", "json", "--fail-on", "none"}, args...)...)
		var rep struct {
			Keys []struct{ Key, State string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s %s", err, out, stderr)
		}
		var ks []string
		for _, k := range rep.Keys {
			ks = append(ks, k.Key[len(k.Key)-64:])
		}
		return strings.Join(ks, " ")
	}
	if got := keysOf(project); !strings.Contains(got, after) || strings.Contains(got, before) {
		t.Fatalf("without the ledger the call is keyed by the file as it is now (%s), got %s", after[:8], got)
	}
	if got := keysOf("--ledger", l, project); strings.Contains(got, after) || !strings.Contains(got, before) {
		t.Fatalf("with the ledger the call is keyed by what the hook saw (%s), got %s", before[:8], got)
	}
	// A claim under the same id by another task, for another key, does not
	// re-key the session's call (an adversarial review: it hid the
	// crossing, and a duplicate was allowed).
	l2 := filepath.Join(t.TempDir(), "foreign.db")
	foreign := ledgertest.Key(77)
	if _, stderr, code := cli(t, "claim", "--ledger", l2, "--task", "unrelated", "--key", foreign, "--ref", "toolu_mock_20aabc4bf73e425f8a6b"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := cli(t, "cross", "--ledger", l2, "--key", foreign, "--token", "1"); code != 0 {
		t.Fatal(stderr)
	}
	if got := keysOf("--ledger", l2, project); !strings.Contains(got, after) {
		t.Fatalf("a foreign claim under the call's id re-keyed it: %s, want %s among the keys", got, after[:8])
	}
}

// Claude Code 2.1.197 may write the call a PreToolUse hook is asked about
// to the transcript before the hook runs (seen by the end-to-end test): the
// call itself, still without a result, is the question, not a crossing of
// the session's own (ALREADY_CROSSED denied every first upload). An earlier
// unanswered call of another id still may have run: denied.
func TestHook_TheCallAskedAboutIsNotItsOwnCrossing(t *testing.T) {
	project, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "report.pdf"), []byte("%PDF-1.4 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const session = "5e55-0001"
	curl := "curl -sS -F file=@report.pdf -F channels=C024BE91L https://slack.example/api/files.upload"
	line := func(m map[string]any) string {
		m["sessionId"], m["cwd"], m["timestamp"] = session, cwd, "2026-12-01T08:00:02Z"
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	tp := filepath.Join(project, session+".jsonl")
	text := line(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "send the report"}}) +
		line(map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_asked", "name": "Bash", "input": map[string]any{"command": curl}}}}})
	if err := os.WriteFile(tp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := func(id string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": tp, "cwd": cwd, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": curl}, "tool_use_id": id})
		return b
	}
	if out, stderr, code := runHookWith(t, payload("toolu_asked")); code != 0 || out != "" {
		t.Fatalf("the call asked about: exit %d, output %s (%s), want no decision", code, out, stderr)
	}
	if reason := hookDenial(t, func() string { o, _, _ := runHookWith(t, payload("toolu_next")); return o }()); reason == "" {
		t.Fatal("a new call after an unanswered one of another id was not denied")
	}
	// Only the asking session's own call, and only while nothing follows
	// it (an adversarial review: another session carrying the same id, or
	// the session having gone on past the call, were let through).
	other := func(id string) []byte {
		var m map[string]any
		_ = json.Unmarshal(payload(id), &m)
		m["session_id"] = "5e55-0002"
		b, _ := json.Marshal(m)
		return b
	}
	if reason := hookDenial(t, func() string { o, _, _ := runHookWith(t, other("toolu_asked")); return o }()); reason == "" {
		t.Fatal("another session asking with the pending call's id was not denied")
	}
	text += line(map[string]any{"type": "assistant", "uuid": "a2", "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "done"}}}})
	if err := os.WriteFile(tp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if reason := hookDenial(t, func() string { o, _, _ := runHookWith(t, payload("toolu_asked")); return o }()); reason == "" {
		t.Fatal("the session went on past the call, yet asking about it again was not denied")
	}
}
