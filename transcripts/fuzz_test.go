package transcripts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// Fuzz targets, one per reader (its format forced, so that every input
// reaches that reader) and one for detection. `go test` runs their seeds
// (the scenarios of testdata/, the real files of ../shared/corpus/ when that
// folder is present, and the crashers kept in testdata/fuzz/) as normal
// tests; scripts/fuzz.sh runs each with -fuzz for a while.
//
// Every target checks what must hold for any input, not only "no panic":
//   - Read returns no error for standard input; the input counts exactly
//     the events it emitted;
//   - every event has a task, a type, a source, a time (year 0 to 9999,
//     so it prints as RFC 3339), a line within the input, and fields that
//     encode as JSON (what the policy reads);
//   - every problem has the file, a line within the input and a message;
//     no problem message or notice echoes more than a short excerpt;
//   - something is said about every non-empty input: an event, a problem
//     or a notice;
//   - reading the same bytes twice gives the same events and problems;
// and per reader what it promises (every non-blank line of a JSON Lines
// input is an event or a problem, ...).

// slowRead is how long reading one fuzz input may take: they are small, so
// anything near this is a loop gone wrong (a count taken from the input).
const slowRead = 2 * time.Second

// Time budgets of one execution of each fuzz target, checked by within:
// an input that takes longer fails the target (issue 15: work must stay
// near linear in the input, and a fuzz input is at most a few dozen KiB).
// Generous for CI noise: an execution takes milliseconds.
const (
	readBudget = 3 * slowRead // two reads of at most slowRead each, and the checks
	fastBudget = time.Second  // a line scanned or parsed in memory
)

// within fails t when the execution that called it, deferred, took more
// than d: defer within(t, d)().
func within(t *testing.T, d time.Duration) func() {
	start := time.Now()
	return func() {
		if took := time.Since(start); took > d {
			t.Fatalf("one execution took %v, over its budget of %v", took, d)
		}
	}
}

// maxMessage bounds problem messages and notices: they quote transcript
// text only as excerpts.
const maxMessage = 1024

// seedFiles returns the contents of the files matched by the patterns
// (relative to this package), the ../shared corpus included when it is
// there. Large files are cut to their first 64 KiB of whole lines, so the
// fuzzer mutates them at a useful speed.
func seedFiles(f *testing.F, patterns ...string) [][]byte {
	var out [][]byte
	for _, p := range patterns {
		matches, _ := filepath.Glob(p)
		sort.Strings(matches)
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				continue
			}
			if len(b) > 64<<10 {
				if i := bytes.LastIndexByte(b[:64<<10], '\n'); i > 0 {
					b = b[:i+1]
				} else {
					b = b[:64<<10]
				}
			}
			out = append(out, b)
		}
	}
	if _, err := os.Stat("../../shared/corpus"); err != nil {
		f.Logf("../shared/corpus is absent: seeding from testdata only")
	}
	return out
}

func addSeeds(f *testing.F, seeds ...[][]byte) {
	for _, s := range seeds {
		for _, b := range s {
			f.Add(b)
		}
	}
}

// fuzzRead reads data as standard input and checks the invariants every
// reader keeps.
func fuzzRead(t *testing.T, data []byte, opt Options) (Input, []Event) {
	t.Helper()
	read := func() (Input, []Event) {
		var evs []Event
		o := opt
		o.Stdin = bytes.NewReader(data)
		res, err := Read([]string{"-"}, o, func(e Event) { evs = append(evs, e) })
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if len(res.Inputs) != 1 {
			t.Fatalf("%d inputs", len(res.Inputs))
		}
		return res.Inputs[0], evs
	}
	start := time.Now()
	in, evs := read()
	if d := time.Since(start); d > slowRead {
		t.Fatalf("reading %d bytes took %v", len(data), d)
	}
	if in.Events != len(evs) {
		t.Fatalf("the input counts %d events, %d were emitted", in.Events, len(evs))
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	gz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b // lines of the decompressed text
	// A zip archive's events point into its entries ("-/0-trace.trace"):
	// FuzzReadPlaywright checks their lines.
	zipped := bytes.HasPrefix(data, zipMagic)
	inInput := func(file string, line int) bool {
		if zipped && strings.HasPrefix(file, "-/") {
			return line >= 1
		}
		return file == "-" && line >= 1 && (gz || zipped || line <= lines)
	}
	for _, e := range evs {
		if e.Task == "" || e.Type == "" || e.Source == "" || !inInput(e.File, e.Line) {
			t.Fatalf("bad event %+v (input of %d lines)", e, lines)
		}
		if y := e.TS.Year(); e.TS.IsZero() || y < 0 || y > 9999 {
			t.Fatalf("event without a printable time: %+v", e)
		}
		if _, err := json.Marshal(e.Fields); err != nil {
			t.Fatalf("fields of %+v do not encode: %v", e, err)
		}
	}
	for _, p := range in.Problems {
		if !inInput(p.File, p.Line) || p.Message == "" || len(p.Message) > maxMessage {
			t.Fatalf("bad problem %+v (input of %d lines)", p, lines)
		}
	}
	for _, n := range in.Notices {
		if n == "" || len(n) > maxMessage {
			t.Fatalf("bad notice %q", n)
		}
	}
	if len(bytes.TrimSpace(data)) > 0 && len(evs) == 0 && len(in.Problems) == 0 && len(in.Notices) == 0 {
		t.Fatalf("nothing said about a non-empty input (format %s)", in.Format)
	}
	again, evs2 := read()
	if !reflect.DeepEqual(in, again) || !sameEvents(evs, evs2) {
		t.Fatalf("reading the same input twice differs")
	}
	return in, evs
}

func sameEvents(a, b []Event) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// saidLines are the lines with an event or a problem.
func saidLines(in Input, evs []Event) map[int]bool {
	said := map[int]bool{}
	for _, e := range evs {
		said[e.Line] = true
	}
	for _, p := range in.Problems {
		said[p.Line] = true
	}
	return said
}

// blankLines are the lines a JSON Lines reader skips.
func nonBlankLines(data []byte) []int {
	var out []int
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.Trim(l, " \t\r\n")) > 0 {
			out = append(out, i+1)
		}
	}
	return out
}

// FuzzReadNative: every non-blank line of a native log is an event or a
// problem (nothing is silently lost), a line that is not JSON is never an
// event, and a problem names a task only when the line named it.
func FuzzReadNative(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/[0-9]*/*.jsonl", "../testdata/scenarios/[fg]-*/*.jsonl"))
	f.Add([]byte(good + "\n" + `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"ui_ch`))
	f.Add([]byte(`{"ts":"2026-11-30T07:00:00+05:45","task":"t1","type":"response","ok":true,"status":1e999999}` + "\n\n \n" + `{"ts":"2026-11-30 07:00","task":"t1","type":"status"}`))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatNative, MaxLineBytes: 4096})
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		split := bytes.Split(data, []byte("\n"))
		said := saidLines(in, evs)
		for _, n := range nonBlankLines(data) {
			if !said[n] {
				t.Fatalf("line %d (%q) is neither an event nor a problem", n, split[n-1])
			}
		}
		for _, e := range evs {
			if l := bytes.TrimSuffix(split[e.Line-1], []byte("\r")); !gjson.ValidBytes(l) {
				t.Fatalf("line %d is not JSON but became an event", e.Line)
			}
		}
		if len(nonBlankLines(data)) == 0 && (len(in.Problems) != 1 || in.Problems[0].Line != 1) {
			t.Fatalf("an empty log must be one problem, got %+v", in.Problems)
		}
	})
}

// FuzzReadClaudeCode: a Claude Code session's lines. Every line that is
// not a JSON object is a problem; every session with a readable line is a
// task that starts.
func FuzzReadClaudeCode(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-claude-code-*/*.jsonl",
		"../../shared/corpus/claude-code/*/*.jsonl", "../../shared/corpus/claude-code/*/*/subagents/*.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatClaudeCode, MaxLineBytes: 1 << 16})
		started := map[string]bool{}
		for _, e := range evs {
			if e.Type == "task_started" {
				started[e.Task] = true
			}
		}
		for _, e := range evs {
			if !started[e.Task] {
				t.Fatalf("task %q has events but never starts", e.Task)
			}
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		split := bytes.Split(data, []byte("\n"))
		said := saidLines(in, evs)
		for _, n := range nonBlankLines(data) {
			l := bytes.TrimSuffix(split[n-1], []byte("\r"))
			if (!gjson.ValidBytes(l) || !gjson.ParseBytes(l).IsObject()) && !said[n] {
				t.Fatalf("line %d (%q) is not a JSON object and no problem", n, l)
			}
		}
	})
}

// documentSaid: a forced document format says something about every
// input: events, a problem or a notice (checked by fuzzRead); a document
// that is not JSON at all is a problem at a line of it.
func documentSaid(t *testing.T, data []byte, in Input, evs []Event) {
	t.Helper()
	jsonLines := true // OTLP export requests, one a line, are not one document
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.Trim(l, " \t\r\n"); len(l) > 0 && !gjson.ValidBytes(l) {
			jsonLines = false
		}
	}
	if len(bytes.TrimSpace(data)) > 0 && !gjson.ValidBytes(data) && !jsonLines && len(in.Problems) == 0 {
		t.Fatalf("broken JSON (%d events) without a problem", len(evs))
	}
}

// FuzzReadOpenAI: OpenAI conversations (Chat Completions, Responses).
func FuzzReadOpenAI(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-openai-*/*.json"))
	f.Add([]byte(`[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"send","arguments":"{"}}]},{"role":"tool","tool_call_id":"c","content":null}]`))
	f.Add([]byte(`{"id":"r1","created_at":1e300,"output":[{"type":"function_call","call_id":"call_0123456789ab","name":"slack_post_message","arguments":"{\"channel\":\"C1\",\"text\":\"hi\"}"},{"type":"function_call_output","call_id":"call_0123456789ab","output":"ok"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatOpenAI})
		documentSaid(t, data, in, evs)
	})
}

// FuzzReadOTel: OpenTelemetry spans (OTLP/JSON documents and lines, SDK
// dumps).
func FuzzReadOTel(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-otel-*/*.json", "../../shared/corpus/otel/*.json", "../../shared/corpus/otel/*/*.json"))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AA==","spanId":1,"parentSpanId":1,"name":"invoke_agent"}]}]}]}` + "\n" + `{"resourceSpans":[]}`))
	f.Add([]byte(`{"spans":[{"name":"execute_tool send","context":{"trace_id":"0x1","span_id":"0x2"},"start_time":"99999999999999999999","attributes":{"gen_ai.operation.name":"execute_tool"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatOTel, MaxLineBytes: 1 << 16})
		documentSaid(t, data, in, evs)
	})
}

// FuzzReadTemporal: Temporal workflow histories; an input with no event
// has a problem (a history always starts its run, or says why not).
func FuzzReadTemporal(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-temporal-*/*.json", "../../shared/corpus/temporal/*.json"))
	f.Add([]byte(history(spelling{screaming: true, numeric: true}, wf(`, "continuedExecutionRunId": "run-0"`, scheduled("a1", delivery), started(5, 2),
		hev{"WorkflowTaskFailed", `{"cause": "ResetWorkflow", "baseRunId": "run-1", "newRunId": "run-2"}`})...)))
	f.Add([]byte(history(spelling{}, wf("", scheduled("a1", delivery), started(5, 99999999999))...)))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatTemporal})
		documentSaid(t, data, in, evs)
		if len(evs) == 0 && len(in.Problems) == 0 {
			t.Fatalf("no events and no problem")
		}
	})
}

// Profiles of a made-up format, as JSON Lines and as a document.
const (
	fuzzProfileLines = `{"name":"fuzz-lines","source":{"detect":"kind","task":"session","time":"at","tool":"call.fn","args":"call.params","call_id":"call.id","result_call_id":"result_for","error":"failure"},` +
		`"rules":[{"name":"notify","tool":"^notify_post$","evidence":"request_sent","result":"response","destination":{"provider":"acme-chat","id_args":["room"]},"content":{"text_args":["body"]}}]}`
	fuzzProfileDoc = `{"name":"fuzz-doc","source":{"detect":"kind","records":"records","task":"session","time":"at","tool":"call.fn","args":"call.params","call_id":"call.id","result":"result","error":"failure"},"rules":[]}`
)

// FuzzReadProfile: a user's own format read through a profile, as JSON
// Lines (every non-blank line is read: a record, a problem, or a record
// that is neither a call nor a result) and as a document.
func FuzzReadProfile(f *testing.F) {
	lines, err := ParseProfile("fuzz-lines", []byte(fuzzProfileLines))
	if err != nil {
		f.Fatal(err)
	}
	doc, err := ParseProfile("fuzz-doc", []byte(fuzzProfileDoc))
	if err != nil {
		f.Fatal(err)
	}
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-profile-*/*.jsonl"))
	f.Add([]byte(`{"records":[{"kind":"x","session":"s","at":"2026-11-30T07:00:00Z","call":{"id":"1","fn":"notify_post","params":{"room":"r","body":"b"}},"result":"ok"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, 2*readBudget)() // two readings
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatProfile, Profile: lines, MaxLineBytes: 1 << 16})
		if !(len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
			split := bytes.Split(data, []byte("\n"))
			said := saidLines(in, evs)
			for _, n := range nonBlankLines(data) {
				l := bytes.TrimSuffix(split[n-1], []byte("\r"))
				if !gjson.ValidBytes(l) && !said[n] {
					t.Fatalf("line %d (%q) is not JSON and no problem", n, l)
				}
			}
		}
		in, evs = fuzzRead(t, data, Options{InputFormat: FormatProfile, Profile: doc})
		documentSaid(t, data, in, evs)
	})
}

// FuzzReadDocuments: any input, its format detected. Seeds are every
// scenario and every corpus file, foreign formats no reader knows included.
func FuzzReadDocuments(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/*/*.json", "../testdata/scenarios/*/*.jsonl",
		"../../shared/corpus/*/*.json", "../../shared/corpus/*/*/*.json", "../../shared/corpus/*/*/*.jsonl"))
	// A document with two readers' shapes (detect.go).
	f.Add([]byte(`{"id": "r1", "run_type": "tool", "trace_id": "r1", "start_time": "2026-11-30T08:10:01Z", "events": [{"type": "ExecutionStarted", "id": 1, "previousEventId": 0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, readBudget)()
		in, _ := fuzzRead(t, data, Options{MaxLineBytes: 1 << 16})
		// Unknown is said: by a notice (no reader knows it), or by a
		// problem (two readers know it).
		if in.Format == FormatUnknown && len(in.Notices) == 0 && len(in.Problems) == 0 {
			t.Fatal("an unknown format without a notice or a problem")
		}
	})
}

// TestFuzzSeedsArePresent keeps the seed corpora honest: a glob that stops
// matching would silently turn a fuzz target's seed run into nothing.
func TestFuzzSeedsArePresent(t *testing.T) {
	for _, p := range []string{"../testdata/scenarios/[0-9]*/*.jsonl", "../testdata/scenarios/fmt-claude-code-*/*.jsonl",
		"../testdata/scenarios/fmt-openai-*/*.json", "../testdata/scenarios/fmt-otel-*/*.json",
		"../testdata/scenarios/fmt-temporal-*/*.json", "../testdata/scenarios/fmt-profile-*/*.jsonl"} {
		if m, _ := filepath.Glob(p); len(m) == 0 {
			t.Errorf("no seed matches %s", p)
		}
	}
	sharedtest.Path(t, "corpus") // corpus seeds: skipped, or in CI failed, when absent
	for _, p := range []string{"../../shared/corpus/claude-code/*/*.jsonl", "../../shared/corpus/otel/*.json", "../../shared/corpus/temporal/*.json"} {
		if m, _ := filepath.Glob(p); len(m) == 0 {
			t.Errorf("no corpus seed matches %s", p)
		}
	}
}

// A line of white space that JSON does not allow (a form feed, a no-break
// space) is not blank: it is a problem, in the native reader as in the
// others (FuzzReadNative found a form feed skipped without a word).
func TestReadNative_NonJSONWhiteSpaceIsAProblem(t *testing.T) {
	for _, ws := range []string{"\f", "\v", "\u00a0", "\u0085", " \f "} {
		for _, format := range []string{FormatNative, ""} {
			data := []byte(good + "\n" + ws + "\n" + good + "\n")
			in, _ := fuzzRead(t, data, Options{InputFormat: format})
			found := false
			for _, p := range in.Problems {
				found = found || p.Line == 2
			}
			if !found {
				t.Errorf("format %q: line 2 %q is no problem: %+v", format, ws, in.Problems)
			}
		}
	}
}
