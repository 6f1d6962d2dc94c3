package cmd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `effectlint mcp` as a whole process: this test binary acting as the
// CLI, driven by the Go SDK's client over stdio (CommandTransport) and
// over streamable HTTP.

// mcpWorld is a history in which t1 posted report.txt to
// slack/C024BE91L, fired send and could not read it back (consumed).
type mcpWorld struct{ history, content, sha string }

func newMCPWorld(t *testing.T) mcpWorld {
	t.Helper()
	dir := t.TempDir()
	body := []byte("quarterly numbers\n")
	content := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(content, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	history := filepath.Join(dir, "t1.jsonl")
	if err := os.WriteFile(history, []byte(strings.Join([]string{
		`{"ts":"2026-11-29T17:00:00Z","task":"t1","type":"task_started","relation":"root"}`,
		`{"ts":"2026-11-29T17:00:01Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C024BE91L"},"content":{"path":"report.txt"}}`,
		`{"ts":"2026-11-29T17:00:07Z","task":"t1","type":"send_fired"}`,
		`{"ts":"2026-11-29T17:00:20Z","task":"t1","type":"readback","result":"unavailable"}`,
		`{"ts":"2026-11-29T17:00:22Z","task":"t1","type":"task_ended","status":"completed"}`,
	}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return mcpWorld{history: history, content: content, sha: hex.EncodeToString(sum[:])}
}

// mcpStdio starts `effectlint mcp args...` and connects to it over stdio.
func mcpStdio(t *testing.T, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	c := exec.Command(os.Args[0], append([]string{"mcp"}, args...)...)
	c.Env = append(os.Environ(), asCLI+"=1")
	c.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cmd-test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("effectlint mcp %v: %v", args, err)
	}
	return cs, c
}

type mcpResult struct {
	isError bool
	out     map[string]any
	raw     string
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) mcpResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		t.Fatalf("%s %v: no structured content: %s", tool, args, b)
	}
	return mcpResult{isError: res.IsError, out: out, raw: string(b)}
}

func (r mcpResult) rule() string {
	rs, _ := r.out["reasons"].([]any)
	if len(rs) == 0 {
		return ""
	}
	m, _ := rs[0].(map[string]any)
	s, _ := m["rule"].(string)
	return s
}

func (r mcpResult) token() int64 { n, _ := r.out["token"].(float64); return int64(n) }

func keysOf(m map[string]any) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

func TestMCP_Stdio(t *testing.T) {
	w := newMCPWorld(t)
	for name, fresh := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			l := fresh(t)
			cs, proc := mcpStdio(t, "--ledger", l, "--history", w.history)
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				if tool.InputSchema == nil || tool.OutputSchema == nil {
					t.Errorf("%s: no schema", tool.Name)
				}
				names = append(names, tool.Name)
			}
			sort.Strings(names)
			if strings.Join(names, " ") != "check claim cross explain key settle" {
				t.Fatalf("tools %v", names)
			}

			// check: the consumed delivery stops, another destination is allowed.
			r := mcpCall(t, cs, "check", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content})
			if r.out["decision"] != "stop" || r.rule() != "KEY_CONSUMED" || r.isError {
				t.Fatalf("check: %s", r.raw)
			}
			r = mcpCall(t, cs, "check", map[string]any{"task": "w1", "checkpoint": "send", "destination": "slack/C0OTHER99", "file": w.content})
			if r.out["decision"] != "allow" || r.isError {
				t.Fatalf("check: %s", r.raw)
			}

			// claim → cross → settle, and a second claim refused.
			k := mcpCall(t, cs, "key", map[string]any{"destination": "slack/C0OTHER99", "file": w.content})
			key, _ := k.out["key"].(string)
			if key != "v1|dest=slack/C0OTHER99|sha256="+w.sha {
				t.Fatalf("key: %s", k.raw)
			}
			c := mcpCall(t, cs, "claim", map[string]any{"task": "w1", "key": key, "tool_use_id": "toolu_01", "lease": "2m"})
			if c.out["granted"] != true || c.isError || c.token() != 1 {
				t.Fatalf("claim: %s", c.raw)
			}
			// The same fields as `effectlint claim --format json`.
			out, stderr, code := cli(t, "claim", "--ledger", l, "--task", "w2", "--key", key, "--format", "json")
			var cliAnswer map[string]any
			if code != 1 || json.Unmarshal([]byte(out), &cliAnswer) != nil {
				t.Fatalf("claim CLI: exit %d\n%s\n%s", code, out, stderr)
			}
			if strings.Join(keysOf(cliAnswer), " ") != strings.Join(keysOf(c.out), " ") {
				t.Fatalf("fields of the CLI's answer %v, of the tool's %v", keysOf(cliAnswer), keysOf(c.out))
			}
			r = mcpCall(t, cs, "claim", map[string]any{"task": "w2", "key": key})
			// The gate stops it first: w1's live claim is a held approach.
			if r.out["granted"] != false || r.rule() != "KEY_CONSUMED" {
				t.Fatalf("second claim: %s", r.raw)
			}
			r = mcpCall(t, cs, "cross", map[string]any{"key": key, "token": c.token()})
			if r.out["granted"] != true || r.out["state"] != "crossing" {
				t.Fatalf("cross: %s", r.raw)
			}
			r = mcpCall(t, cs, "settle", map[string]any{"key": key, "token": c.token(), "outcome": "confirmed"})
			if r.out["granted"] != true || r.out["state"] != "sent_verified" {
				t.Fatalf("settle: %s", r.raw)
			}
			r = mcpCall(t, cs, "claim", map[string]any{"task": "w3", "key": key})
			if r.out["granted"] != false || r.rule() != "KEY_CONSUMED" {
				t.Fatalf("claim of a consumed scope: %s", r.raw)
			}
			// The journal keeps the tool_use_id (ledger show prints it).
			if out, _, code := cli(t, "ledger", "show", "--ledger", l, "--key", key); code != 0 || !strings.Contains(out, "ref toolu_01") {
				t.Fatalf("ledger show: exit %d\n%s", code, out)
			}

			// Errors are refusals.
			r = mcpCall(t, cs, "check", map[string]any{"task": "w4", "checkpoint": "send", "key": "v1|nonsense"})
			if r.out["decision"] != "stop" {
				t.Fatalf("bad key: %s", r.raw)
			}
			r = mcpCall(t, cs, "check", map[string]any{"task": "w4", "checkpoint": "send", "key": key, "paths": []string{filepath.Join(t.TempDir(), "none")}})
			if r.out["decision"] != "stop" || r.rule() != "GATE_ERROR" || !r.isError {
				t.Fatalf("missing path: %s", r.raw)
			}
			r = mcpCall(t, cs, "claim", map[string]any{"task": "w4", "key": "v1|nonsense"})
			if r.out["granted"] != false || !r.isError {
				t.Fatalf("claim of a bad key: %s", r.raw)
			}
			r = mcpCall(t, cs, "cross", map[string]any{"key": key, "token": "1"})
			if r.out["granted"] != false || !r.isError {
				t.Fatalf("cross with a token as text: %s", r.raw)
			}

			// The client closes stdin: the server exits 0.
			if err := cs.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if proc.ProcessState == nil || proc.ProcessState.ExitCode() != 0 {
				t.Fatalf("effectlint mcp exited %v", proc.ProcessState)
			}
		})
	}
}

// A ledger that does not answer: every tool that needs it refuses, and
// check stops; the server still serves.
func TestMCP_StdioUnreachableLedger(t *testing.T) {
	w := newMCPWorld(t)
	cs, _ := mcpStdio(t, "--ledger", "postgres://nobody@127.0.0.1:1/x?connect_timeout=1", "--history", w.history)
	defer cs.Close()
	key := "v1|dest=slack/C0OTHER99|sha256=" + w.sha
	r := mcpCall(t, cs, "check", map[string]any{"task": "w1", "checkpoint": "send", "key": key})
	if r.out["decision"] != "stop" || r.rule() != "HISTORY_UNREADABLE" {
		t.Fatalf("check: %s", r.raw)
	}
	for tool, args := range map[string]map[string]any{
		"claim":  {"task": "w1", "key": key},
		"cross":  {"key": key, "token": 1},
		"settle": {"key": key, "token": 1, "outcome": "unknown"},
	} {
		r := mcpCall(t, cs, tool, args)
		if r.out["granted"] != false || r.rule() != "LEDGER_ERROR" || !r.isError {
			t.Fatalf("%s: %s", tool, r.raw)
		}
	}
}

// Flags the server cannot start with exit 2 before any session.
func TestMCP_BadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--policy", filepath.Join(t.TempDir(), "none.rego")},
		{"mcp", "--profile", filepath.Join(t.TempDir(), "none.yaml")},
		{"mcp", "--http", "256.0.0.1:-1"},
		{"mcp", "extra"},
	} {
		if out, stderr, code := cli(t, args...); code != ExitError {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, stderr)
		}
	}
}

func TestMCP_HTTP(t *testing.T) {
	w := newMCPWorld(t)
	c := exec.Command(os.Args[0], "mcp", "--http", "127.0.0.1:0", "--history", w.history)
	c.Env = append(os.Environ(), asCLI+"=1")
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.Process.Signal(os.Interrupt)
		if err := c.Wait(); err != nil {
			t.Errorf("effectlint mcp --http after SIGINT: %v", err)
		}
	}()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("effectlint mcp --http said nothing")
	}
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("no address in %q", lines.Text())
	}
	go func() {
		for lines.Scan() {
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cmd-test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: m[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := mcpCall(t, cs, "check", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content})
	if r.out["decision"] != "stop" || r.rule() != "KEY_CONSUMED" {
		t.Fatalf("check: %s", r.raw)
	}
	r = mcpCall(t, cs, "claim", map[string]any{"task": "t2", "destination": "slack/C024BE91L", "file": w.content})
	if r.out["granted"] != false || r.rule() != "NO_LEDGER" || !r.isError {
		t.Fatalf("claim without a ledger: %s", r.raw)
	}
}
