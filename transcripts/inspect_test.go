package transcripts

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

const inspectArgs = `{"channel": "C024BE91L", "text": "weekly report"}`

// inspectTool is a tool event; errType "" for none, pending for a call
// still running.
func inspectTool(id, errType string, pending bool) string {
	e := `{"event": "tool", "timestamp": "2026-11-30T08:10:01+00:00", "type": "function", "id": "` + id +
		`", "function": "slack_post_message", "arguments": ` + inspectArgs
	switch {
	case pending:
		e += `, "pending": true`
	case errType != "":
		e += `, "result": "", "completed": "2026-11-30T08:10:31+00:00", "error": {"type": "` + errType + `", "message": "x"}`
	default:
		e += `, "result": "{\"ok\": true}", "completed": "2026-11-30T08:10:02+00:00", "error": null`
	}
	return e + "}"
}

func inspectSampleJSON(uuid, extra string, events ...string) string {
	return `{"id": "w48", "epoch": 1, "uuid": "` + uuid + `", "input": "post it", "messages": [], "events": [` +
		strings.Join(events, ",\n") + `], "started_at": "2026-11-30T08:10:00+00:00"` + extra + `}`
}

func inspectLog(samples ...string) string {
	return `{"version": 2, "status": "success", "eval": {"eval_id": "E1", "run_id": "R1", "task": "weekly_report", "created": "2026-11-30T08:00:00+00:00",
"dataset": {"samples": 1}}, "samples": [` + "\n" + strings.Join(samples, ",\n") + "\n]}"
}

func TestInspect_ToolEvents(t *testing.T) {
	cases := []struct {
		name string
		evs  []string
		want []string
	}{
		{"a tool call that succeeds confirms", []string{inspectTool("c1", "", false)},
			[]string{"S task_started relation=root @3", "S intent dest=slack_post_message/C024BE91L @3",
				"S request_sent tool=slack_post_message @3", "S response ok=true @3", "S task_ended status=completed @3"}},
		{"a tool error after it ran is a response not ok", []string{inspectTool("c1", "timeout", false)},
			[]string{"S task_started relation=root @3", "S intent dest=slack_post_message/C024BE91L @3",
				"S request_sent tool=slack_post_message @3", "S response ok=false @3", "S task_ended status=completed @3"}},
		{"a call an approver rejected never ran", []string{inspectTool("c1", "approval", false)},
			[]string{"S task_started relation=root @3", "S task_ended status=completed @3"}},
		{"a call whose arguments did not parse never ran", []string{inspectTool("c1", "parsing", false)},
			[]string{"S task_started relation=root @3", "S task_ended status=completed @3"}},
		{"a pending call is an open crossing", []string{inspectTool("c1", "", true)},
			[]string{"S task_started relation=root @3", "S intent dest=slack_post_message/C024BE91L @3",
				"S request_sent tool=slack_post_message @3", "S task_ended status=completed @3"}},
		{"a call inside a subtask is the sample's", []string{`{"event": "subtask", "timestamp": "2026-11-30T08:10:00+00:00", "name": "poster", "events": [` + inspectTool("c1", "", false) + `]}`},
			[]string{"S task_started relation=root @3", "S intent dest=slack_post_message/C024BE91L @3",
				"S request_sent tool=slack_post_message @3", "S response ok=true @3", "S task_ended status=completed @3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", c.evs...))}, Options{})
			if ins[0].Format != FormatInspect || len(ins[0].Problems) != 0 {
				t.Fatalf("format %s, problems %+v", ins[0].Format, ins[0].Problems)
			}
			assertLines(t, "events", brief(evs), c.want)
		})
	}
	// Inspect's bash tool names its command line cmd: the shell rules read it.
	bash := `{"event": "tool", "timestamp": "2026-11-30T08:10:01+00:00", "id": "b1", "function": "bash", "arguments": {"cmd": "curl -F file=@/etc/hostname https://uploads.example.com/in"}, "completed": "2026-11-30T08:10:02+00:00", "result": "ok"}`
	_, evs := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", bash))}, Options{})
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Errorf("a curl upload in a bash call: %d request_sent, want 1 (%v)", n, brief(evs))
	}
	// A sample that errored ends failed.
	_, evs = readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", `, "error": {"message": "boom"}`, inspectTool("c1", "", false)))}, Options{})
	if last := evs[len(evs)-1]; last.Type != "task_ended" || last.Str("status") != "failed" {
		t.Errorf("last event %+v, want a failed end", last)
	}
}

func TestInspect_MessagesWithoutEvents(t *testing.T) {
	sample := `{"id": 1, "epoch": 2, "input": "x", "messages": [
{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "slack_post_message", "arguments": ` + inspectArgs + `, "type": "function"}]},
{"role": "tool", "tool_call_id": "c1", "function": "slack_post_message", "content": "", "error": {"type": "timeout", "message": "x"}},
{"role": "tool", "tool_call_id": "c9", "function": "bash", "content": "", "error": {"type": "approval", "message": "rejected"}},
{"role": "tool", "tool_call_id": "c8", "function": "bash", "content": "done"}
]}`
	ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(sample)}, Options{})
	assertLines(t, "events", brief(evs), []string{"E1/1/epoch-2 task_started relation=root @3",
		"E1/1/epoch-2 intent dest=slack_post_message/C024BE91L @4", "E1/1/epoch-2 request_sent tool=slack_post_message @4",
		"E1/1/epoch-2 response ok=false @5", "E1/1/epoch-2 task_ended status=completed @3"})
	// The result of c8, whose call is not in the sample, ran: a problem;
	// c9 was rejected: it never ran.
	if len(ins[0].Problems) != 1 || ins[0].Problems[0].Line != 7 || !strings.Contains(ins[0].Problems[0].Message, `"c8"`) {
		t.Errorf("problems %+v", ins[0].Problems)
	}
	if len(ins[0].Notices) != 1 || !strings.Contains(ins[0].Notices[0], "no event times") {
		t.Errorf("notices %q", ins[0].Notices)
	}
}

func TestInspect_ForcedOnAnotherDocumentIsAProblem(t *testing.T) {
	in, _ := readAs(t, FormatInspect, `{"messages": [{"role": "user", "content": "hi"}]}`)
	if len(in.Problems) != 1 || !strings.Contains(in.Problems[0].Message, "not an Inspect AI log") {
		t.Errorf("problems %+v", in.Problems)
	}
}

func TestInspect_LogWithoutItsSamplesIsAProblem(t *testing.T) {
	doc := `{"version": 2, "status": "success", "eval": {"eval_id": "E1", "task": "t", "dataset": {"samples": 3}}, "results": {"completed_samples": 3}}`
	ins, _ := readFiles(t, map[string]string{"log.json": doc}, Options{})
	if ins[0].Format != FormatInspect || len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "3 sample(s)") {
		t.Errorf("format %s, problems %+v", ins[0].Format, ins[0].Problems)
	}
}

// writeEval writes an .eval archive of the given members.
func writeEval(t testing.TB, path string, members map[string]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range []string{"_journal/start.json", "header.json", "samples/w48_epoch_1.json", "summaries.json"} {
		text, ok := members[name]
		if !ok {
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if path != "" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

const inspectHeader = `{"version": 2, "status": "success", "eval": {"eval_id": "E2", "run_id": "R2", "task": "weekly_report", "created": "2026-11-30T08:00:00+00:00", "dataset": {"samples": 1}}}`

// The incident across a JSON log and an .eval archive (a retry of the
// sample): the same call crosses in both samples, the first unconfirmed.
func TestInspect_EvalArchiveAndTheIncident(t *testing.T) {
	dir := t.TempDir()
	sunday := strings.ReplaceAll(inspectLog(inspectSampleJSON("sunday", `, "error": {"message": "timeout"}`, inspectTool("c1", "timeout", false))), "2026-11-30", "2026-11-29")
	if err := os.WriteFile(filepath.Join(dir, "sunday.json"), []byte(sunday), 0o644); err != nil {
		t.Fatal(err)
	}
	writeEval(t, filepath.Join(dir, "monday.eval"), map[string]string{"header.json": inspectHeader,
		"samples/w48_epoch_1.json": inspectSampleJSON("monday", "", `{"event": "sample_init", "timestamp": "2026-11-30T08:10:00+00:00"}`, inspectTool("c1", "", false)),
		"summaries.json":           `[]`})
	res, evs := readPaths(t, Options{}, dir) // the walk reads .eval files
	if len(res.Inputs) != 2 {
		t.Fatalf("inputs %+v (skipped %v)", res.Inputs, res.Skipped)
	}
	for _, in := range res.Inputs {
		if in.Format != FormatInspect || len(in.Problems) != 0 {
			t.Errorf("%s: format %s, problems %+v", in.Path, in.Format, in.Problems)
		}
	}
	var got []string
	for _, e := range evs {
		if e.Type == "request_sent" || e.Type == "response" {
			d := e.Task + " " + e.Type + " " + filepath.Base(e.File) + " " + e.Str("member")
			if e.Type == "response" {
				d += " ok=" + map[bool]string{true: "true", false: "false"}[e.Fields["ok"] == true]
			}
			got = append(got, d)
		}
	}
	assertLines(t, "crossings", got, []string{
		"monday request_sent monday.eval samples/w48_epoch_1.json", "monday response monday.eval samples/w48_epoch_1.json ok=true",
		"sunday request_sent sunday.json ", "sunday response sunday.json  ok=false"})
	// The two intents share one key: the same destination and text.
	var contents []string
	for _, e := range ofType(evs, "intent") {
		b, _ := json.Marshal(e.Fields["content"])
		contents = append(contents, string(b))
	}
	if len(contents) != 2 || contents[0] != contents[1] {
		t.Errorf("intent contents %q", contents)
	}
	// The archive's events point at lines of its member: the tool event
	// is on line 2 of the sample.
	for _, e := range evs {
		if e.Type == "request_sent" && e.Task == "monday" && e.Line != 2 {
			t.Errorf("monday's call at line %d of its member, want 2", e.Line)
		}
	}
}

func TestInspect_ArchivesThatCannotBeRead(t *testing.T) {
	sample := inspectSampleJSON("S", "", inspectTool("c1", "", false))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"an eval still running", writeEval(t, "", map[string]string{"_journal/start.json": inspectHeader, "samples/w48_epoch_1.json": sample}), "still running"},
		{"a sample that is not JSON", writeEval(t, "", map[string]string{"header.json": inspectHeader, "samples/w48_epoch_1.json": sample[:40]}), "not valid JSON"},
		{"no samples", writeEval(t, "", map[string]string{"header.json": inspectHeader}), "none of its eval's 1 sample(s)"},
		{"a cut archive", writeEval(t, "", map[string]string{"header.json": inspectHeader, "samples/w48_epoch_1.json": sample})[:60], "broken zip archive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var evs []Event
			res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(c.data)}, func(e Event) { evs = append(evs, e) })
			if err != nil {
				t.Fatal(err)
			}
			in := res.Inputs[0]
			var msgs []string
			for _, p := range in.Problems {
				msgs = append(msgs, p.Message)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), c.want) {
				t.Errorf("problems %q, want one saying %q (format %s, %d events)", msgs, c.want, in.Format, len(evs))
			}
		})
	}
	// A zip that is no .eval (nor a Playwright trace) is listed, not read.
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("notes.json")
	w.Write([]byte("{}"))
	zw.Close()
	res, _ := Read([]string{"-"}, Options{Stdin: bytes.NewReader(b.Bytes())}, func(Event) {})
	if in := res.Inputs[0]; in.Format != FormatUnknown || len(in.Notices) != 1 || !strings.Contains(in.Notices[0], "zip archive no reader knows") {
		t.Errorf("a foreign zip: format %s, notices %q, problems %+v", in.Format, in.Notices, in.Problems)
	}
}

// TestInspect_Corpus reads Inspect AI's hand-redacted test log: its tool
// messages answer calls the log does not hold. Those that ran (timeout,
// permission, ...) are problems of the sample: what they ran cannot be
// seen; those whose error says they never ran (parsing, approval) are not.
func TestInspect_Corpus(t *testing.T) {
	dir := sharedtest.Path(t, "corpus/inspect-ai")
	res, evs := readPaths(t, Options{}, dir)
	if len(res.Inputs) != 1 {
		t.Fatalf("%d inputs", len(res.Inputs))
	}
	in := res.Inputs[0]
	if in.Format != FormatInspect {
		t.Fatalf("format %s", in.Format)
	}
	var ids []string
	counted := 0
	for _, p := range in.Problems {
		// The log's results count 4 samples (1 sample, 4 epochs), and it
		// holds only the fourth epoch: the other three are missing.
		if p.Task == "" && strings.Contains(p.Message, "holds 1 of its eval's 4 sample(s)") {
			counted++
			continue
		}
		if p.Task != ".../1/epoch-4" || !strings.Contains(p.Message, "whose call is not in the log") {
			t.Errorf("problem %+v", p)
		}
		ids = append(ids, strings.Split(p.Message, `"`)[1])
	}
	if got := strings.Join(ids, " "); got != "bash_2 bash_4 bash_5 bash_6 bash_7 bash_8 bash_10 bash_11" {
		t.Errorf("problems for %s", got)
	}
	if counted != 1 {
		t.Errorf("%d problems for the samples the log counts and does not hold, want 1", counted)
	}
	assertLines(t, "events", brief(evs), []string{".../1/epoch-4 task_started relation=root @87", ".../1/epoch-4 task_ended status=completed @87"})
}

// FuzzReadInspect: Inspect AI JSON logs and samples, read as forced.
func FuzzReadInspect(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-inspect-ai-*/*.json", "../../shared/corpus/inspect-ai/*.json"))
	f.Add([]byte(inspectLog(inspectSampleJSON("S", "", inspectTool("c1", "approval", false), inspectTool("c1", "", true), `{"event": "subtask", "events": [{"event": "tool"}]}`))))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatInspect})
		documentSaid(t, data, in, evs)
	})
}

// FuzzReadInspectArchive: .eval archives. The line invariants of fuzzRead
// do not hold (lines are the members'), so this checks the rest: no
// error, events counted and complete, problems with a message, something
// said, the same result twice.
func FuzzReadInspectArchive(f *testing.F) {
	sample := inspectSampleJSON("S", "", inspectTool("c1", "timeout", false), inspectTool("c2", "", true))
	f.Add(writeEval(f, "", map[string]string{"header.json": inspectHeader, "samples/w48_epoch_1.json": sample}))
	f.Add(writeEval(f, "", map[string]string{"_journal/start.json": inspectHeader, "samples/w48_epoch_1.json": sample[:50]}))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func() (Input, []Event) {
			var evs []Event
			res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(data), MaxDocumentBytes: 1 << 20}, func(e Event) { evs = append(evs, e) })
			if err != nil || len(res.Inputs) != 1 {
				t.Fatalf("Read: %v, %d inputs", err, len(res.Inputs))
			}
			return res.Inputs[0], evs
		}
		in, evs := read()
		if in.Events != len(evs) {
			t.Fatalf("the input counts %d events, %d were emitted", in.Events, len(evs))
		}
		for _, e := range evs {
			if e.Task == "" || e.Type == "" || e.Line < 1 || e.TS.IsZero() || e.TS.Year() > 9999 {
				t.Fatalf("bad event %+v", e)
			}
			if _, err := json.Marshal(e.Fields); err != nil {
				t.Fatalf("fields do not encode: %v", err)
			}
		}
		for _, p := range in.Problems {
			if p.File != "-" || p.Line < 1 || p.Message == "" || len(p.Message) > maxMessage {
				t.Fatalf("bad problem %+v", p)
			}
		}
		if len(bytes.TrimSpace(data)) > 0 && len(evs) == 0 && len(in.Problems) == 0 && len(in.Notices) == 0 {
			t.Fatalf("nothing said (format %s)", in.Format)
		}
		again, evs2 := read()
		if !sameEvents(evs, evs2) || len(again.Problems) != len(in.Problems) {
			t.Fatalf("reading the same archive twice differs")
		}
	})
}

func TestInspect_CondensedArgumentsAndEventsWithoutToolEvents(t *testing.T) {
	tool := func(text string) string {
		return `{"event": "tool", "timestamp": "2026-11-30T08:10:01+00:00", "id": "c1", "function": "slack_post_message", "arguments": {"channel": "C024BE91L", "text": "` +
			text + `"}, "result": "ok", "completed": "2026-11-30T08:10:02+00:00"}`
	}
	keyOf := func(evs []Event) string {
		for _, e := range evs {
			if e.Type == "intent" {
				b, _ := json.Marshal(e.Fields["content"])
				return string(b)
			}
		}
		for _, e := range evs {
			if e.Type == "request_sent" {
				return "unkeyed " + e.Str("intent")
			}
		}
		return "none"
	}
	_, plain := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", tool("weekly report")))}, Options{})
	// The text condensed into the sample's attachments is the same content.
	_, condensed := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", `, "attachments": {"a1b2": "weekly report"}`, tool("attachment://a1b2")))}, Options{})
	if keyOf(plain) != keyOf(condensed) || strings.HasPrefix(keyOf(plain), "unkeyed") {
		t.Errorf("plain %s, condensed %s: want one key", keyOf(plain), keyOf(condensed))
	}
	// An attachment the log lacks: the content is unknown, no key.
	_, lost := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", tool("attachment://gone")))}, Options{})
	if !strings.HasPrefix(keyOf(lost), "unkeyed unkeyed-call:") {
		t.Errorf("a lost attachment: %s, want an unkeyed crossing", keyOf(lost))
	}
	// Events that hold no tool event: the messages are read.
	sample := `{"id": 1, "epoch": 1, "input": "x", "events": [{"event": "sample_init", "timestamp": "2026-11-30T08:10:00+00:00"}], "messages": [
{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "slack_post_message", "arguments": ` + inspectArgs + `}]}]}`
	_, evs := readFiles(t, map[string]string{"log.json": inspectLog(sample)}, Options{})
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Errorf("%d request_sent from the messages, want 1", n)
	}
}

// An archive is read by its members whatever --input-format says, on the
// parallel path too (several files, native forced): the same result as
// one file read alone.
func TestInspect_ArchiveForcedNativeIsStillAnArchive(t *testing.T) {
	dir := t.TempDir()
	sample := inspectSampleJSON("S", "", inspectTool("c1", "", false))
	writeEval(t, filepath.Join(dir, "a.eval"), map[string]string{"header.json": inspectHeader, "samples/w48_epoch_1.json": sample})
	for _, n := range []string{"b.jsonl", "c.jsonl"} {
		os.WriteFile(filepath.Join(dir, n), []byte(`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"root"}`+"\n"), 0o644)
	}
	res, evs := readPaths(t, Options{InputFormat: FormatNative}, dir)
	if res.Inputs[0].Format != FormatInspect || len(res.Inputs[0].Problems) != 0 || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("a.eval forced native among other files: format %s, problems %+v", res.Inputs[0].Format, res.Inputs[0].Problems)
	}
}
