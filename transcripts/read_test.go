package transcripts

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const good = `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"send_fired"}`

func readString(t *testing.T, content string, maxLine int) (Input, []Event) {
	t.Helper()
	var evs []Event
	res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(content), MaxLineBytes: maxLine}, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 {
		t.Fatalf("got %d inputs", len(res.Inputs))
	}
	return res.Inputs[0], evs
}

func TestRead_BadInputBecomesProblemsAndKeepsReadableEvents(t *testing.T) {
	cases := []struct {
		name        string
		content     string
		events      int
		problemLine int    // 0: no problem expected
		problemTask string // task the problem is attributed to
		problemHas  string
	}{
		{"well formed", good + "\n" + good + "\n", 2, 0, "", ""},
		{"no final newline but valid", good + "\n" + good, 2, 0, "", ""},
		{"CRLF line ends", good + "\r\n" + good + "\r\n", 2, 0, "", ""},
		{"blank lines are skipped", "\n" + good + "\n   \n" + good + "\n", 2, 0, "", ""},
		{"empty file", "", 0, 1, "", "empty"},
		{"only whitespace", " \n\t\n", 0, 1, "", "empty"},
		{"truncated last line names no task", good + "\n" + `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"ui_ch`, 1, 2, "", "truncated last line"},
		{"line cut mid-string keeps its task", `{"ts":"2026-11-30T07:00:01Z","task":"t7","type":"send_fi` + "\n" + good + "\n", 1, 1, "t7", "not valid JSON"},
		{"invalid UTF-8", good + "\n" + `{"ts":"2026-11-30T07:00:01Z","task":"t2","type":"ui_changed","detail":"` + "\xff\xfe" + `"}` + "\n", 1, 2, "t2", "UTF-8"},
		{"NUL bytes", "\x00\x00\x00binary\n" + good + "\n", 1, 1, "", "not valid JSON"},
		{"not an object", "[1,2,3]\n" + good + "\n", 1, 1, "", "not a JSON object"},
		{"missing task", `{"ts":"2026-11-30T07:00:00Z","type":"send_fired"}` + "\n", 0, 1, "", "missing task"},
		{"missing ts", `{"task":"t3","type":"send_fired"}` + "\n", 0, 1, "t3", "missing ts"},
		{"ts without offset", `{"ts":"2026-11-30 07:00","task":"t3","type":"send_fired"}` + "\n", 0, 1, "t3", "RFC 3339"},
		{"missing type", `{"ts":"2026-11-30T07:00:00Z","task":"t3"}` + "\n", 0, 1, "t3", "missing type"},
		{"bad field keeps the event", `{"ts":"2026-11-30T07:00:00Z","task":"t4","type":"gate_check","checkpoint":"send","decision":"maybe"}` + "\n", 1, 1, "t4", "decision must be allow or stop"},
		// SPEC §3 names by and reason for every record (adversarial review: a record without them opened a scope).
		{"authorization without by", `{"ts":"2026-11-30T07:00:00Z","task":"ops","type":"authorization","authorization":"A1","reason":"again","key":"v1|dest=slack/C1|sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}` + "\n", 1, 1, "ops", "by must be a non-empty string"},
		{"authorization without reason", `{"ts":"2026-11-30T07:00:00Z","task":"ops","type":"authorization","authorization":"A1","by":"alice","key":"v1|dest=slack/C1|sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}` + "\n", 1, 1, "ops", "reason must be a non-empty string"},
		{"authorization whose by is white space", `{"ts":"2026-11-30T07:00:00Z","task":"ops","type":"authorization","authorization":"A1","by":" \t","reason":"again","key":"v1|dest=slack/C1|sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}` + "\n", 1, 1, "ops", "by must say something"},
		{"authorization whose reason is a zero-width space", `{"ts":"2026-11-30T07:00:00Z","task":"ops","type":"authorization","authorization":"A1","by":"alice","reason":"\u200b","key":"v1|dest=slack/C1|sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}` + "\n", 1, 1, "ops", "reason must say something"},
		{"authorization with by and reason", `{"ts":"2026-11-30T07:00:00Z","task":"ops","type":"authorization","authorization":"A1","by":"alice","reason":"again","key":"v1|dest=slack/C1|sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}` + "\n", 1, 0, "", ""},
		{"response without ok", `{"ts":"2026-11-30T07:00:00Z","task":"t4","type":"response"}` + "\n", 1, 1, "t4", "ok must be"},
		{"deeply nested JSON", `{"ts":"2026-11-30T07:00:00Z","task":"t5","type":"ui_changed","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}\n", 1, 0, "", ""},
		{"nesting deeper than any stack", strings.Repeat("[", 20<<20) + "\n" + good + "\n", 1, 1, "", "not valid JSON"},
		{"huge number", `{"ts":"2026-11-30T07:00:00Z","task":"t5","type":"response","ok":true,"status":1e999999}` + "\n", 1, 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, evs := readString(t, c.content, 0)
			if len(evs) != c.events || in.Events != c.events {
				t.Errorf("events = %d (input says %d), want %d", len(evs), in.Events, c.events)
			}
			if c.problemLine == 0 {
				if len(in.Problems) != 0 {
					t.Errorf("unexpected problems: %+v", in.Problems)
				}
				return
			}
			if len(in.Problems) != 1 {
				t.Fatalf("problems = %+v, want one", in.Problems)
			}
			p := in.Problems[0]
			if p.Line != c.problemLine || p.Task != c.problemTask || !strings.Contains(p.Message, c.problemHas) || p.File != "-" {
				t.Errorf("problem = %+v, want line %d task %q message containing %q", p, c.problemLine, c.problemTask, c.problemHas)
			}
		})
	}
}

func TestRead_HugeLineIsAProblemAndReadingGoesOn(t *testing.T) {
	huge := `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat("x", 20<<20) + `"}`
	in, evs := readString(t, huge+"\n"+good+"\n", 1<<20)
	if len(evs) != 1 || evs[0].Line != 2 {
		t.Fatalf("events = %+v, want the line after the huge one", evs)
	}
	if len(in.Problems) != 1 || in.Problems[0].Line != 1 || in.Problems[0].Task != "t1" || !strings.Contains(in.Problems[0].Message, "longer than") {
		t.Fatalf("problems = %+v", in.Problems)
	}
}

func TestRead_UnknownTypeIsKeptAndNoticed(t *testing.T) {
	in, evs := readString(t, `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"heartbeat","x":1}`+"\n", 0)
	if len(evs) != 1 || evs[0].Type != "heartbeat" || evs[0].Fields["x"] != json.Number("1") {
		t.Fatalf("events = %+v", evs)
	}
	if len(in.Problems) != 0 || len(in.Notices) != 1 || !strings.Contains(in.Notices[0], "heartbeat") {
		t.Fatalf("problems %+v notices %+v", in.Problems, in.Notices)
	}
}

func TestRead_GzipByMagicBytes(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(good + "\n" + good + "\n"))
	zw.Close()
	in, evs := readString(t, buf.String(), 0)
	if len(evs) != 2 || len(in.Problems) != 0 {
		t.Fatalf("events %d problems %+v", len(evs), in.Problems)
	}
	cut := buf.Bytes()[:buf.Len()-12]
	in, _ = readString(t, string(cut), 0)
	if len(in.Problems) == 0 {
		t.Fatalf("a cut gzip stream must be a problem")
	}
}

func TestRead_WalksDirectoriesInPathOrderAndSkipsTheRest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.jsonl", good+"\n")
	write("a dir/ä.ndjson", good+"\n")
	write("notes.txt", "hello")
	write("report.pdf", "%PDF")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o644); err != nil {
		t.Logf("no FIFO support: %v", err)
	}
	os.Symlink(dir, filepath.Join(dir, "loop")) // a link back to the root: must not loop
	res, err := Read([]string{dir}, Options{}, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, in := range res.Inputs {
		paths = append(paths, strings.TrimPrefix(in.Path, filepath.ToSlash(dir)+"/"))
	}
	if strings.Join(paths, ",") != "a dir/ä.ndjson,b.jsonl" {
		t.Errorf("inputs = %v", paths)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, strings.TrimPrefix(s, filepath.ToSlash(dir)+"/"))
	}
	want := "notes.txt,pipe.jsonl,report.pdf"
	if _, err := os.Stat(filepath.Join(dir, "pipe.jsonl")); err != nil {
		want = "notes.txt,report.pdf"
	}
	if strings.Join(skipped, ",") != want+",loop" && strings.Join(skipped, ",") != "loop,"+want && strings.Join(skipped, ",") != want {
		t.Errorf("skipped = %v, want %s (and the link)", skipped, want)
	}
}

func TestRead_IgnoreLeavesWalkedFilesOutButReadsNamedOnes(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"t.jsonl": good + "\n", "expected.yaml": "states: {}\n", "old.json": good + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ignore := func(p string) bool {
		return strings.HasSuffix(p, "/expected.yaml") || strings.HasSuffix(p, "/old.json")
	}
	res, err := Read([]string{dir}, Options{Ignore: ignore}, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || !strings.HasSuffix(res.Inputs[0].Path, "/t.jsonl") || len(res.Skipped) != 0 {
		t.Errorf("inputs %v, skipped %v; want only t.jsonl and nothing skipped", res.Inputs, res.Skipped)
	}
	named := filepath.Join(dir, "old.json")
	res, err = Read([]string{named}, Options{Ignore: ignore}, func(Event) {})
	if err != nil || len(res.Inputs) != 1 {
		t.Errorf("a file named as an argument was not read: %v %v", res.Inputs, err)
	}
}

func TestRead_NonexistentPathIsAnError(t *testing.T) {
	_, err := Read([]string{filepath.Join(t.TempDir(), "nope.jsonl")}, Options{}, func(Event) {})
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Fatalf("err = %v", err)
	}
}

func TestRead_UnreadableFileIsAProblem(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of permissions")
	}
	p := filepath.Join(t.TempDir(), "locked.jsonl")
	os.WriteFile(p, []byte(good+"\n"), 0o000)
	res, err := Read([]string{p}, Options{}, func(Event) {})
	if err != nil || len(res.Inputs) != 1 || len(res.Inputs[0].Problems) != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// readAs reads content as standard input in a forced format ("" detects).
func readAs(t *testing.T, format, content string) (Input, []Event) {
	t.Helper()
	var evs []Event
	res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(content), InputFormat: format}, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	return res.Inputs[0], evs
}

func types(evs []Event) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}

// A document cut while it was written, or broken in the middle, keeps
// every record before the break; the record the break went through is not
// read (what is left of it could read as an outcome it never had), and the
// break is a problem of no task.
func TestRead_BrokenDocumentKeepsTheRecordsBeforeTheBreak(t *testing.T) {
	const call = `{"type": "mcp_call", "id": "mcp_000000000001", "server_label": "slack", "name": "post_message", "arguments": "{\"channel_id\":\"C1\",\"text\":\"x\"}", "output": "ok", "status": "completed"}`
	const openAI = "{\n\"id\": \"resp_1\", \"created_at\": 1795975200,\n\"output\": [\n" + call + ",\n" +
		`{"type": "mcp_call", "id": "mcp_000000000002", "server_label": "slack", "name": "post_message", "arguments": "{\"channel_id\":\"C2\",\"text\":\"x\"}", "status": "completed"` + "\n]\n}\n"
	cases := []struct {
		name, format, content string
		types                 string // events read
		line                  int    // of the problem
		has                   string
	}{
		{"cut inside the last item", "", openAI[:strings.LastIndex(openAI, `"status"`)], "task_started,intent,request_sent,response", 5, "ends early"},
		{"broken inside the last item", "", strings.Replace(openAI, `"status": "completed"`+"\n", `"status": "compl`+"\n", 1), "task_started,intent,request_sent,response", 5, "broken at line 5"},
		{"an item never closed", "", strings.Replace(openAI, `"status": "completed"`+"\n", `"status": "completed"`+"\n,", 1), "task_started,intent,request_sent,response", 6, "broken at line 6"},
		{"one minified line, cut", "", strings.ReplaceAll(openAI, "\n", "")[:300], "task_started,intent,request_sent,response", 1, "ends early"},
		{"forced format, cut", FormatOpenAI, openAI[:200], "task_started", 4, "ends early"},
		{"NUL bytes in the middle", "", strings.Replace(openAI, `"status": "completed"`+"\n", "\x00\x00\x00\n", 1), "task_started,intent,request_sent,response", 5, `"\x00\x00\x00`},
		{"temporal history cut in an event", "", `{"events": [
{"eventId": "1", "eventTime": "2026-11-30T07:00:00Z", "eventType": "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "workflowExecutionStartedEventAttributes": {"originalExecutionRunId": "run-1"}},
{"eventId": "2", "eventTime": "2026-11-30T07:00:01Z", "eventType": "EVENT_TYPE_WORKFLOW_EXECUTION_COMPL`, "task_started", 3, "ends early"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, evs := readAs(t, c.format, c.content)
			if got := types(evs); got != c.types {
				t.Errorf("events %s, want %s", got, c.types)
			}
			if len(in.Problems) != 1 || in.Problems[0].Line != c.line || in.Problems[0].Task != "" || !strings.Contains(in.Problems[0].Message, c.has) {
				t.Errorf("problems %+v, want one of no task at line %d saying %q", in.Problems, c.line, c.has)
			}
		})
	}
}

func TestRead_DocumentWithInvalidUTF8IsReadAndAProblem(t *testing.T) {
	in, evs := readAs(t, "", "[\n{\"role\": \"user\", \"content\": \"caf\xe9\"},\n{\"role\": \"assistant\", \"content\": \"ok\"}\n]\n")
	if types(evs) != "task_started" || len(in.Problems) != 1 || in.Problems[0].Line != 2 || !strings.Contains(in.Problems[0].Message, "UTF-8") {
		t.Fatalf("events %s problems %+v", types(evs), in.Problems)
	}
}

func TestRead_ForcedFormatOnEmptyInputSaysEmpty(t *testing.T) {
	for _, f := range Formats {
		if f == FormatProfile {
			continue // needs a profile
		}
		in, evs := readAs(t, f, " \n")
		if in.Format != f || len(evs) != 0 || len(in.Problems) != 1 || !strings.Contains(in.Problems[0].Message, "empty") {
			t.Errorf("%s: format %s, %d events, problems %+v", f, in.Format, len(evs), in.Problems)
		}
	}
}

// Claude Code lines that carry messages but cannot be placed (no session,
// no readable time) are problems, not silently dropped; record types this
// version does not know are noticed; a file with no message line at all is
// like an empty log.
func TestRead_ClaudeCodeLinesThatCannotBePlaced(t *testing.T) {
	const ok = `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-11-30T07:00:00Z","message":{"role":"user","content":"hi"}}`
	cases := []struct {
		name, content string
		line          int
		task, has     string
		notice        string
	}{
		{"no timestamp", ok + "\n" + `{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"content":[]}}` + "\n", 2, "s1", "timestamp", ""},
		{"a timestamp beyond any clock", ok + "\n" + `{"type":"assistant","sessionId":"s1","uuid":"a1","timestamp":1e300,"message":{"content":[]}}` + "\n", 2, "s1", "timestamp", ""},
		{"no session", ok + "\n" + `{"type":"assistant","uuid":"a1","timestamp":"2026-11-30T07:00:01Z","message":{"content":[]}}` + "\n", 2, "", "sessionId", ""},
		{"only a snapshot", `{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}` + "\n", 1, "", "no message line", ""},
		{"an unknown record type", ok + "\n" + `{"type":"telemetry-ping","sessionId":"s1","timestamp":"2026-11-30T07:00:01Z"}` + "\n", 0, "", "", `"telemetry-ping" (1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, _ := readAs(t, FormatClaudeCode, c.content)
			if c.line == 0 {
				if len(in.Problems) != 0 {
					t.Errorf("problems %+v", in.Problems)
				}
			} else if len(in.Problems) != 1 || in.Problems[0].Line != c.line || in.Problems[0].Task != c.task || !strings.Contains(in.Problems[0].Message, c.has) {
				t.Errorf("problems %+v, want one at line %d of task %q saying %q", in.Problems, c.line, c.task, c.has)
			}
			if c.notice != "" && !strings.Contains(strings.Join(in.Notices, "|"), c.notice) {
				t.Errorf("notices %q, want %q", in.Notices, c.notice)
			}
		})
	}
}

// A log whose first lines are mostly garbage is still JSON Lines: it used
// to be taken for a broken document, one problem, and its readable lines
// lost.
func TestRead_GarbageFirstLinesDoNotMakeADocument(t *testing.T) {
	content := good + "\n" + strings.Repeat("{garbage\n", 9) + good + "\n"
	in, evs := readString(t, content, 0)
	if len(evs) != 2 || len(in.Problems) != 9 || in.Format != FormatNative {
		t.Fatalf("format %s, %d events, %d problems", in.Format, len(evs), len(in.Problems))
	}
}

func TestIsTranscriptName_RotatedLogsToo(t *testing.T) {
	for name, want := range map[string]bool{
		"events.jsonl": true, "EVENTS.JSONL": true, "a.ndjson.gz": true, "h.json": true,
		"events.jsonl.1": true, "events.jsonl.12.gz": true, "events.jsonl-20261130": true, "events.ndjson-20261130.gz": true,
		"notes.txt": false, "report.pdf": false, "events.jsonl.bak": false, "events.jsonl-1": false,
		"events.jsonl.123456789": false, "x.log.1": false, "jsonl": false,
		"trace.zip": true, "run-1.ZIP.gz": true, "a.eval": true, "zip": false, "trace.zipx": false,
	} {
		if got := IsTranscriptName(name); got != want {
			t.Errorf("IsTranscriptName(%q) = %v, want %v", name, got, want)
		}
	}
}
