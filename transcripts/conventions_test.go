package transcripts

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// convRun feeds tool calls (and their results) through the built-in
// conventions and returns the events as "type k=v ..." strings.
func convRun(t *testing.T, p *Profile, calls []ToolCall, results map[string]bool) []string {
	t.Helper()
	var out []string
	rn := &run{opt: Options{Profile: p}, seen: map[string]bool{}, pending: map[string]*pendingCall{}, page: map[string]string{},
		emit: func(e Event) {
			s := e.Type
			for _, k := range []string{"intent", "checkpoint", "decision", "ok", "idempotency_token"} {
				if v, ok := e.Fields[k]; ok {
					s += fmt.Sprintf(" %s=%v", k, v)
				}
			}
			if d, ok := e.Fields["destination"].(map[string]any); ok {
				s += fmt.Sprintf(" dest=%v/%v", d["provider"], d["id"])
			}
			if c, ok := e.Fields["content"].(map[string]any); ok {
				for k, v := range c {
					s += fmt.Sprintf(" %s=%.8v", k, v)
				}
			}
			out = append(out, s)
		}}
	conv := rn.conventions(&Input{Path: "x.jsonl", Format: FormatClaudeCode})
	for _, c := range calls {
		c.Task, c.TS, c.Cwd = "t1", time.Unix(0, 0), "/home/u/repo"
		conv.Call(c)
		if failed, ok := results[c.ID]; ok {
			conv.Result(c.ID, toolResult{TS: time.Unix(1, 0), Error: failed})
		}
	}
	return out
}

func TestConventions_BuiltinRules(t *testing.T) {
	bash := func(id, cmd string) ToolCall {
		return ToolCall{ID: id, Name: "Bash", Args: fmt.Sprintf(`{"command":%q}`, cmd)}
	}
	cases := []struct {
		name    string
		calls   []ToolCall
		results map[string]bool // call id → failed
		want    string
	}{
		{"git push with a redirection keeps the cwd as destination",
			[]ToolCall{bash("c1", "git push 2>&1")}, map[string]bool{"c1": false},
			"intent intent=call:c1 dest=git//home/u/repo sha256=fb8870ea|request_sent intent=call:c1 idempotency_token=idempotent:|response intent=call:c1 ok=true"},
		{"git push to a remote and branch",
			[]ToolCall{bash("c1", "git push --set-upstream origin main && echo done")}, nil,
			"intent intent=call:c1 dest=git/origin main sha256=|request_sent intent=call:c1 idempotency_token=idempotent:"},
		{"gh pr comment with a repo and a body",
			[]ToolCall{bash("c1", `gh pr comment 12 --repo acme/api --body "LGTM"`)}, map[string]bool{"c1": true},
			"intent intent=call:c1 dest=github/acme/api sha256=|request_sent intent=call:c1|response intent=call:c1 ok=false"},
		{"curl POST is a request",
			[]ToolCall{bash("c1", `curl -X POST https://hooks.example.com/x -d '{"a":1}'`)}, nil,
			"intent intent=call:c1 dest=http/https://hooks.example.com/x sha256=|request_sent intent=call:c1"},
		{"curl GET is not evidence", []ToolCall{bash("c1", "curl -s https://example.com/status")}, nil, ""},
		{"gh pr view is not evidence", []ToolCall{bash("c1", "gh pr view 12")}, nil, ""},
		{"effectlint check that exits 0 is an allowing gate check",
			[]ToolCall{bash("c1", "effectlint check --task t1 --checkpoint send histories/")}, map[string]bool{"c1": false},
			"gate_check checkpoint=send decision=allow"},
		{"effectlint check that fails is a stop at resume by default",
			[]ToolCall{bash("c1", "cd x && effectlint check --task t1 .")}, map[string]bool{"c1": true},
			"gate_check checkpoint=resume decision=stop"},
		{"effectlint check with no result is no decision", []ToolCall{bash("c1", "effectlint check --task t1 .")}, nil, ""},
		{"MCP delivery by tool name, text hashed",
			[]ToolCall{{ID: "c1", Name: "mcp__slack__slack_post_message", Args: `{"channel_id":"C1","text":"hi"}`}}, map[string]bool{"c1": false},
			"intent intent=call:c1 dest=slack/C1 sha256=8f434346|request_sent intent=call:c1|response intent=call:c1 ok=true"},
		{"delivery with a given digest",
			[]ToolCall{{ID: "c1", Name: "send_file", Args: `{"to":"ops@example.com","sha256":"abc"}`}}, nil,
			"intent intent=call:c1 dest=send_file/ops@example.com sha256=abc|request_sent intent=call:c1"},
		{"delivery without a destination is unkeyed evidence",
			[]ToolCall{{ID: "c1", Name: "mcp__x__post_update", Args: `{"text":"hi"}`}}, nil,
			"request_sent intent=unkeyed-call:c1"},
		{"reading tools are not deliveries",
			[]ToolCall{{ID: "c1", Name: "mcp__slack__get_posts", Args: `{"channel":"C1"}`}, {ID: "c2", Name: "list_comments", Args: `{}`}}, nil, ""},
		{"playwright: navigate, upload, click send",
			[]ToolCall{
				{ID: "c1", Name: "mcp__playwright__browser_navigate", Args: `{"url":"https://chat.example.com/c/ops"}`},
				{ID: "c2", Name: "mcp__playwright__browser_file_upload", Args: `{"paths":["report.pdf"]}`},
				{ID: "c3", Name: "mcp__playwright__browser_click", Args: `{"element":"Send button","ref":"e12"}`},
				{ID: "c4", Name: "mcp__playwright__browser_click", Args: `{"element":"Close dialog","ref":"e13"}`},
			}, nil,
			"intent intent=call:c2 dest=web/https://chat.example.com/c/ops path=/home/u/|picker_accepted intent=call:c2|send_fired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(convRun(t, nil, c.calls, c.results), "|")
			// Digests are shown by their first characters; an empty
			// expected prefix only asserts that a digest is there.
			if !matchPrefixes(got, c.want) {
				t.Errorf("events\n got  %s\n want %s", got, c.want)
			}
		})
	}
}

// matchPrefixes compares event strings where each "k=v" of want must be a
// prefix of the same k's value in got.
func matchPrefixes(got, want string) bool {
	g, w := strings.Split(got, "|"), strings.Split(want, "|")
	if got == "" || want == "" {
		return got == want
	}
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		gf, wf := strings.Fields(g[i]), strings.Fields(w[i])
		if len(gf) < len(wf) || gf[0] != wf[0] {
			return false
		}
		for _, kv := range wf[1:] {
			k, v, _ := strings.Cut(kv, "=")
			found := false
			for _, gkv := range gf[1:] {
				gk, gv, _ := strings.Cut(gkv, "=")
				found = found || (gk == k && strings.HasPrefix(gv, v))
			}
			if !found && !strings.Contains(g[i], kv) {
				return false
			}
		}
	}
	return true
}

func TestProfile_UserRulesComeFirstAndBadProfilesAreRejected(t *testing.T) {
	p, err := ParseProfile("acme", []byte(`
rules:
  - name: acme post
    tool: '^notify_post$'
    evidence: request_sent
    destination: {provider: acme, id_args: [room]}
    content: {text_args: [body]}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(convRun(t, p, []ToolCall{{ID: "c1", Name: "notify_post", Args: `{"room":"r1","body":"x"}`}}, nil), "|")
	if !strings.Contains(got, "dest=acme/r1") {
		t.Errorf("user rule not applied first: %s", got)
	}
	for _, bad := range []string{
		"rules: [{evidence: explode}]",
		"rules: [{evidence: request_sent, tool: '('}]",
		"rules: [{evidence: request_sent, colour: red}]",
		"rules: [{evidence: request_sent, arg: command}]",
		"source: {task: a}",
		"rules: [",
	} {
		if _, err := ParseProfile("bad", []byte(bad)); err == nil {
			t.Errorf("profile %q accepted", bad)
		}
	}
}

// The intent an `effectlint check` command names by its flags.
func TestCheckedIntent(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	for _, c := range []struct {
		words []string
		cwd   string
		known bool
		want  string // fmt of the map; "" for nil
	}{
		{[]string{"effectlint", "check", "--task", "s1", "--checkpoint", "send"}, "/w", true, ""},
		{[]string{"effectlint", "check", "--key", "v1|dest=slack/C1|sha256=" + sha}, "/w", true, "map[key:v1|dest=slack/C1|sha256=" + sha + "]"},
		{[]string{"effectlint", "check", "--destination=slack/C1", "--sha256", sha, "--authorization", "A1"}, "/w", true, "map[authorization:A1 content:map[sha256:" + sha + "] destination:map[id:C1 provider:slack]]"},
		{[]string{"effectlint", "check", "--title", "#fin", "--file", "x.pdf"}, "/w", true, "map[content:map[path:/w/x.pdf] destination:map[title:#fin]]"},
		{[]string{"effectlint", "check", "--destination", "slack/C1", "--file", "x.pdf"}, "", false, ""},
		{[]string{"effectlint", "check", "--destination", "slack/C1", "--file", "/abs/x.pdf"}, "", false, "map[content:map[path:/abs/x.pdf] destination:map[id:C1 provider:slack]]"},
		{[]string{"effectlint", "check", "--destination", "C1", "--sha256", sha}, "/w", true, ""},
		{[]string{"effectlint", "check", "--destination", "slack/C1", "--destination", "slack/C2", "--sha256", sha}, "/w", true, ""},
		{[]string{"effectlint", "check", "--destination", "slack/C1"}, "/w", true, ""},
		{[]string{"effectlint", "check", "--destination"}, "/w", true, ""},
		// The shell completes these: not what the check was given.
		{[]string{"effectlint", "check", "--destination", `"slack/$CH"`, "--sha256", sha}, "/w", true, ""},
		{[]string{"effectlint", "check", "--destination", "slack/C1", "--sha256", sha, "$MORE"}, "/w", true, ""},
		{[]string{"effectlint", "check", "--task", "$T", "--destination", "slack/C1", "--sha256", sha}, "/w", true, ""},
		// A quoted expansion as a flag's value is that value; as an
		// argument of its own it may be a flag ("$FLAGS"), unless it
		// stands after --.
		{[]string{"effectlint", "check", "--task", `"$T"`, "--checkpoint", `"$CP"`, "--destination", "slack/C1", "--sha256", sha, "--", `"$DIR"`}, "/w", true, "map[content:map[sha256:" + sha + "] destination:map[id:C1 provider:slack]]"},
		{[]string{"effectlint", "check", "--destination", "slack/C1", "--sha256", sha, `"$DIR"`}, "/w", true, ""},
		{[]string{"effectlint", "check", "--destination", "slack/C{1,2}", "--sha256", sha}, "/w", true, ""},
		{[]string{"xargs", "effectlint", "check", "--destination", "slack/C1", "--sha256", sha}, "/w", true, ""},
	} {
		got := ""
		// As a shell line: words with operators single-quoted, the others
		// as written (so braces and expansions are the shell's).
		line := make([]string, len(c.words))
		for i, w := range c.words {
			line[i] = w
			if strings.ContainsAny(w, "|#;&<>() ") {
				line[i] = "'" + w + "'"
			}
		}
		part := splitShell(strings.Join(line, " "))[0]
		if in, _ := checkedIntent(part.words, part.splits, c.cwd, c.known); in != nil {
			got = fmt.Sprint(in)
		}
		if got != c.want {
			t.Errorf("%q: %s, want %s", c.words, got, c.want)
		}
	}
}
