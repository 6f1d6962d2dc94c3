package transcripts

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// ClassifyClaudeCodeCall yields, for one call, the very events the reader
// yields for the same call in a session (without its result), and reads
// from them whether it is delivery-shaped and what it intends.
func TestClassifyClaudeCodeCall_IsWhatTheReaderYields(t *testing.T) {
	profile, err := ParseProfile("p", []byte(`rules: [{name: notify, tool: "^notify$", evidence: send_fired, destination: {provider: acme, id_args: [room]}, content: {text_args: [text]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name, agent string
		input       map[string]any
		profile     *Profile
		delivery    bool
		intents     int
	}{
		{"Bash", "", map[string]any{"command": "curl -sS -F file=@report.pdf -F channels=C1 https://slack.example/api/files.upload"}, nil, true, 1},
		{"Bash", "a42", map[string]any{"command": "cd out && curl -T report.pdf https://h.example/u"}, nil, true, 1},
		{"Bash", "", map[string]any{"command": "curl -F a=@one.pdf -F b=@two.pdf https://h.example/u"}, nil, true, 2},
		{"Bash", "", map[string]any{"command": "echo uploaded report.pdf to C1"}, nil, false, 0},
		{"Bash", "", map[string]any{"command": "effectlint check --task s1 --checkpoint send ."}, nil, false, 0},
		{"Bash", "", map[string]any{"command": "curl -X POST https://h.example/u -d @\"$F\""}, nil, true, 1}, // a path that will not hash: no key
		{"mcp__uploader__upload_file", "", map[string]any{"channel": "C024BE91L", "path": "report.pdf"}, nil, true, 1},
		{"mcp__slack__files_v2", "", map[string]any{"channel_id": "C1", "file": "/abs/report.pdf"}, nil, true, 1},
		{"mcp__acme__notify", "", map[string]any{"room": "r1", "text": "hello"}, profile, true, 1},
		{"Read", "", map[string]any{"file_path": "report.pdf"}, nil, false, 0},
		{"Agent", "", map[string]any{"prompt": "upload report.pdf"}, nil, false, 0},
	}
	strip := func(evs []Event) []Event {
		var out []Event
		for _, e := range evs {
			if e.Type == "task_started" {
				continue
			}
			e.File, e.Line = "", 0
			out = append(out, e)
		}
		return out
	}
	for i, c := range calls {
		t.Run(c.name+" "+c.agent, func(t *testing.T) {
			s := &cc{session: "s1", cwd: "/w"}
			id := "toolu_" + string(rune('a'+i))
			m := map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": c.name, "input": c.input}}}}
			if c.agent != "" {
				m["isSidechain"], m["agentId"] = true, c.agent
			}
			s.add(m)
			dir := t.TempDir()
			s.write(t, filepath.Join(dir, "s1.jsonl"))
			_, evs := readPaths(t, Options{Profile: c.profile}, filepath.Join(dir, "s1.jsonl"))
			input, _ := json.Marshal(c.input)
			got := ClassifyClaudeCodeCall(ClaudeCodeCall{Session: "s1", Agent: c.agent, ToolUseID: id, Name: c.name,
				Input: input, Cwd: "/w", TS: time.Date(2026, 12, 1, 8, 0, 1, 0, time.UTC)}, c.profile)
			if want := strip(evs); !reflect.DeepEqual(strip(got.Events), want) {
				t.Errorf("events\n got  %s\n want %s", summary(got.Events), summary(want))
			}
			wantTask := "s1"
			if c.agent != "" {
				wantTask = "s1/agent-" + c.agent
			}
			if got.Task != wantTask || got.Delivery != c.delivery || len(got.Intents) != c.intents {
				t.Errorf("task %s, delivery %v, intents %+v; want %s, %v, %d", got.Task, got.Delivery, got.Intents, wantTask, c.delivery, c.intents)
			}
			for _, in := range got.Intents {
				if in.Destination["provider"] == nil || len(in.Content) == 0 || in.Evidence == "" || !strings.HasPrefix(in.Intent, "call:"+id) {
					t.Errorf("intent %+v", in)
				}
			}
		})
	}
	// Paths resolve against the call's cwd, and the second delivery of a
	// call is "#2".
	got := ClassifyClaudeCodeCall(ClaudeCodeCall{Session: "s1", ToolUseID: "t1", Name: "Bash",
		Input: []byte(`{"command":"curl -F a=@one.pdf -F b=@/abs/two.pdf https://h.example/u"}`), Cwd: "/home/u/work"}, nil)
	if len(got.Intents) != 2 || got.Intents[0].Content["path"] != "/home/u/work/one.pdf" || got.Intents[1].Content["path"] != "/abs/two.pdf" ||
		got.Intents[1].Intent != "call:t1#2" || got.Intents[0].Destination["id"] != "https://h.example/u" || got.Intents[0].Evidence != "request_sent" {
		t.Errorf("intents %+v", got.Intents)
	}
}

// The hook payloads of the corpus (what 2.1.197 passed its PreToolUse
// hooks): each call classifies as the reader reads it in its session.
func TestClassifyClaudeCodeCall_CorpusHookPayloads(t *testing.T) {
	root := sharedtest.Path(t, "corpus/claude-code/cli-2.1.197")
	f, err := os.Open(filepath.Join(root, "hooks", "hook-pre.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, evs := readPaths(t, Options{}, filepath.Join(root, "sessions"))
	byCall := map[string][]Event{} // intent events of each call, by tool_use id
	for _, e := range evs {
		if e.Type == "intent" {
			id := strings.TrimPrefix(strings.SplitN(e.Str("intent"), "#", 2)[0], "call:")
			e.File, e.Line, e.TS = "", 0, time.Time{}
			byCall[id] = append(byCall[id], e)
		}
	}
	deliveries, compared := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p struct {
			Session string          `json:"session_id"`
			Agent   string          `json:"agent_id"`
			ID      string          `json:"tool_use_id"`
			Name    string          `json:"tool_name"`
			Input   json.RawMessage `json:"tool_input"`
			Cwd     string          `json:"cwd"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		got := ClassifyClaudeCodeCall(ClaudeCodeCall{Session: p.Session, Agent: p.Agent, ToolUseID: p.ID, Name: p.Name, Input: p.Input, Cwd: p.Cwd}, nil)
		wantDelivery := strings.HasPrefix(p.Name, "mcp__uploader__") || strings.Contains(string(p.Input), "curl ")
		if got.Delivery != wantDelivery || (wantDelivery && len(got.Intents) != 1) {
			t.Errorf("%s %s: delivery %v, intents %+v", p.Name, p.Input, got.Delivery, got.Intents)
		}
		deliveries[p.ID] = got.Delivery
		var intents []Event
		for _, e := range got.Events {
			if e.Type == "intent" {
				e.TS = time.Time{}
				intents = append(intents, e)
			}
		}
		// A call that ran is in the reader's events as classified; one
		// that never ran has no intent there, unless effectlint's gate
		// denied it.
		if want, ok := byCall[p.ID]; ok {
			compared[p.ID] = true
			if !reflect.DeepEqual(intents, want) {
				t.Errorf("%s: classified %s, read %s", p.ID, summary(intents), summary(want))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range deliveries {
		if d {
			n++
		}
	}
	// curl in 02, 03, 04, 04b, 09, 14a, 14c, 15; the MCP upload in 10, 11, 12.
	if n != 11 {
		t.Errorf("%d delivery-shaped calls among the payloads, want 11", n)
	}
	// The calls that ran: curl in 02 and 14c, the MCP upload in 10 and 12.
	if len(compared) != 4 {
		t.Errorf("%d calls compared with the reader's, want 4", len(compared))
	}
}
