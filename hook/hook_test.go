package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/hook"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// A classifier for these tests: `upload FILE CHANNEL` is a delivery of
// FILE (against cwd) to slack/CHANNEL; `upload` alone delivers something
// unknown; everything else is no delivery.
func classify(tool string, input []byte, cwd string) (hook.Call, error) {
	var in struct{ Command string }
	if err := json.Unmarshal(input, &in); err != nil {
		return hook.Call{}, err
	}
	f := strings.Fields(in.Command)
	if tool != "Bash" || len(f) == 0 || f[0] != "upload" {
		return hook.Call{}, nil
	}
	if len(f) < 3 {
		return hook.Call{Delivery: true, Why: "an upload of something"}, nil
	}
	return hook.Call{Delivery: true, Intents: []analyzer.IntentSpec{{
		Destination: effect.Destination{Provider: "slack", ID: f[2]}, File: filepath.Join(cwd, f[1])}}}, nil
}

type world struct {
	t        *testing.T
	cwd      string
	project  string // the session's project folder
	digest   string
	transcri string
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, cwd: t.TempDir(), project: t.TempDir()}
	if err := os.WriteFile(filepath.Join(w.cwd, "report.pdf"), []byte("%PDF-1.4 fake report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := effect.HashFile(filepath.Join(w.cwd, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	w.digest = d
	w.transcri = filepath.Join(w.project, "s2.jsonl")
	// The asking session's own history: started, nothing crossed.
	w.write("s2.jsonl", `{"ts":"2026-12-01T10:00:00Z","task":"s2","type":"task_started","relation":"root"}`)
	return w
}

func (w *world) write(name string, lines ...string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.project, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// siblingCrossed: another session delivered the same file to the same
// channel and saw it confirmed.
func (w *world) siblingCrossed() {
	w.write("s1.jsonl",
		`{"ts":"2026-12-01T09:00:00Z","task":"s1","type":"task_started","relation":"root"}`,
		fmt.Sprintf(`{"ts":"2026-12-01T09:00:01Z","task":"s1","type":"intent","destination":{"provider":"slack","id":"C024BE91L"},"content":{"sha256":"%s"}}`, w.digest),
		`{"ts":"2026-12-01T09:00:02Z","task":"s1","type":"send_fired"}`,
		`{"ts":"2026-12-01T09:00:03Z","task":"s1","type":"readback","result":"confirmed"}`,
		`{"ts":"2026-12-01T09:00:04Z","task":"s1","type":"task_ended","status":"completed"}`)
}

func (w *world) payload(event, session, command string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": w.transcri, "cwd": w.cwd,
		"hook_event_name": event, "tool_name": "Bash", "tool_input": map[string]any{"command": command},
		"tool_use_id": "toolu_" + session})
	return b
}

func newHook(t *testing.T, s ledger.Store, opts ...gate.Option) *hook.ClaudeCode {
	t.Helper()
	if s != nil {
		opts = append(opts, gate.WithLedger(s))
	}
	g, err := gate.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &hook.ClaudeCode{Gate: g, Ledger: s, Classify: classify, Lease: time.Minute}
}

func denied(t *testing.T, r hook.Response) string {
	t.Helper()
	var out struct {
		H struct {
			Event, Decision, Reason string
		}
	}
	var raw map[string]map[string]string
	if r.Exit != 0 || json.Unmarshal(r.Output, &raw) != nil {
		t.Fatalf("not a JSON denial: exit %d, output %q, message %q", r.Exit, r.Output, r.Message)
	}
	h := raw["hookSpecificOutput"]
	out.H.Event, out.H.Decision, out.H.Reason = h["hookEventName"], h["permissionDecision"], h["permissionDecisionReason"]
	if out.H.Event != "PreToolUse" || out.H.Decision != "deny" || !strings.HasPrefix(out.H.Reason, "effectlint: ") {
		t.Fatalf("not Claude Code's deny form: %s", r.Output)
	}
	return out.H.Reason
}

func TestPreToolUse_SiblingCrossedDenies(t *testing.T) {
	w := newWorld(t)
	w.siblingCrossed()
	r := newHook(t, nil).Handle(context.Background(), w.payload("PreToolUse", "s2", "upload report.pdf C024BE91L"))
	if reason := denied(t, r); !strings.Contains(reason, "KEY_CONSUMED") || !strings.Contains(reason, "s1.jsonl") {
		t.Fatalf("reason %q names neither the rule nor its evidence", reason)
	}
}

func TestPreToolUse_NothingCrossedGivesNoDecision(t *testing.T) {
	w := newWorld(t)
	r := newHook(t, nil).Handle(context.Background(), w.payload("PreToolUse", "s2", "upload report.pdf C024BE91L"))
	if r.Exit != 0 || len(r.Output) != 0 || r.Decision != "allow" {
		t.Fatalf("want no output, exit 0: %+v %s", r, r.Output)
	}
}

func TestPreToolUse_ReadOnlyToolIsUntouched(t *testing.T) {
	w := newWorld(t)
	w.siblingCrossed()
	r := newHook(t, nil).Handle(context.Background(), w.payload("PreToolUse", "s2", "ls -l"))
	if r.Exit != 0 || len(r.Output) != 0 || r.Decision != "" {
		t.Fatalf("want untouched: %+v %s", r, r.Output)
	}
}

func TestPreToolUse_FailsClosed(t *testing.T) {
	w := newWorld(t)
	slow := func(tool string, in []byte, cwd string) (hook.Call, error) {
		time.Sleep(2 * time.Second)
		return classify(tool, in, cwd)
	}
	panicky := func(string, []byte, string) (hook.Call, error) { panic("injected") }
	for name, tc := range map[string]struct {
		payload []byte
		setup   func(h *hook.ClaudeCode)
		want    string
	}{
		"malformed stdin":    {payload: []byte(`{"hook_event_name": "PreToolUse", "tool_name": `), want: "not valid JSON"},
		"empty stdin":        {payload: nil, want: "no hook event"},
		"not an object":      {payload: []byte(`["PreToolUse"]`), want: "not a JSON object"},
		"odd event name":     {payload: []byte(`{"hook_event_name":"pretooluse","tool_name":"Bash","session_id":"s2"}`), want: "not one Claude Code sends"},
		"event not a string": {payload: []byte(`{"hook_event_name":5,"tool_name":"Bash","session_id":"s2"}`), want: "not a string"},
		"project is a file":  {payload: []byte(fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"upload report.pdf C024BE91L"},"session_id":"s2","cwd":%q,"transcript_path":%q}`, w.cwd, filepath.Join(w.transcri, "x.jsonl"))), want: "not a folder"},
		"no tool name":       {payload: []byte(`{"hook_event_name":"PreToolUse","session_id":"s2"}`), want: "no tool_name"},
		"unknown content":    {payload: w.payload("PreToolUse", "s2", "upload"), want: "STOP"},
		"file gone":          {payload: w.payload("PreToolUse", "s2", "upload missing.pdf C024BE91L"), want: "NO_KEY"},
		"no session":         {payload: []byte(fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"upload report.pdf C1"},"cwd":%q,"transcript_path":%q}`, w.cwd, w.transcri)), want: "no session_id"},
		"deadline":           {payload: w.payload("PreToolUse", "s2", "upload report.pdf C024BE91L"), setup: func(h *hook.ClaudeCode) { h.Classify, h.Deadline = slow, 200*time.Millisecond }, want: "deadline"},
		"panic in the gate":  {payload: w.payload("PreToolUse", "s2", "upload report.pdf C024BE91L"), setup: func(h *hook.ClaudeCode) { h.Classify = panicky }, want: "internal error"},
		"history unreadable": {payload: w.payload("PreToolUse", "s2", "upload report.pdf C024BE91L"), setup: func(*hook.ClaudeCode) {
			w.write("s9.jsonl", `{"ts":"2026-12-01T09:00:00Z","task":"s9","type":"task_started"`)
		}, want: "HISTORY_UNREADABLE"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHook(t, nil)
			if tc.setup != nil {
				tc.setup(h)
			}
			start := time.Now()
			reason := denied(t, h.Handle(context.Background(), tc.payload))
			if !strings.Contains(reason, tc.want) {
				t.Fatalf("reason %q lacks %q", reason, tc.want)
			}
			if time.Since(start) > time.Second {
				t.Fatalf("took %s", time.Since(start))
			}
		})
	}
}

// Two sessions racing on the same upload through a ledger: one proceeds,
// the other is denied; the one whose tool then fails leaves the scope
// send_status_unknown.
func TestLedger_RacingSessionsOneProceeds(t *testing.T) {
	w := newWorld(t)
	s := ledgertest.NewMemory(ledger.Config{})
	h := newHook(t, s)
	w.write("s3.jsonl", `{"ts":"2026-12-01T10:00:01Z","task":"s3","type":"task_started","relation":"root"}`)
	var wg sync.WaitGroup
	res := map[string]hook.Response{}
	var mu sync.Mutex
	for _, sess := range []string{"s2", "s3"} {
		wg.Add(1)
		go func(sess string) {
			defer wg.Done()
			r := h.Handle(context.Background(), w.payload("PreToolUse", sess, "upload report.pdf C024BE91L"))
			mu.Lock()
			res[sess] = r
			mu.Unlock()
		}(sess)
	}
	wg.Wait()
	var winner string
	for sess, r := range res {
		if r.Decision == "allow" {
			if winner != "" {
				t.Fatalf("both sessions proceed: %+v", res)
			}
			winner = sess
		} else {
			denied(t, r)
		}
	}
	if winner == "" {
		t.Fatalf("neither proceeds: %s / %s", res["s2"].Output, res["s3"].Output)
	}
	if r := h.Handle(context.Background(), w.payload("PostToolUseFailure", winner, "upload report.pdf C024BE91L")); r.Decision != "settled" {
		t.Fatalf("settle: %+v", r)
	}
	key, _ := effect.NewKey(effect.Destination{Provider: "slack", ID: "C024BE91L"}, w.digest)
	rec, _, _ := s.Get(context.Background(), key.String(), ledger.OriginalScope)
	if rec.State != ledger.SendStatusUnknown {
		t.Fatalf("after PostToolUseFailure the scope is %s", rec.State)
	}
	// And the same session asking again is denied: its own crossing.
	denied(t, h.Handle(context.Background(), w.payload("PreToolUse", winner, "upload report.pdf C024BE91L")))
}
