package transcripts

import (
	"path/filepath"
	"strings"
	"testing"
)

// A profile's source whose detect path also exists in a native log or a
// Claude Code session must not take it over: its paths would see fewer
// events (here: none), losing the crossings.
func TestDetect_BuiltinFormatsWinOverAProfileSource(t *testing.T) {
	dir := t.TempDir()
	native := filepath.Join(dir, "native.jsonl")
	writeFile(t, native, `{"ts":"2026-12-01T08:00:00Z","task":"t1","type":"task_started","relation":"root"}
{"ts":"2026-12-01T08:00:02Z","task":"t1","type":"send_fired"}
`)
	s := &cc{session: "s1", cwd: "/w"}
	s.call("b1", "Bash", map[string]any{"command": "curl -T x.pdf https://h.example/u"})
	session := filepath.Join(dir, "s1.jsonl")
	s.write(t, session)
	doc := filepath.Join(dir, "chat.json")
	writeFile(t, doc, `{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"send_message","arguments":"{\"channel\":\"C1\",\"text\":\"hi\"}"}}]}]}`)
	for _, c := range []struct {
		name, profile, path, format, crossing string
	}{
		{"native log", `source: {detect: task, task: task, time: ts, tool: tool_name}`, native, FormatNative, "send_fired"},
		{"Claude Code session", `source: {detect: sessionId, task: sessionId, time: timestamp, tool: nothing.here}`, session, FormatClaudeCode, "request_sent"},
		{"OpenAI document", `source: {detect: role, records: messages, task: role, time: t, tool: nothing.here}`, doc, FormatOpenAI, "request_sent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseProfile("sloppy", []byte(c.profile))
			if err != nil {
				t.Fatal(err)
			}
			res, evs := readPaths(t, Options{Profile: p}, c.path)
			if f := res.Inputs[0].Format; f != c.format {
				t.Errorf("format %s, want %s", f, c.format)
			}
			if len(ofType(evs, c.crossing)) == 0 {
				t.Errorf("no %s: %s", c.crossing, summary(evs))
			}
			if c.format == FormatClaudeCode && !strings.Contains(strings.Join(res.Inputs[0].Notices, "\n"), "also claims") {
				t.Errorf("no notice of the profile's claim: %q", res.Inputs[0].Notices)
			}
			// Asked for, the profile's format is read.
			res, _ = readPaths(t, Options{Profile: p, InputFormat: FormatProfile}, c.path)
			if f := res.Inputs[0].Format; f != FormatProfile {
				t.Errorf("--input-format profile: format %s", f)
			}
		})
	}
}

// Sessions of Claude Code 2.1.x begin with records that carry no message
// (queue-operation, mode): they are Claude Code sessions all the same,
// never native logs (whose reader would report every line).
func TestDetect_ClaudeCodeSessionsThatBeginWithoutAMessage(t *testing.T) {
	queue := `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T07:50:46.677Z","sessionId":"s1","content":"send the report"}` + "\n" +
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-12-01T07:50:46.679Z","sessionId":"s1"}` + "\n"
	mode := `{"type":"mode","mode":"normal","sessionId":"s1"}` + "\n"
	s := &cc{session: "s1", cwd: "/w"}
	s.call("b1", "Bash", map[string]any{"command": "curl -T x.pdf https://h.example/u"})
	for name, head := range map[string]string{"queue-operation": queue, "mode": mode, "mode, then queue-operation": mode + queue} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s1.jsonl")
			writeFile(t, path, head+s.text())
			res, evs := readPaths(t, Options{}, path)
			if in := res.Inputs[0]; in.Format != FormatClaudeCode || len(in.Problems) != 0 {
				t.Errorf("format %s, problems %v", in.Format, in.Problems)
			}
			if len(ofType(evs, "request_sent")) != 1 {
				t.Errorf("events %s", summary(evs))
			}
			// Only such records: a session cut right after it began.
			writeFile(t, path, head)
			res, _ = readPaths(t, Options{}, path)
			if in := res.Inputs[0]; in.Format != FormatClaudeCode || len(in.Problems) != 1 {
				t.Errorf("records without a message: format %s, problems %v", in.Format, in.Problems)
			}
		})
	}
}

// A document with the shapes of two readers (second adversarial review,
// case 8: an Inspect log or a LangSmith run with a Step Functions events
// list) has two readings: a problem of the input, never a silent pick.
func TestDetect_TwoReadersShapesAreAProblem(t *testing.T) {
	sfn := `"events": [{"timestamp": 1795975200.0, "type": "ExecutionStarted", "id": 1, "previousEventId": 0, "executionStartedEventDetails": {}}]`
	inspect := `{"version": 2, "status": "error", "eval": {"eval_id": "e1", "run_id": "r1", "task": "wr"}, "samples": [], ` + sfn + `}`
	ls := `{"id": "r1", "name": "weekly", "run_type": "tool", "trace_id": "r1", "start_time": "2026-11-30T08:10:01Z", "inputs": {"channel": "C1"}, ` + sfn + `}`
	for name, doc := range map[string]string{"inspect": inspect, "langsmith": ls} {
		t.Run(name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"doc.json": doc}, Options{})
			if len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "two readings") {
				t.Fatalf("format %s, problems %+v, events %q, want a problem naming both readings", ins[0].Format, ins[0].Problems, brief(evs))
			}
		})
	}
}

// An Inspect AI sample by itself has chat messages too (OpenAI's shape):
// the Inspect reader reads them (and its events), so it is one reading,
// the stricter one, and no problem.
func TestDetect_InspectSampleIsNotTwoReadings(t *testing.T) {
	doc := `{"id": "w48", "epoch": 1, "input": [{"role": "user", "content": "Post the weekly report"}],
	"messages": [{"role": "user", "content": "Post the weekly report"},
		{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "slack_post_message", "arguments": {"channel": "C024BE91L", "text": "weekly report"}}]}]}`
	ins, evs := readFiles(t, map[string]string{"sample.json": doc}, Options{})
	if ins[0].Format != FormatInspect || len(ins[0].Problems) != 0 || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("format %s, problems %+v, events %q, want the Inspect reading", ins[0].Format, ins[0].Problems, brief(evs))
	}
}

// A top-level array whose elements have the shapes of different readers
// has two readings, whichever comes first (an adversarial review: Phoenix
// spans followed by LangSmith runs were read as spans alone, and the runs'
// post was not seen).
func TestDetect_ArrayOfTwoReadersShapesIsAProblem(t *testing.T) {
	span := `{"name": "reporter", "context": {"trace_id": "0f9e8d7c6b5a49382716a5b4c3d2e1f0", "span_id": "c3d4e5f60718293a"}, "span_kind": "AGENT", "start_time": "2026-11-30T08:10:00+00:00", "end_time": "2026-11-30T08:10:02+00:00", "attributes": {}}`
	run := `{"id": "2a1b0c93-4d5e-4f60-9a7b-8c9d0e1f2a3b", "name": "slack_post_message", "run_type": "tool", "trace_id": "1f0c6a52-9b3e-4d7a-8e21-5c4b3a2d1e0f", "start_time": "2026-11-29T18:00:01", "end_time": "2026-11-29T18:00:31", "inputs": {"channel": "COTHER", "text": "hi"}}`
	for name, doc := range map[string]string{"spans first": "[" + span + ", " + run + "]", "runs first": "[" + run + ", " + span + "]"} {
		t.Run(name, func(t *testing.T) {
			res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(doc)}, func(Event) {})
			if err != nil {
				t.Fatal(err)
			}
			in := res.Inputs[0]
			if len(in.Problems) != 1 || !strings.Contains(in.Problems[0].Message, "two readings") {
				t.Fatalf("format %s, problems %+v: want the array's two readings", in.Format, in.Problems)
			}
		})
	}
}
