package cmd

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/transcripts"
)

// The bad-input matrix: every reader × every kind of damage. Each reader
// has a good history (one task that delivered to slack/COTHER and got a
// confirmation) written one record a line, with one record that carries no
// evidence (the pad) where damage goes: in JSON Lines anywhere, in a
// document the last record. For each cell the table says what is correct,
// from SPEC §3–§5 and the README's choices:
//
//   - problem: the damage is a problem at that line, its message saying
//     so, and then every `check` stops (a history that may hold an intent
//     for any key is incomplete: HISTORY_UNREADABLE) and analyze fails
//     (UNREADABLE_HISTORY); no problem: the check of an unrelated key
//     allows and analyze passes, as for the good history;
//   - kept: every event read from the good history is still read (the
//     damage hides no evidence it did not destroy);
//   - and always: no panic, and reading stays within a time and memory
//     bound measured here (generous, for a loaded two-core machine).
//
// The check asks for a key nobody touched (slack/CKEY) for a new task, so
// on the good history it allows (NO_MATCHING_HISTORY): a stop can only come
// from the damage.

const (
	matrixKeySHA = "1111111111111111111111111111111111111111111111111111111111111111"
	otherSHA     = "2222222222222222222222222222222222222222222222222222222222222222"
	twentyMB     = 20 << 20
)

// pad is what damage puts into a fixture's pad record.
type pad struct {
	ts   string // the record's time, as a JSON value; "" leaves it out
	text string // a string field (raw bytes, not escaped: damage may break JSON on purpose)
	raw  string // a JSON value of an extra field; "" for none
}

type fixture struct {
	name   string
	ext    string // the extension its files have
	head   []string
	tail   []string
	padAt  int // index in head before which the pad goes
	record func(p pad) string
	// unknown is a record of a type this version does not know.
	unknown string
	// ts formats a time for this reader's records (a JSON value).
	ts func(t string) string
	// flags are the flags every command on this fixture needs.
	flags []string
}

func (f fixture) with(padLine string) string {
	lines := append(append(append([]string{}, f.head[:f.padAt]...), padLine), f.head[f.padAt:]...)
	return strings.Join(append(lines, f.tail...), "\n") + "\n"
}

func (f fixture) good() string {
	return f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "padding"}))
}

func jsonQ(s string) string { return fmt.Sprintf("%q", s) }

func rfc(t string) string { return jsonQ(t) }

func unixSecs(t string) string {
	tt, _ := time.Parse(time.RFC3339, t)
	return fmt.Sprint(tt.Unix())
}

func unixNanos(t string) string {
	tt, _ := time.Parse(time.RFC3339, t)
	return jsonQ(fmt.Sprint(tt.UnixNano()))
}

// field renders `,"name":value` when value is set.
func field(name, value string) string {
	if value == "" {
		return ""
	}
	return `,"` + name + `":` + value
}

func fixtures() []fixture {
	delivery := base64.StdEncoding.EncodeToString([]byte(`{"destination":"slack/COTHER","content_sha256":"` + otherSHA + `"}`))
	return []fixture{
		{
			name: "native", ext: ".jsonl", padAt: 5, ts: rfc,
			head: []string{
				`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"root"}`,
				`{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"COTHER"},"content":{"sha256":"` + otherSHA + `"}}`,
				`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"gate_check","checkpoint":"send","decision":"allow"}`,
				`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"send_fired"}`,
				`{"ts":"2026-11-30T07:00:04Z","task":"t1","type":"readback","result":"confirmed"}`,
				`{"ts":"2026-11-30T07:00:05Z","task":"t1","type":"task_ended","status":"completed"}`,
			},
			record: func(p pad) string {
				return `{"task":"pad","type":"task_started","relation":"root","note":"` + p.text + `"` + field("ts", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"heartbeat"}`,
		},
		{
			name: "claude-code", ext: ".jsonl", padAt: 2, ts: rfc,
			head: []string{
				`{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-11-30T07:00:00Z","message":{"role":"user","content":"post the report"}}`,
				`{"type":"assistant","sessionId":"s1","uuid":"a1","timestamp":"2026-11-30T07:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__slack__slack_post_message","input":{"channel_id":"COTHER","text":"weekly report"}}]}}`,
				`{"type":"user","sessionId":"s1","uuid":"u2","timestamp":"2026-11-30T07:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`,
			},
			record: func(p pad) string {
				return `{"type":"user","sessionId":"s1","uuid":"pad","message":{"role":"user","content":"` + p.text + `"}` + field("timestamp", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"type":"attachment","sessionId":"s1","uuid":"u9","timestamp":"2026-11-30T07:00:03Z"}`,
		},
		{
			name: "openai", ext: ".json", padAt: 4, ts: unixSecs,
			head: []string{
				`{`,
				`"id": "resp_1", "created_at": 1795935600, "conversation": {"id": "conv_1"},`,
				`"output": [`,
				`{"type": "mcp_call", "id": "mcp_000000000001", "server_label": "slack", "name": "slack_post_message", "arguments": "{\"channel_id\":\"COTHER\",\"text\":\"weekly report\"}", "output": "ok", "status": "completed"},`,
			},
			tail: []string{`]`, `}`},
			record: func(p pad) string {
				return `{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "` + p.text + `"}]` + field("created_at", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"type": "future_call", "id": "fc_1"}`,
		},
		{
			name: "otel", ext: ".json", padAt: 3, ts: unixNanos,
			head: []string{
				`{"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "agent"}, "spans": [`,
				`{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "invoke_agent reporter", "startTimeUnixNano": "1795935600000000000", "endTimeUnixNano": "1795935660000000000", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}], "status": {"code": 1}},`,
				`{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00f067aa0ba902b7", "parentSpanId": "b7ad6b7169203331", "name": "execute_tool slack_post_message", "startTimeUnixNano": "1795935601000000000", "endTimeUnixNano": "1795935605000000000", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}, {"key": "gen_ai.tool.name", "value": {"stringValue": "slack_post_message"}}, {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\"channel_id\":\"COTHER\",\"text\":\"weekly report\"}"}}], "status": {"code": 1}},`,
			},
			tail: []string{`]}]}]}`},
			record: func(p pad) string {
				return `{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "1111111111111111", "parentSpanId": "b7ad6b7169203331", "name": "GET /status", "attributes": [{"key": "http.note", "value": {"stringValue": "` + p.text + `"}}]` +
					field("startTimeUnixNano", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "2222222222222222", "parentSpanId": "b7ad6b7169203331", "name": "future_op", "startTimeUnixNano": "1795935603000000000", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "future_op"}}]}`,
		},
		{
			name: "temporal", ext: ".json", padAt: 5, ts: rfc,
			head: []string{
				`{"events": [`,
				`{"eventId": "1", "eventTime": "2026-11-30T07:00:00Z", "eventType": "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "workflowExecutionStartedEventAttributes": {"workflowType": {"name": "Report"}, "originalExecutionRunId": "run-1", "firstExecutionRunId": "run-1"}},`,
				`{"eventId": "2", "eventTime": "2026-11-30T07:00:01Z", "eventType": "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED", "activityTaskScheduledEventAttributes": {"activityId": "1", "activityType": {"name": "PostMessage"}, "input": {"payloads": [{"metadata": {"encoding": "anNvbi9wbGFpbg=="}, "data": "` + delivery + `"}]}}},`,
				`{"eventId": "3", "eventTime": "2026-11-30T07:00:02Z", "eventType": "EVENT_TYPE_ACTIVITY_TASK_STARTED", "activityTaskStartedEventAttributes": {"scheduledEventId": "2", "attempt": 1}},`,
				`{"eventId": "4", "eventTime": "2026-11-30T07:00:04Z", "eventType": "EVENT_TYPE_ACTIVITY_TASK_COMPLETED", "activityTaskCompletedEventAttributes": {"scheduledEventId": "2", "startedEventId": "3"}},`,
			},
			tail: []string{`]}`},
			record: func(p pad) string {
				return `{"eventId": "5", "eventType": "EVENT_TYPE_WORKFLOW_TASK_SCHEDULED", "workflowTaskScheduledEventAttributes": {"taskQueue": {"name": "` + p.text + `"}}` + field("eventTime", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"eventId": "5", "eventTime": "2026-11-30T07:00:03Z", "eventType": "EVENT_TYPE_FUTURE_THING", "futureThingEventAttributes": {}}`,
		},
		{
			name: "profile", ext: ".jsonl", padAt: 1, ts: unixSecs, flags: []string{"--profile", "../testdata/profiles/acme.yaml"},
			head: []string{
				`{"kind":"session.open","session":"run-1","at":1795935600}`,
				`{"kind":"tool.invoke","session":"run-1","at":1795935601,"call":{"id":"c1","fn":"notify_post","params":{"room":"other-room","body":"weekly report"}}}`,
				`{"kind":"tool.result","session":"run-1","at":1795935605,"result_for":"c1","failure":null}`,
			},
			record: func(p pad) string {
				return `{"kind":"note","session":"run-1","text":"` + p.text + `"` + field("at", p.ts) + field("x", p.raw) + `}`
			},
			unknown: `{"kind":"future.thing","session":"run-1","at":1795935603}`,
		},
	}
}

// cell is one kind of damage and what is correct for it.
type cell struct {
	kind    string
	content string
	ext     string   // "" for the fixture's own
	flags   []string // more flags for read, check and analyze
	// problem: the line and a part of the message of the one problem the
	// damage must be (line 0: no problem at all).
	line int
	has  string
	// kept: every event of the good history is still read.
	kept bool
	// analyze is analyze's exit code; check's follows from the problem.
	analyze int
	// finding must be in analyze's report (UNREADABLE_HISTORY always is
	// when there is a problem).
	finding string
	// why states the choice when it is not "a problem where something is
	// wrong, kept events, nothing else".
	why string
}

func deepValue(levels int) string { return strings.Repeat("[", levels) + strings.Repeat("]", levels) }

// cells returns the damage done to a fixture. JSON Lines and documents
// differ where a break in a document ends what can be read.
func cells(f fixture) []cell {
	doc := f.ext == ".json"
	padLine := f.padAt + 1 // 1-based line of the pad
	lines := strings.Split(strings.TrimSuffix(f.good(), "\n"), "\n")
	good := f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "padding"})
	var cs []cell
	add := func(c cell) { cs = append(cs, c) }

	// A run that read no event exits 2 (SPEC §7), after reporting the
	// empty input as unreadable.
	add(cell{kind: "empty file", content: "", line: 1, has: "empty", analyze: ExitError,
		why: "a crash right after creating the log leaves it: no crossing can be ruled out"})
	add(cell{kind: "only whitespace", content: " \n\t \n\n", line: 1, has: "empty", analyze: ExitError})

	// A truncated last line: JSON Lines get a cut record appended; a
	// document is cut inside its last record.
	if doc {
		cut := strings.Join(lines[:padLine-1], "\n") + "\n" + good[:len(good)/2]
		add(cell{kind: "truncated last line", content: cut, line: padLine, has: "ends early", kept: true, analyze: ExitFindings,
			why: "the records before the cut are read; the one it cut is not"})
	} else {
		add(cell{kind: "truncated last line", content: f.good() + good[:len(good)/2], line: len(lines) + 1, has: "truncated last line", kept: true, analyze: ExitFindings,
			why: "the file may have been cut: lines of any task may be missing, so the problem names no task"})
	}

	// A line cut in the middle of a string, the rest of the input intact.
	cutString := f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "pad"})
	cutString = cutString[:strings.Index(cutString, `"pad`)+3]
	if doc {
		add(cell{kind: "line cut mid-string", content: f.with(cutString), line: padLine, has: "broken at line", kept: true, analyze: ExitFindings,
			why: "a document broken in the middle is read up to the break; what follows is not"})
	} else {
		add(cell{kind: "line cut mid-string", content: f.with(cutString), line: padLine, has: "not valid JSON", kept: true, analyze: ExitFindings})
	}

	add(cell{kind: "invalid UTF-8", content: f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "caf\xe9 \xff\xfe"})), line: padLine, has: "UTF-8", kept: true, analyze: ExitFindings,
		why: "an id there could have been anything: the problem marks the history incomplete (a document's names no task)"})

	add(cell{kind: "20 MB line", content: f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: strings.Repeat("x", twentyMB)})), kept: true,
		why: "within the default --max-line-bytes (64 MiB): read like any line"})
	if !doc {
		add(cell{kind: "20 MB line over --max-line-bytes", content: f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: strings.Repeat("x", twentyMB)})),
			flags: []string{"--max-line-bytes", "1048576"}, line: padLine, has: "longer than the limit", kept: true, analyze: ExitFindings})
	}

	binary := "\x00\x01\x02binary\x00\xff\x7f\x1b[2J"
	if doc {
		add(cell{kind: "NUL bytes / binary", content: f.with(binary), line: padLine, has: "broken at line", kept: true, analyze: ExitFindings})
	} else {
		add(cell{kind: "NUL bytes / binary", content: f.with(binary), line: padLine, has: "not valid", kept: true, analyze: ExitFindings})
	}
	other := ".json"
	if doc {
		other = ".jsonl"
	}
	add(cell{kind: "wrong format for the extension", content: f.good(), ext: other, kept: true,
		why: "formats are told by content, not by name"})

	add(cell{kind: "deeply nested JSON", content: f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "deep", raw: deepValue(100000)})), kept: true,
		why: "checked without recursion; a value deeper than 100 levels is kept as its JSON text"})

	add(cell{kind: "huge numbers", content: f.with(f.record(pad{ts: f.ts("2026-11-30T07:00:03Z"), text: "big", raw: "[1e999999, -1e999999, " + strings.Repeat("9", 400) + ", 0.000000000000000000000000000000001]"})), kept: true,
		why: "numbers keep their exact text; beyond float64 they are kept as text"})

	add(cell{kind: "timestamps out of order", content: f.with(f.record(pad{ts: f.ts("2026-11-29T00:00:00Z"), text: "late"})), kept: true,
		why: "events are ordered by time, whatever the file order"})
	add(cell{kind: "timestamps in odd zones", content: f.with(f.record(pad{ts: jsonQ("2026-11-30T12:45:03+05:45"), text: "nepal"})), kept: true,
		why: "RFC 3339 with any offset is one instant"})

	add(cell{kind: "unknown event types", content: f.with(f.unknown), kept: true,
		why: "kept or skipped as the format allows, never a problem: a newer writer is not a broken history"})

	return append(cs, readerCells(f, lines)...)
}

// readerCells are the cells whose correct answer depends on the format:
// missing times, duplicates, and each format's own numbers.
func readerCells(f fixture, lines []string) []cell {
	padLine := f.padAt + 1
	var cs []cell
	noTime := f.with(f.record(pad{text: "no time"}))
	switch f.name {
	case "native":
		cs = append(cs,
			cell{kind: "missing timestamp", content: noTime, line: padLine, has: "missing ts", kept: true, analyze: ExitFindings,
				why: "a line that cannot be placed in time is no event; its task's history is incomplete"},
			cell{kind: "timestamp without offset", content: f.with(f.record(pad{ts: jsonQ("2026-11-30 07:00:03"), text: "local"})), line: padLine, has: "RFC 3339", kept: true, analyze: ExitFindings},
			cell{kind: "duplicate events", content: f.good() + strings.Join(lines, "\n") + "\n", kept: true, analyze: ExitFindings, finding: "DUPLICATE_DELIVERY",
				why: "each line is an event, as written: a repeated send_fired is a second submission (DUPLICATE_DELIVERY), never merged away"},
		)
	case "claude-code":
		cs = append(cs,
			cell{kind: "missing timestamp", content: noTime, line: padLine, has: "timestamp", kept: true, analyze: ExitFindings},
			cell{kind: "timestamp beyond any clock", content: f.with(f.record(pad{ts: "1e300", text: "far"})), line: padLine, has: "timestamp", kept: true, analyze: ExitFindings},
			cell{kind: "duplicate events", content: f.good() + strings.Join(lines, "\n") + "\n", kept: true,
				why: "lines are copied between files and sessions: counted once by uuid and tool_use id"},
		)
	case "openai":
		cs = append(cs,
			cell{kind: "missing timestamp", content: strings.Replace(noTime, `"created_at": 1795935600, `, "", 1), kept: false,
				why: "the format does not need times: items without one follow the previous by 1 ms (document order)"},
			cell{kind: "timestamp beyond any clock", content: f.with(f.record(pad{ts: "1e300", text: "far"})), kept: true,
				why: "an unreadable item time is no time: the item follows the previous one"},
			cell{kind: "duplicate events", content: f.with(strings.TrimSuffix(lines[3], ",")), kept: true,
				why: "request logs repeat the history: a call id counts once"},
		)
	case "otel":
		cs = append(cs,
			cell{kind: "missing timestamp", content: strings.Replace(f.good(), `"startTimeUnixNano": "1795935601000000000", "endTimeUnixNano": "1795935605000000000", `, "", 1),
				line: 3, has: "without a readable start or end time", analyze: ExitFindings,
				why: "a tool call that cannot be placed in time is a problem of its task"},
			cell{kind: "timestamp beyond any clock", content: strings.Replace(f.good(), `"1795935601000000000"`, `"99999999999999999999"`, 1),
				why: "a start time that is no time: the call is placed at its end"},
			cell{kind: "duplicate events", content: f.with(strings.TrimSuffix(lines[2], ",")), kept: true,
				why: "a span exported twice counts once"},
		)
	case "temporal":
		cs = append(cs,
			cell{kind: "missing timestamp", content: strings.Replace(f.good(), `"eventTime": "2026-11-30T07:00:04Z", `, "", 1), line: 5, has: "no readable eventTime", analyze: ExitFindings},
			cell{kind: "attempt count beyond reason", content: strings.Replace(f.good(), `"attempt": 1`, `"attempt": 99999999999`, 1), kept: true, analyze: ExitFindings, finding: "DUPLICATE_DELIVERY",
				why: "each attempt may have sent: duplicate delivery; at most 10 events stand for them"},
			cell{kind: "duplicate events", content: f.with(strings.TrimSuffix(lines[4], ",")), line: padLine, has: "out of order or repeats", kept: true, analyze: ExitFindings,
				why: "event ids grow by one through a history: a repeated event is a damaged history"},
			cell{kind: "events out of order", content: strings.NewReplacer(`"eventId": "3"`, `"eventId": "4"`, `"eventId": "4"`, `"eventId": "3"`).Replace(f.good()),
				line: 5, has: "out of order", analyze: ExitFindings, why: "a history lists its events in order: one that does not is damaged"},
		)
	case "profile":
		cs = append(cs,
			cell{kind: "missing timestamp", content: strings.Replace(f.good(), `"at":1795935601,`, "", 1), line: 3, has: "no time", analyze: ExitFindings},
			cell{kind: "timestamp beyond any clock", content: strings.Replace(f.good(), `"at":1795935601,`, `"at":1e300,`, 1), line: 3, has: "no time", analyze: ExitFindings},
			cell{kind: "duplicate events", content: f.good() + strings.Join(lines, "\n") + "\n", kept: true,
				why: "a call id recorded twice is one call, as in every format with call ids"},
		)
	}
	return cs
}

// eventKeys are the events of a read but those of line skip, without their
// lines (damage shifts lines) and without the time of task_started (a task
// starts at its earliest event, which damage may move).
func eventKeys(evs []transcripts.Event, skip int) []string {
	var out []string
	for _, e := range evs {
		if e.Line == skip {
			continue
		}
		ts := e.TS.UTC().Format(time.RFC3339Nano)
		if e.Type == "task_started" {
			ts = ""
		}
		out = append(out, e.Task+" "+e.Type+" "+ts)
	}
	sort.Strings(out)
	return out
}

// contains reports whether every element of want is in got (as multisets).
func contains(got, want []string) (string, bool) {
	n := map[string]int{}
	for _, g := range got {
		n[g]++
	}
	for _, w := range want {
		if n[w] == 0 {
			return w, false
		}
		n[w]--
	}
	return "", true
}

// readMeasured reads a file as the commands do, and how long and how much
// memory (bytes allocated) it took.
func readMeasured(t *testing.T, path string, flags []string) (transcripts.Input, []transcripts.Event, time.Duration, uint64) {
	t.Helper()
	opt := transcripts.Options{}
	for i := 0; i+1 < len(flags); i += 2 {
		switch flags[i] {
		case "--max-line-bytes":
			fmt.Sscan(flags[i+1], &opt.MaxLineBytes)
		case "--profile":
			p, err := transcripts.LoadProfile(flags[i+1])
			if err != nil {
				t.Fatal(err)
			}
			opt.Profile = p
		}
	}
	var evs []transcripts.Event
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := transcripts.Read([]string{path}, opt, func(e transcripts.Event) { evs = append(evs, e) })
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil || len(res.Inputs) != 1 {
		t.Fatalf("read: %v, %d inputs", err, len(res.Inputs))
	}
	return res.Inputs[0], evs, took, after.TotalAlloc - before.TotalAlloc
}

// Bounds for one read: time, and bytes allocated per byte of input plus a
// constant. Measured on this code: about 3-5 bytes allocated per input byte
// for the 20 MB cells, well under a second unloaded.
const (
	readTimeBound     = 30 * time.Second
	allocPerByteBound = 12
	allocConstBound   = 64 << 20
	commandTimeBound  = 90 * time.Second
)

func TestBadInput_Matrix(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	rules := builtinRules(t)
	dir := t.TempDir()
	for _, f := range fixtures() {
		goodPath := filepath.Join(dir, f.name+"-good"+f.ext)
		if err := os.WriteFile(goodPath, []byte(f.good()), 0o644); err != nil {
			t.Fatal(err)
		}
		goodIn, goodEvs, _, _ := readMeasured(t, goodPath, f.flags)
		if len(goodIn.Problems) != 0 || len(goodEvs) == 0 {
			t.Fatalf("%s: the good history reads with %d events and problems %+v", f.name, len(goodEvs), goodIn.Problems)
		}
		checkArgs := append([]string{"check", "--color", "never", "--task", "t-new", "--destination", "slack/CKEY", "--sha256", matrixKeySHA}, f.flags...)
		if out, stderr, code := runWith(t, "", rules, append(checkArgs, goodPath)...); code != ExitOK {
			t.Fatalf("%s: check on the good history exits %d, want 0 (allow):\n%s%s", f.name, code, out, stderr)
		}
		if out, stderr, code := runWith(t, "", rules, append(append([]string{"analyze", "--color", "never"}, f.flags...), goodPath)...); code != ExitOK {
			t.Fatalf("%s: analyze on the good history exits %d, want 0:\n%s%s", f.name, code, out, stderr)
		}
		for i, c := range cells(f) {
			t.Run(f.name+"/"+c.kind, func(t *testing.T) {
				ext := f.ext
				if c.ext != "" {
					ext = c.ext
				}
				path := filepath.Join(dir, fmt.Sprintf("%s-%02d%s", f.name, i, ext))
				if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
					t.Fatal(err)
				}
				flags := append(append([]string{}, f.flags...), c.flags...)
				in, evs, took, alloc := readMeasured(t, path, flags)
				if took > readTimeBound {
					t.Errorf("reading %d bytes took %v (bound %v)", len(c.content), took, readTimeBound)
				}
				if bound := uint64(allocPerByteBound*len(c.content) + allocConstBound); alloc > bound {
					t.Errorf("reading %d bytes allocated %d MB (bound %d MB)", len(c.content), alloc>>20, bound>>20)
				}
				if len(c.content) > 1<<20 {
					t.Logf("%d MB read in %v, %d MB allocated", len(c.content)>>20, took.Round(time.Millisecond), alloc>>20)
				}
				// The problem: where, and what it says.
				switch {
				case c.line == 0 && len(in.Problems) != 0:
					t.Errorf("unexpected problems %+v", in.Problems)
				case c.line != 0:
					found := false
					for _, p := range in.Problems {
						found = found || (p.Line == c.line && strings.Contains(p.Message, c.has) && p.File == filepath.ToSlash(path))
					}
					if !found {
						t.Errorf("problems %+v, want one at %s:%d saying %q", in.Problems, filepath.Base(path), c.line, c.has)
					}
				}
				for _, p := range in.Problems {
					if len(p.Message) > 300 || strings.ContainsAny(p.Message, "\x00\x1b") {
						t.Errorf("problem message echoes raw input: %q", p.Message)
					}
				}
				if c.kept {
					if missing, ok := contains(eventKeys(evs, -1), eventKeys(goodEvs, f.padAt+1)); !ok {
						t.Errorf("event %q of the good history is lost", missing)
					}
				}
				// The commands: check stops exactly when the history is
				// broken; analyze fails as stated.
				start := time.Now()
				out, stderr, code := runWith(t, "", rules, append(append(append([]string{}, checkArgs...), c.flags...), path)...)
				wantCheck := ExitOK
				if len(in.Problems) > 0 {
					wantCheck = ExitFindings
				}
				if code != wantCheck {
					t.Errorf("check exits %d, want %d:\n%s%s", code, wantCheck, clipText(out), clipText(stderr))
				}
				if wantCheck == ExitFindings && !strings.Contains(out, "HISTORY_UNREADABLE") {
					t.Errorf("check stops without HISTORY_UNREADABLE:\n%s", clipText(out))
				}
				out, stderr, code = runWith(t, "", rules, append(append(append([]string{"analyze", "--color", "never"}, f.flags...), c.flags...), path)...)
				if code != c.analyze {
					t.Errorf("analyze exits %d, want %d:\n%s%s", code, c.analyze, clipText(out), clipText(stderr))
				}
				for _, want := range []string{c.finding, map[bool]string{true: "UNREADABLE_HISTORY"}[len(in.Problems) > 0]} {
					if want != "" && !strings.Contains(out, want) {
						t.Errorf("analyze does not report %s:\n%s", want, clipText(out))
					}
				}
				if took := time.Since(start); took > commandTimeBound {
					t.Errorf("check and analyze took %v (bound %v)", took, commandTimeBound)
				}
			})
		}
	}
}

func clipText(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}
