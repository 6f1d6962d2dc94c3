package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/mcpserver"
)

// unreachable is a PostgreSQL ledger nobody listens for.
const unreachable = "postgres://nobody@127.0.0.1:1/x?connect_timeout=1"

// world is a folder with one history: t1 posted report.txt to
// slack/C024BE91L, fired send, could not read it back, and ended. The
// key of that delivery is consumed (send_status_unknown).
type world struct {
	dir, history, content, sha string
}

func newWorld(t *testing.T) world {
	t.Helper()
	dir := t.TempDir()
	content := filepath.Join(dir, "report.txt")
	body := []byte("quarterly numbers\n")
	if err := os.WriteFile(content, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	history := filepath.Join(dir, "histories")
	if err := os.Mkdir(history, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"ts":"2026-11-29T17:00:00Z","task":"t1","type":"task_started","relation":"root"}`,
		`{"ts":"2026-11-29T17:00:01Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C024BE91L"},"content":{"path":"../report.txt"}}`,
		`{"ts":"2026-11-29T17:00:06Z","task":"t1","type":"gate_check","checkpoint":"send","decision":"allow"}`,
		`{"ts":"2026-11-29T17:00:07Z","task":"t1","type":"send_fired"}`,
		`{"ts":"2026-11-29T17:00:20Z","task":"t1","type":"readback","result":"unavailable"}`,
		`{"ts":"2026-11-29T17:00:22Z","task":"t1","type":"task_ended","status":"completed"}`,
	}
	if err := os.WriteFile(filepath.Join(history, "t1.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return world{dir: dir, history: history, content: content, sha: hex.EncodeToString(sum[:])}
}

// connect starts a server with cfg and a client over an in-memory
// transport.
func connect(t *testing.T, cfg mcpserver.Config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, err := mcpserver.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// result is a tool call's answer: isError and the structured content.
type result struct {
	isError bool
	out     map[string]any
	raw     string
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		t.Fatalf("%s %v: no structured content (%s): %v", name, args, b, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s %v: no content", name, args)
	}
	return result{isError: res.IsError, out: out, raw: string(b)}
}

func (r result) str(field string) string { s, _ := r.out[field].(string); return s }

func (r result) rules() []string {
	var out []string
	rs, _ := r.out["reasons"].([]any)
	for _, x := range rs {
		m, _ := x.(map[string]any)
		s, _ := m["rule"].(string)
		out = append(out, s)
	}
	return out
}

func (r result) token() int64 { n, _ := r.out["token"].(float64); return int64(n) }

// stop asserts a check's stop with the first rule; never an allow.
func stop(t *testing.T, r result, rule string, isError bool) {
	t.Helper()
	if r.str("decision") != "stop" || len(r.rules()) == 0 || r.rules()[0] != rule || r.isError != isError {
		t.Fatalf("want stop %s (isError %v), got %s", rule, isError, r.raw)
	}
}

// refused asserts a ledger operation's refusal with the rule.
func refused(t *testing.T, r result, rule string, isError bool) {
	t.Helper()
	if r.out["granted"] != false || len(r.rules()) == 0 || r.rules()[0] != rule || r.isError != isError {
		t.Fatalf("want refused %s (isError %v), got %s", rule, isError, r.raw)
	}
}

func granted(t *testing.T, r result) {
	t.Helper()
	if r.out["granted"] != true || r.isError || len(r.rules()) != 0 {
		t.Fatalf("want granted, got %s", r.raw)
	}
}

func TestToolsList(t *testing.T) {
	cs := connect(t, mcpserver.Config{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.Title == "" || tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s: description, title, schemas and annotations are required: %+v", tool.Name, tool)
			continue
		}
		a := tool.Annotations
		switch tool.Name {
		case "check", "key", "explain":
			if !a.ReadOnlyHint {
				t.Errorf("%s must be read-only: %+v", tool.Name, a)
			}
		default:
			if a.ReadOnlyHint || a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("%s: want readOnly false, idempotent false, destructive false: %+v", tool.Name, a)
			}
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: the tools' world is closed (local histories and a ledger): %+v", tool.Name, a)
		}
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if !strings.Contains(string(in), `"type":"object"`) || !strings.Contains(string(out), `"type":"object"`) {
			t.Errorf("%s: schemas %s / %s", tool.Name, in, out)
		}
	}
	if strings.Join(names, " ") != strings.Join(mcpserver.Tools, " ") {
		// tools/list sorts by name; compare as sets.
		want := map[string]bool{}
		for _, n := range mcpserver.Tools {
			want[n] = true
		}
		for _, n := range names {
			delete(want, n)
		}
		if len(want) > 0 || len(names) != 6 {
			t.Fatalf("tools %v, want %v", names, mcpserver.Tools)
		}
	}
	// The schemas name what each tool needs.
	for _, tool := range res.Tools {
		in, _ := json.Marshal(tool.InputSchema)
		for name, required := range map[string]string{"check": `"required":["task"]`, "claim": `"required":["task"]`,
			"cross": `"required":["key","token"]`, "settle": `"required":["key","token","outcome"]`} {
			if tool.Name == name && !strings.Contains(string(in), required) {
				t.Errorf("%s input schema %s lacks %s", name, in, required)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}})
	// Another task, the same delivery: consumed.
	stop(t, call(t, cs, "check", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content}), "KEY_CONSUMED", false)
	stop(t, call(t, cs, "check", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "sha256": w.sha}), "KEY_CONSUMED", false)
	// Another destination: allowed.
	r := call(t, cs, "check", map[string]any{"task": "t3", "checkpoint": "send", "destination": "slack/C0OTHER99", "file": w.content})
	if r.str("decision") != "allow" || r.isError || r.rules()[0] != "NO_MATCHING_HISTORY" || r.str("version") != "effectlint.report/v1" {
		t.Fatalf("allow: %s", r.raw)
	}
	for _, f := range []string{"task", "checkpoint", "key", "scope", "state", "executor", "reasons", "inputs"} {
		if _, ok := r.out[f]; !ok {
			t.Errorf("check's output lacks %s: %s", f, r.raw)
		}
	}
	// The call's paths join the server's.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "t4.jsonl"), []byte(`{"ts":"2026-11-29T18:00:00Z","task":"t4","type":"task_started","relation":"root"}`+"\n"+
		`{"ts":"2026-11-29T18:00:01Z","task":"t4","type":"intent","destination":{"provider":"slack","id":"C0OTHER99"},"content":{"sha256":"`+w.sha+`"}}`+"\n"+
		`{"ts":"2026-11-29T18:00:02Z","task":"t4","type":"send_fired"}`+"\n"), 0o644)
	stop(t, call(t, cs, "check", map[string]any{"task": "t3", "checkpoint": "send", "destination": "slack/C0OTHER99", "file": w.content, "paths": []string{other}}), "KEY_CONSUMED", false)
}

// Every error of check is a stop, never an allow, with isError set.
func TestCheckErrorsStop(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}})
	fresh := map[string]any{"task": "t3", "checkpoint": "send", "destination": "slack/C0OTHER99", "sha256": w.sha}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range fresh {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, c := range map[string]struct {
		args    map[string]any
		rule    string
		isError bool
	}{
		"bad key":                {map[string]any{"task": "t3", "checkpoint": "send", "key": "v1|nonsense"}, "NO_KEY", false},
		"key and destination":    {with("key", "v1|dest=slack/C0OTHER99|sha256="+w.sha), "NO_KEY", false},
		"bad destination":        {with("destination", "C0OTHER99"), "GATE_ERROR", true},
		"bad sha256":             {with("sha256", "abc"), "NO_KEY", false},
		"missing file":           {with("sha256", nil), "NO_KEY", false},
		"path that is not":       {with("paths", []string{filepath.Join(w.dir, "no", "such")}), "GATE_ERROR", true},
		"standard input":         {with("paths", []string{"-"}), "GATE_ERROR", true},
		"bad checkpoint":         {with("checkpoint", "sned"), "GATE_ERROR", true},
		"no task":                {with("task", ""), "GATE_ERROR", true},
		"task missing":           {with("task", nil), "GATE_ERROR", true},
		"task of the wrong type": {with("task", 7), "GATE_ERROR", true},
		"unknown argument":       {with("sha", w.sha), "GATE_ERROR", true},
		"paths not a list":       {with("paths", w.history), "GATE_ERROR", true},
	} {
		t.Run(name, func(t *testing.T) {
			r := call(t, cs, "check", c.args)
			stop(t, r, c.rule, c.isError)
		})
	}
	// No history at all: a stop.
	stop(t, call(t, connect(t, mcpserver.Config{}), "check", fresh), "GATE_ERROR", true)
	// A ledger that does not answer is an unreadable history.
	stop(t, call(t, connect(t, mcpserver.Config{Histories: []string{w.history}, Ledger: unreachable}), "check", fresh), "HISTORY_UNREADABLE", false)
}

func TestKey(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, mcpserver.Config{})
	r := call(t, cs, "key", map[string]any{"destination": "Slack/C024BE91L", "file": w.content})
	if r.str("key") != "v1|dest=slack/C024BE91L|sha256="+w.sha || r.str("content_sha256") != w.sha || r.out["weak_destination"] != false || r.isError {
		t.Fatalf("key: %s", r.raw)
	}
	r = call(t, cs, "key", map[string]any{"title": "#Finance  Reports", "sha256": strings.ToUpper(w.sha)})
	if r.str("key") != "v1|title=%23finance%20reports|sha256="+w.sha || r.out["weak_destination"] != true {
		t.Fatalf("weak key: %s", r.raw)
	}
	for _, args := range []map[string]any{
		{"destination": "slack/C024BE91L"},
		{"file": w.content},
		{"destination": "slack/C024BE91L", "file": filepath.Join(w.dir, "missing")},
		{"destination": "nope", "sha256": w.sha},
		{"destination": "slack/C024BE91L", "sha256": w.sha, "key": "v1|x"},
	} {
		r := call(t, cs, "key", args)
		if !r.isError || r.str("key") != "" || len(r.rules()) == 0 || r.rules()[0] != "NO_KEY" {
			t.Errorf("%v: %s", args, r.raw)
		}
	}
}

func TestClaimCrossSettle(t *testing.T) {
	w := newWorld(t)
	db := filepath.Join(t.TempDir(), "ledger.db")
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}, Ledger: db})
	intent := map[string]any{"destination": "slack/C0OTHER99", "file": w.content}
	claim := func(task string, more map[string]any) result {
		args := map[string]any{"task": task, "tool_use_id": "toolu_" + task}
		for k, v := range intent {
			args[k] = v
		}
		for k, v := range more {
			args[k] = v
		}
		return call(t, cs, "claim", args)
	}
	c := claim("w1", map[string]any{"lease": "1m"})
	granted(t, c)
	key := c.str("key")
	if key != "v1|dest=slack/C0OTHER99|sha256="+w.sha || c.str("state") != "claimed" || c.token() != 1 || c.str("holder") != "w1" ||
		c.str("lease_expires") == "" || !strings.HasPrefix(c.str("provider_token"), "effectlint-") || c.str("ledger") != db || c.str("operation") != "claim" {
		t.Fatalf("claim: %s", c.raw)
	}
	// Another task: refused while w1 holds the lease, by the gate first
	// (over the histories and the journal: w1's live claim is a held
	// approach).
	r := claim("w2", nil)
	refused(t, r, "KEY_CONSUMED", false)
	if g, _ := r.out["gate"].(map[string]any); g["decision"] != "stop" || r.str("state") != "claimed" || r.str("holder") != "w1" {
		t.Fatalf("gate's refusal: %s", r.raw)
	}
	// A stale token is fenced.
	refused(t, call(t, cs, "cross", map[string]any{"key": key, "token": 7}), ledger.Fenced, false)
	x := call(t, cs, "cross", map[string]any{"key": key, "token": c.token()})
	granted(t, x)
	if x.str("state") != "crossing" || x.str("operation") != "cross" {
		t.Fatalf("cross: %s", x.raw)
	}
	// not_crossed after cross is refused: the scope stays consumed.
	refused(t, call(t, cs, "settle", map[string]any{"key": key, "token": c.token(), "outcome": "not_crossed"}), ledger.AlreadyCrossed, false)
	s := call(t, cs, "settle", map[string]any{"key": key, "token": c.token(), "outcome": "confirmed"})
	granted(t, s)
	if s.str("state") != "sent_verified" {
		t.Fatalf("settle: %s", s.raw)
	}
	// The scope is consumed: the gate stops a new claim (over the journal),
	// and so does check.
	r = claim("w3", nil)
	if r.out["granted"] != false || r.isError || r.rules()[0] != "KEY_CONSUMED" {
		t.Fatalf("claim of a consumed scope: %s", r.raw)
	}
	stop(t, call(t, cs, "check", map[string]any{"task": "w3", "checkpoint": "send", "key": key}), "KEY_CONSUMED", false)
	// The journal keeps the tool_use_id as the claim's ref.
	st, err := ledger.Open(context.Background(), db, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	refs := map[string]string{}
	if err := st.Journal(context.Background(), key, func(e ledger.Entry) error {
		if e.Op == ledger.OpClaim && e.Granted {
			refs[e.Task] = e.Ref
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if refs["w1"] != "toolu_w1" {
		t.Fatalf("journal refs %v", refs)
	}
	// explain reads the journal too.
	e := call(t, cs, "explain", map[string]any{"key": key})
	if e.out["explained"] != true || e.isError || !strings.Contains(e.str("text"), "sent_verified") {
		t.Fatalf("explain: %s", e.raw)
	}
}

// Every error of claim, cross and settle is granted false, with isError.
func TestLedgerErrorsRefuse(t *testing.T) {
	w := newWorld(t)
	db := filepath.Join(t.TempDir(), "ledger.db")
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}, Ledger: db})
	key := "v1|dest=slack/C0OTHER99|sha256=" + w.sha
	for name, c := range map[string]struct {
		tool string
		args map[string]any
		rule string
	}{
		"claim: bad key":            {"claim", map[string]any{"task": "w1", "key": "v1|nonsense"}, "NO_KEY"},
		"claim: no key":             {"claim", map[string]any{"task": "w1"}, "NO_KEY"},
		"claim: no task":            {"claim", map[string]any{"task": "", "key": key}, "INVALID_REQUEST"},
		"claim: bad lease":          {"claim", map[string]any{"task": "w1", "key": key, "lease": "soon"}, "INVALID_REQUEST"},
		"claim: negative lease":     {"claim", map[string]any{"task": "w1", "key": key, "lease": "-1s"}, "INVALID_REQUEST"},
		"claim: lease past 24h":     {"claim", map[string]any{"task": "w1", "key": key, "lease": "25h"}, "INVALID_REQUEST"},
		"claim: path that is not":   {"claim", map[string]any{"task": "w1", "key": key, "paths": []string{filepath.Join(w.dir, "nope")}}, "GATE_ERROR"},
		"claim: missing file":       {"claim", map[string]any{"task": "w1", "destination": "slack/C0OTHER99", "file": filepath.Join(w.dir, "nope")}, "NO_KEY"},
		"claim: token not a number": {"claim", map[string]any{"task": 1, "key": key}, "INVALID_REQUEST"},
		"cross: bad key":            {"cross", map[string]any{"key": "v1|nonsense", "token": 1}, "INVALID_REQUEST"},
		"cross: zero token":         {"cross", map[string]any{"key": key, "token": 0}, "INVALID_REQUEST"},
		"cross: token as text":      {"cross", map[string]any{"key": key, "token": "1"}, "INVALID_REQUEST"},
		"cross: bad checkpoint":     {"cross", map[string]any{"key": key, "token": 1, "checkpoint": "resume"}, "INVALID_REQUEST"},
		"settle: bad outcome":       {"settle", map[string]any{"key": key, "token": 1, "outcome": "sent"}, "INVALID_REQUEST"},
		"settle: no outcome":        {"settle", map[string]any{"key": key, "token": 1}, "INVALID_REQUEST"},
	} {
		t.Run(name, func(t *testing.T) { refused(t, call(t, cs, c.tool, c.args), c.rule, true) })
	}
	// Nothing was granted by any of them.
	granted(t, call(t, cs, "claim", map[string]any{"task": "w1", "key": key}))

	// No ledger configured.
	none := connect(t, mcpserver.Config{Histories: []string{w.history}})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"claim", map[string]any{"task": "w1", "key": key}},
		{"cross", map[string]any{"key": key, "token": 1}},
		{"settle", map[string]any{"key": key, "token": 1, "outcome": "confirmed"}},
	} {
		r := call(t, none, c.tool, c.args)
		refused(t, r, "NO_LEDGER", true)
		if !strings.Contains(r.raw, "no ledger is configured") {
			t.Errorf("%s: %s", c.tool, r.raw)
		}
	}

	// A ledger that does not answer.
	down := connect(t, mcpserver.Config{Histories: []string{w.history}, Ledger: unreachable})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"claim", map[string]any{"task": "w1", "key": key}},
		{"claim", map[string]any{"task": "w1", "key": key, "paths": []string{w.history}}},
		{"cross", map[string]any{"key": key, "token": 1}},
		{"settle", map[string]any{"key": key, "token": 1, "outcome": "confirmed"}},
	} {
		r := call(t, down, c.tool, c.args)
		refused(t, r, "LEDGER_ERROR", true)
		if strings.Contains(r.raw, "nobody:") || r.str("ledger") == "" {
			t.Errorf("%s: %s", c.tool, r.raw)
		}
	}
}

// A lease that ran out: cross refuses EXPIRED, and a crossing whose lease
// ran out is never freed.
func TestExpiredLease(t *testing.T) {
	var skew time.Duration
	db := filepath.Join(t.TempDir(), "ledger.db")
	cs := connect(t, mcpserver.Config{Ledger: db, LedgerConfig: ledger.Config{Skew: func() time.Duration { return skew }}})
	key := "v1|dest=slack/C0OTHER99|sha256=" + strings.Repeat("ab", 32)
	c := call(t, cs, "claim", map[string]any{"task": "w1", "key": key, "lease": "1s"})
	granted(t, c)
	// Without histories no gate runs: the ledger refuses another task.
	refused(t, call(t, cs, "claim", map[string]any{"task": "w2", "key": key}), ledger.ClaimedByOther, false)
	skew = time.Minute
	refused(t, call(t, cs, "cross", map[string]any{"key": key, "token": c.token()}), ledger.Expired, false)
	// The expired claim is replaced with the next token.
	c2 := call(t, cs, "claim", map[string]any{"task": "w2", "key": key, "lease": "1s"})
	granted(t, c2)
	if c2.token() != 2 {
		t.Fatalf("replaced claim: %s", c2.raw)
	}
	granted(t, call(t, cs, "cross", map[string]any{"key": key, "token": 2}))
	skew = 2 * time.Minute
	refused(t, call(t, cs, "claim", map[string]any{"task": "w3", "key": key}), "KEY_CONSUMED", false)
}

func TestExplain(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}})
	r := call(t, cs, "explain", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content})
	g, _ := r.out["gate"].(map[string]any)
	if r.out["explained"] != true || r.isError || g["decision"] != "stop" || !strings.HasPrefix(r.str("text"), "STOP task t2 at send") {
		t.Fatalf("explain task: %s", r.raw)
	}
	key := "v1|dest=slack/C024BE91L|sha256=" + w.sha
	r = call(t, cs, "explain", map[string]any{"key": key})
	sc, _ := r.out["scopes"].([]any)
	if r.out["explained"] != true || len(sc) != 1 || sc[0].(map[string]any)["state"] != "send_status_unknown" {
		t.Fatalf("explain key: %s", r.raw)
	}
	for _, args := range []map[string]any{
		{},
		{"key": key, "task": "t2"},
		{"key": "v1|nonsense"},
		{"key": key, "scope": "a9"},
		{"key": key, "checkpoint": "send"},
		{"task": "t2", "scope": "original"},
		{"task": "t2", "paths": []string{filepath.Join(w.dir, "nope")}},
		{"task": "t2", "checkpoint": 3},
	} {
		r := call(t, cs, "explain", args)
		if r.out["explained"] != false || !r.isError || r.out["gate"] != nil || len(r.rules()) == 0 {
			t.Errorf("%v: %s", args, r.raw)
		}
	}
}

// The streamable HTTP transport serves the same tools.
func TestHTTP(t *testing.T) {
	w := newWorld(t)
	srv, err := mcpserver.New(context.Background(), mcpserver.Config{Histories: []string{w.history}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	stop(t, call(t, cs, "check", map[string]any{"task": "t2", "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content}), "KEY_CONSUMED", false)
	refused(t, call(t, cs, "claim", map[string]any{"task": "t2", "destination": "slack/C024BE91L", "file": w.content}), "NO_LEDGER", true)
}

// A policy that does not load is the server's error, before any session.
func TestBadPolicy(t *testing.T) {
	if _, err := mcpserver.New(context.Background(), mcpserver.Config{Policies: []string{filepath.Join(t.TempDir(), "none.rego")}}); err == nil {
		t.Fatal("a missing policy must fail New")
	}
}

// A hostile task id is echoed as an excerpt, as the JSON report does.
func TestLongStringsAreCut(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, mcpserver.Config{Histories: []string{w.history}})
	long := strings.Repeat("x", 100_000)
	r := call(t, cs, "check", map[string]any{"task": long, "checkpoint": "send", "destination": "slack/C024BE91L", "file": w.content})
	if r.str("decision") != "stop" || len(r.str("task")) > 2*1024 || !strings.Contains(r.str("task"), "bytes, sha256:") {
		t.Fatalf("task of %d bytes echoed as %d", len(long), len(r.str("task")))
	}
	db := filepath.Join(t.TempDir(), "ledger.db")
	cs = connect(t, mcpserver.Config{Ledger: db})
	r = call(t, cs, "claim", map[string]any{"task": long, "key": "v1|dest=slack/C0OTHER99|sha256=" + w.sha})
	if len(r.raw) > 8*1024 {
		t.Fatalf("claim answer of %d bytes", len(r.raw))
	}
}
