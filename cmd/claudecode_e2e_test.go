package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real Claude Code CLI (EFFECTLINT_CLAUDE_CODE: the claude executable;
// .ci/run installs @anthropic-ai/claude-code 2.1.197) driven headless with
// the hook installed from --print-settings, against a scripted Messages API
// on loopback: session 1 asks for a curl upload, which runs (a stub curl in
// PATH records it and fails to connect); session 2, in the same project
// folder, asks for the identical upload and the hook denies it: the tool
// never runs, the CLI's stream shows the "effectlint:" reason, and check and
// analyze read session 2's call as a stop, not a crossing. Without the
// variable the test skips, unless EFFECTLINT_REQUIRE_CLAUDE_CODE=1.
func TestClaudeCode_E2E_HookDeniesTheSecondUpload(t *testing.T) { e2eUploads(t, false) }

// The same through an MCP upload tool (a stub server on the official
// TypeScript SDK, which .ci/run installs for the MCP tests): the second
// session's call never reaches the tool.
func TestClaudeCode_E2E_HookDeniesTheSecondMCPUpload(t *testing.T) {
	sdk := os.Getenv("EFFECTLINT_NODE_MCP")
	if sdk == "" {
		if os.Getenv("EFFECTLINT_REQUIRE_NODE_MCP") == "1" {
			t.Fatal("EFFECTLINT_NODE_MCP is not set, and EFFECTLINT_REQUIRE_NODE_MCP=1 (see .ci/run)")
		}
		t.Skip("EFFECTLINT_NODE_MCP is not set (the folder where @modelcontextprotocol/sdk is installed)")
	}
	e2eUploads(t, true)
}

// uploaderMCP is a stdio MCP server with one tool, upload_file {channel,
// path}, that only records its calls.
const uploaderMCP = `import { McpServer } from "SDK/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js";
import { StdioServerTransport } from "SDK/node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js";
import { z } from "SDK/node_modules/zod/index.js";
import { appendFileSync } from "node:fs";
const server = new McpServer({ name: "uploader", version: "0.0.1" });
server.registerTool("upload_file", { description: "Upload a file to a chat channel",
  inputSchema: { channel: z.string(), path: z.string() } },
  async ({ channel, path }) => { appendFileSync(LOG, JSON.stringify({ channel, path }) + "\n");
    return { content: [{ type: "text", text: "uploaded " + path + " to " + channel }] }; });
await server.connect(new StdioServerTransport());
`

func e2eUploads(t *testing.T, viaMCP bool) {
	claude := os.Getenv("EFFECTLINT_CLAUDE_CODE")
	if claude == "" {
		if os.Getenv("EFFECTLINT_REQUIRE_CLAUDE_CODE") == "1" {
			t.Fatal("EFFECTLINT_CLAUDE_CODE is not set, and EFFECTLINT_REQUIRE_CLAUDE_CODE=1: install @anthropic-ai/claude-code with npm (see .ci/run)")
		}
		t.Skip("EFFECTLINT_CLAUDE_CODE is not set (the path of the claude executable)")
	}
	if _, err := os.Stat(claude); err != nil {
		t.Fatalf("EFFECTLINT_CLAUDE_CODE=%s: %v", claude, err)
	}
	root := t.TempDir()
	home, project, bin := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "bin")
	for _, d := range []string{filepath.Join(home, ".claude"), project, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "report.pdf"), []byte("%PDF-1.4 quarterly report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A stub curl: records each run, then fails as curl does without network.
	ranLog := filepath.Join(root, "curl-runs.log")
	stub := "#!/bin/sh\necho \"$*\" >> '" + ranLog + "'\necho 'curl: (6) Could not resolve host: slack.example' >&2\nexit 6\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	// The hook: this test binary acting as effectlint (asCLI in the CLI's
	// environment, which its hooks inherit).
	settings, stderr, code := run(t, "hook", "claude-code", "--print-settings")
	if code != 0 {
		t.Fatalf("--print-settings: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}

	const upload = "curl -sS -F file=@report.pdf -F channels=C024BE91L https://slack.example/api/files.upload"
	api := &scriptedAPI{t: t, command: upload}
	allowed := []string{"--allowedTools", "Bash"}
	if viaMCP {
		// The stub MCP server's calls are the runs.
		script := strings.NewReplacer("SDK", os.Getenv("EFFECTLINT_NODE_MCP"), "LOG", strconv.Quote(ranLog)).Replace(uploaderMCP)
		if err := os.WriteFile(filepath.Join(root, "uploader.mjs"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"uploader": map[string]any{
			"command": "node", "args": []string{filepath.Join(root, "uploader.mjs")}}}})
		if err := os.WriteFile(filepath.Join(root, "mcp.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		api.tool, api.input = "mcp__uploader__upload_file", map[string]any{"channel": "C024BE91L", "path": "report.pdf"}
		allowed = []string{"--mcp-config", filepath.Join(root, "mcp.json"), "--allowedTools", "mcp__uploader__upload_file,WaitForMcpServers"}
	}
	srv := httptest.NewServer(api)
	defer srv.Close()

	env := append(os.Environ(),
		"HOME="+home,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-dummy-effectlint-e2e",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		asCLI+"=1",
	)
	session := func(n int, prompt string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, claude, append([]string{"-p", prompt,
			"--output-format", "stream-json", "--verbose"}, allowed...)...)
		c.Dir, c.Env = project, env
		var out, errOut strings.Builder
		c.Stdout, c.Stderr = &out, &errOut
		start := time.Now()
		err := c.Run()
		t.Logf("session %d: %v in %s; stderr: %s", n, err, time.Since(start).Round(time.Millisecond), errOut.String())
		if err != nil {
			t.Fatalf("session %d: %v\nstdout:\n%s\nstderr:\n%s\nrequests: %v", n, err, out.String(), errOut.String(), api.seen())
		}
		id, results := streamSession(t, out.String())
		if id == "" {
			t.Fatalf("session %d: no session_id in the stream:\n%s", n, out.String())
		}
		return id, results
	}
	runs := func() int {
		b, err := os.ReadFile(ranLog)
		if err != nil {
			return 0
		}
		return strings.Count(string(b), "\n")
	}

	// Session 0 asks for nothing: the project folder holds a transcript
	// before the first upload. (Without one, the first session of a new
	// project races the CLI: when its PreToolUse hook runs before the CLI
	// wrote the session's file, the folder is empty and the gate denies
	// with GATE_ERROR "no input", fail closed. Seen here; not the subject.)
	const ask = "Upload report.pdf to the Slack channel C024BE91L."
	if s0, res0 := session(0, "Say hello."); res0 != "" || runs() != 0 {
		t.Fatalf("session 0 (%s) ran a tool: %s", s0, res0)
	}
	s1, res1 := session(1, ask)
	if runs() != 1 {
		t.Fatalf("session 1 (%s): the upload ran %d times, want 1 (tool results: %s; requests: %v)", s1, runs(), res1, api.seen())
	}
	if strings.Contains(res1, "effectlint:") {
		t.Fatalf("session 1 was denied: %s", res1)
	}
	t.Logf("session 1 %s: the upload ran, tool result %s", s1, res1)
	s2, res2 := session(2, ask)
	if s2 == s1 {
		t.Fatalf("session 2 is session 1 (%s)", s1)
	}
	if runs() != 1 {
		t.Fatalf("session 2 (%s): the upload ran again (%d runs in all); tool results: %s", s2, runs(), res2)
	}
	if !strings.Contains(res2, "effectlint:") {
		t.Fatalf("session 2 (%s): no effectlint denial in its tool results: %s", s2, res2)
	}
	t.Logf("session 2 %s: denied, tool result %s", s2, res2)

	// The sessions in one project folder, the CLI's own files.
	folders, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*"))
	if len(folders) != 1 {
		t.Fatalf("project folders %v, want one", folders)
	}
	folder := folders[0]
	for _, s := range []string{s1, s2} {
		if _, err := os.Stat(filepath.Join(folder, s+".jsonl")); err != nil {
			t.Fatalf("transcript of %s: %v", s, err)
		}
	}
	out, stderr, code := runWith(t, "", builtinRules(t), "check", "--color", "never", "--task", s2, "--checkpoint", "send", folder)
	if code != ExitFindings {
		t.Fatalf("check --task %s: exit %d, want %d (stop)\n%s%s", s2, code, ExitFindings, out, stderr)
	}
	t.Logf("check --task %s --checkpoint send: exit %d\n%s", s2, code, out)
	rep, code, stderr := analyzeJSON(t, "", folder)
	if rep.Summary.Problems != 0 {
		t.Errorf("analyze: %d problems (%s)", rep.Summary.Problems, stderr)
	}
	crossed := map[string]int{}
	for _, k := range rep.Keys {
		for _, e := range k.Evidence {
			if e.Class == "crossing" || e.Class == "confirmation" {
				crossed[e.Task]++
			}
		}
	}
	for _, f := range rep.Findings {
		if f.Task != nil && *f.Task == s2 && (f.Rule == "UNKEYED_CROSSING" || f.Rule == "DUPLICATE_DELIVERY" || f.Rule == "DUPLICATE_RISK_RESUME") {
			t.Errorf("analyze: a finding %s of session 2, whose call never ran", f.Rule)
		}
	}
	if crossed[s1] == 0 || crossed[s2] != 0 {
		t.Errorf("analyze (exit %d): crossings by task %v, want session 1's alone (%s)", code, crossed, s1)
	}
}

// streamSession reads a stream-json run: its session id, and the text of
// every tool_result the CLI fed back.
func streamSession(t *testing.T, stream string) (string, string) {
	t.Helper()
	var id string
	var results []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
			Message   struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if id == "" && m.SessionID != "" {
			id = m.SessionID
		}
		if m.Type != "user" {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			IsError bool            `json:"is_error"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, fmt.Sprintf("[is_error=%v] %s", b.IsError, b.Content))
			}
		}
	}
	return id, strings.Join(results, "; ")
}

// scriptedAPI answers POST /v1/messages with SSE: a request that carries a
// tool_result gets a short text and end_turn; one that offers the Bash tool
// gets a tool_use of the upload; any other a short text.
type scriptedAPI struct {
	t       *testing.T
	command string
	// tool and input, when tool is set, are the upload's tool_use instead
	// of Bash with command (an MCP tool: until the CLI offers it, the
	// script asks for WaitForMcpServers first).
	tool  string
	input map[string]any
	mu    sync.Mutex
	log   []string
	n     int
}

func (a *scriptedAPI) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.log...)
}

func (a *scriptedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string                  `json:"model"`
		Stream   bool                    `json:"stream"`
		Tools    []struct{ Name string } `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	tool, input := "Bash", map[string]any{"command": a.command, "description": "Upload report.pdf to Slack"}
	if a.tool != "" {
		tool, input = a.tool, a.input
	}
	hasTool, hasWait, hasResult := false, false, false
	for _, tl := range req.Tools {
		switch tl.Name {
		case tool:
			hasTool = true
		case "WaitForMcpServers":
			hasWait = true
		}
	}
	for _, m := range req.Messages {
		// A result of the upload (not of the wait for MCP servers) ends
		// the turn.
		if c := string(m.Content); m.Role == "user" && strings.Contains(c, `"tool_result"`) && strings.Contains(c, `"toolu_e2e_`) {
			hasResult = true
		}
	}
	a.mu.Lock()
	a.n++
	n := a.n
	kind := "text"
	switch {
	case r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages"):
		kind = "404"
	case hasResult:
		kind = "text after tool_result"
	case hasTool && strings.Contains(string(body), "Upload report.pdf"):
		kind = "tool_use"
	case a.tool != "" && hasWait && strings.Contains(string(body), "Upload report.pdf"):
		kind = "wait"
	}
	a.log = append(a.log, fmt.Sprintf("%s %s (model %s, stream %v, %d tools, %d messages) -> %s", r.Method, r.URL.RequestURI(), req.Model, req.Stream, len(req.Tools), len(req.Messages), kind))
	a.mu.Unlock()
	if kind == "404" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ev := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	model := req.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	ev("message_start", map[string]any{"message": map[string]any{
		"id": fmt.Sprintf("msg_e2e_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	stop := "end_turn"
	switch kind {
	case "tool_use", "wait":
		stop = "tool_use"
		id, name := fmt.Sprintf("toolu_e2e_%d", n), tool
		if kind == "wait" {
			id, name, input = fmt.Sprintf("toolu_wait_%d", n), "WaitForMcpServers", map[string]any{"servers": []string{"uploader"}}
		}
		in, _ := json.Marshal(input)
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
	default:
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "Done."}})
	}
	ev("content_block_stop", map[string]any{"index": 0})
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{})
}
