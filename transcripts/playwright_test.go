package transcripts

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// pwCtx is a context-options line of format version 7 (wall and
// monotonic clock given together): monotonic 1000 is 2026-11-30T07:00:00Z.
const pwCtx = `{"version":7,"type":"context-options","browserName":"chromium","wallTime":1796022000000,"monotonicTime":1000,"title":"upload report"}`

// pwPage: a page at the upload form (a main-frame snapshot).
const pwPage = `{"type":"frame-snapshot","snapshot":{"callId":"c@1","phase":"after","pageId":"page@1","frameUrl":"https://chat.example/upload#top","isMainFrame":true,"timestamp":1100,"html":["HTML",{},["HEAD",{},["TITLE",{},"Upload"]]]}}`

func pwLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func pwZip(entries map[string]string) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, name := range sortedKeys(entries) {
		f, err := w.Create(name)
		if err != nil {
			panic(err)
		}
		f.Write([]byte(entries[name]))
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// readPW reads files (name → bytes) written to a temporary folder, the
// paths given relative to it.
func readPW(t *testing.T, opt Options, files map[string][]byte, args ...string) (Result, []Event) {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var evs []Event
	res, err := Read(args, opt, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	return res, evs
}

func pwTypes(evs []Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Type)
	}
	return strings.Join(s, " ")
}

func noProblems(t *testing.T, res Result) {
	t.Helper()
	for _, in := range res.Inputs {
		if len(in.Problems) > 0 {
			t.Fatalf("%s: problems %+v", in.Path, in.Problems)
		}
	}
}

func TestPlaywright_CorpusTracesReadWithoutProblems(t *testing.T) {
	dir := sharedtest.Path(t, "corpus/playwright")
	zips, _ := filepath.Glob(filepath.Join(dir, "*.zip"))
	if len(zips) < 3 {
		t.Fatalf("%d corpus traces, want the 3 (versions 4, 6, 7)", len(zips))
	}
	for _, z := range zips {
		var evs []Event
		res, err := Read([]string{z}, Options{}, func(e Event) { evs = append(evs, e) })
		if err != nil {
			t.Fatal(err)
		}
		in := res.Inputs[0]
		if in.Format != FormatPlaywright || len(in.Problems) != 0 {
			t.Errorf("%s: format %s, problems %+v", z, in.Format, in.Problems)
		}
		// Each is one context that navigates and reads, sends nothing: it
		// starts and, its archive being written, ends.
		if got := pwTypes(evs); got != "task_started task_ended" {
			t.Errorf("%s: events %q", z, got)
		}
		for _, e := range evs {
			if !strings.HasPrefix(e.File, z+"/") || !strings.HasSuffix(e.File, ".trace") || e.Line < 1 || e.TS.Year() < 2023 {
				t.Errorf("%s: event %s at %s:%d %v", z, e.Type, e.File, e.Line, e.TS)
			}
		}
	}
}

// The incident inside one archive: picker, send, a failed answer, a
// readback that timed out.
func TestPlaywright_PickerSendResponseReadback(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.pdf")
	os.WriteFile(report, []byte("pdf"), 0o644)
	trace := pwLines(pwCtx,
		pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"selector":"#file","localPaths":["`+filepath.ToSlash(report)+`"]}}`,
		`{"type":"after","callId":"c@2","endTime":1250}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"internal:role=button[name=\"Send\"i]"}}`,
		`{"type":"after","callId":"c@3","endTime":1400}`,
		`{"type":"before","callId":"c@4","startTime":1500,"class":"Frame","method":"waitForSelector","params":{"selector":"text=Sent"}}`,
		`{"type":"after","callId":"c@4","endTime":3500,"error":{"message":"Timeout 2000ms exceeded.","name":"TimeoutError"}}`)
	network := pwLines(
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1150,"time":10,"request":{"method":"GET","url":"https://chat.example/app.js"},"response":{"status":200}}}`,
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1350,"time":20,"request":{"method":"POST","url":"https://chat.example/upload"},"response":{"status":503}}}`)
	res, evs := readPW(t, Options{}, map[string][]byte{"trace.zip": pwZip(map[string]string{"0-trace.trace": trace, "0-trace.network": network})}, "trace.zip")
	noProblems(t, res)
	if got, want := pwTypes(evs), "task_started intent picker_accepted send_fired response readback task_ended"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	want := []struct {
		file string
		line int
	}{{"trace.zip/0-trace.trace", 1}, {"trace.zip/0-trace.trace", 3}, {"trace.zip/0-trace.trace", 3}, {"trace.zip/0-trace.trace", 5},
		{"trace.zip/0-trace.network", 2}, {"trace.zip/0-trace.trace", 8}, {"trace.zip/0-trace.trace", 8}}
	for i, e := range evs {
		if e.File != want[i].file || e.Line != want[i].line || e.Task != "playwright:upload report/0-trace" || e.Source != FormatPlaywright {
			t.Errorf("%s at %s:%d of %s, want %s:%d", e.Type, e.File, e.Line, e.Task, want[i].file, want[i].line)
		}
	}
	in := evs[1].Fields
	dest := in["destination"].(map[string]any)
	if dest["provider"] != "web" || dest["id"] != "https://chat.example/upload" || dest["title"] != "Upload" {
		t.Errorf("destination %v: the page's URL (no fragment) and title", dest)
	}
	if c := in["content"].(map[string]any); c["path"] != filepath.ToSlash(report) {
		t.Errorf("content %v, want the local path", c)
	}
	if evs[2].Fields["intent"] != in["intent"] {
		t.Errorf("picker_accepted names %v, intent is %v", evs[2].Fields["intent"], in["intent"])
	}
	if evs[4].Fields["ok"] != false || evs[4].Fields["status"] != float64(503) {
		t.Errorf("response %v, want ok false, status 503", evs[4].Fields)
	}
	if evs[5].Fields["result"] != "unavailable" {
		t.Errorf("readback %v, want unavailable (timed out)", evs[5].Fields)
	}
	// 1300 ms on the trace clock is 300 ms after the context started.
	if got := evs[3].TS; !got.Equal(time.Date(2026, 11, 30, 7, 0, 0, 300e6, time.UTC)) {
		t.Errorf("send_fired at %v", got)
	}
}

// Version 4 and 6 traces give wall time on actions, not on the context.
func TestPlaywright_OldClockFromActions(t *testing.T) {
	trace := pwLines(`{"version":4,"type":"context-options","browserName":"chromium","wallTime":1796021999000}`,
		`{"type":"before","callId":"c@1","startTime":500,"wallTime":1796022000000,"class":"Frame","method":"goto","params":{"url":"https://chat.example/"}}`,
		`{"type":"after","callId":"c@1","endTime":600}`,
		`{"type":"before","callId":"c@2","startTime":700,"class":"Frame","method":"click","params":{"selector":"#cancel"}}`,
		`{"type":"after","callId":"c@2","endTime":800,"error":{"error":{"message":"Timeout 30000ms exceeded.","name":"TimeoutError"}}}`,
		`{"type":"before","callId":"c@3","startTime":900,"class":"Frame","method":"fill","params":{"selector":"#to"}}`,
		`{"type":"after","callId":"c@3","endTime":950,"error":{"message":"Element is not an <input>"}}`)
	res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": trace})}, "t.zip")
	noProblems(t, res)
	if got := pwTypes(evs); got != "task_started timeout failure_shown task_ended" {
		t.Fatalf("events %q (a click on #cancel is no send)", got)
	}
	if got := evs[1].TS; !got.Equal(time.Date(2026, 11, 30, 7, 0, 0, 300e6, time.UTC)) {
		t.Errorf("timeout at %v, want 300 ms after the goto's wall time", got)
	}
	if evs[0].Task != "playwright:t.zip/trace.trace" {
		t.Errorf("a trace without a title is a task of its own: %q", evs[0].Task)
	}
}

func TestPlaywright_PickerContent(t *testing.T) {
	data := []byte("the bytes the trace holds")
	sum := sha256.Sum256(data)
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"selector":"#file","payloads":[{"name":"a.txt","mimeType":"text/plain","buffer":"<Buffer>"}]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"ElementHandle","method":"setInputFiles","params":{"payloads":[{"name":"b.txt","sha1":"0123abcd"}]}}`,
		`{"type":"before","callId":"c@4","startTime":1400,"class":"ElementHandle","method":"setInputFiles","params":{"localPaths":["/nowhere/c.txt"]}}`,
		`{"type":"before","callId":"c@5","startTime":1500,"class":"Frame","method":"setInputFiles","params":{"localPaths":["d.txt"]}}`)
	res, evs := readPW(t, Options{}, map[string][]byte{"in/t.zip": pwZip(map[string]string{"trace.trace": trace, "resources/0123abcd": string(data)}),
		"in/d.txt": data}, "in/t.zip")
	noProblems(t, res)
	if got := pwTypes(evs); got != "task_started picker_accepted intent picker_accepted intent picker_accepted intent picker_accepted task_ended" {
		t.Fatalf("events %q", got)
	}
	if i := evs[1].Fields["intent"]; i != "unkeyed-pw:c@2" {
		t.Errorf("bytes the trace does not hold: tied to no key, got intent %v", i)
	}
	if c := evs[2].Fields["content"].(map[string]any); c["sha256"] != hex.EncodeToString(sum[:]) || c["name"] != "b.txt" {
		t.Errorf("content %v, want the sha256 of resources/0123abcd", c)
	}
	// A path that does not resolve is left to the analyzer, which cannot
	// hash it: the crossing stays without a key (UNKEYED_CROSSING).
	if c := evs[4].Fields["content"].(map[string]any); c["path"] != "/nowhere/c.txt" {
		t.Errorf("content %v", c)
	}
	// A relative path resolves against the archive's folder.
	if c := evs[6].Fields["content"].(map[string]any); c["sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("content %v, want the sha256 of in/d.txt", c)
	}
}

// A profile says which controls send: the built-in conventions know
// send/submit/post/share/upload; a user's rule adds "confirm".
func TestPlaywright_SendByConventionsAndProfile(t *testing.T) {
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"selector":"#file","localPaths":["/x/r.pdf"]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"#confirm-button"}}`,
		`{"type":"before","callId":"c@4","startTime":1400,"class":"Frame","method":"press","params":{"selector":"button[type=submit]","key":"Enter"}}`)
	files := map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": trace})}
	_, evs := readPW(t, Options{}, files, "t.zip")
	if got := pwTypes(evs); got != "task_started intent picker_accepted send_fired task_ended" {
		t.Fatalf("built-in: events %q", got)
	}
	if evs[3].Line != 5 {
		t.Errorf("the submit press is line 5, got %d", evs[3].Line)
	}
	p, err := ParseProfile("confirm", []byte(`{"name":"confirm","rules":[{"name":"confirm click","tool":"^browser_click$","arg":"element","matches":"(?i)confirm","evidence":"send_fired","destination":{"provider":"web","id_default":"$page"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, evs = readPW(t, Options{Profile: p}, files, "t.zip")
	if got := pwTypes(evs); got != "task_started intent picker_accepted send_fired send_fired task_ended" {
		t.Fatalf("with the profile: events %q", got)
	}
}

// A writing request after a picker with no send after it is the upload
// itself (request_sent); followed by a send, or after one, it is part of
// that send (its answer only: a picker, its upload and the send are one
// submission). Reads, and writes before any crossing, are no evidence.
func TestPlaywright_NetworkJoinedByTime(t *testing.T) {
	picker := `{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"localPaths":["/x/r.pdf"]}}`
	send := `{"type":"before","callId":"c@3","startTime":1500,"class":"Frame","method":"click","params":{"selector":"#send"}}`
	network := pwLines(
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1110,"time":5,"request":{"method":"POST","url":"https://chat.example/analytics"},"response":{"status":204}}}`,
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1300,"time":50,"request":{"method":"PUT","url":"https://chat.example/files"},"response":{"status":201}}}`,
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1600,"time":50,"request":{"method":"POST","url":"https://chat.example/send"},"response":{"status":-1,"_failureText":"net::ERR_CONNECTION_RESET"}}}`,
		`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1700,"time":5,"request":{"method":"GET","url":"https://chat.example/status"},"response":{"status":200}}}`)
	res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, pwPage, picker, send), "trace.network": network})}, "t.zip")
	noProblems(t, res)
	if got, want := pwTypes(evs), "task_started intent picker_accepted response send_fired response_lost task_ended"; got != want {
		t.Fatalf("upload then send: events %q, want %q", got, want)
	}
	if evs[3].Line != 2 || evs[3].File != "t.zip/trace.network" || evs[3].Fields["ok"] != true || evs[3].Fields["status"] != float64(201) {
		t.Errorf("upload's answer %+v", evs[3])
	}
	if !strings.Contains(evs[5].Str("detail"), "ERR_CONNECTION_RESET") {
		t.Errorf("response_lost %v", evs[5].Fields)
	}
	_, evs = readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, pwPage, picker), "trace.network": network})}, "t.zip")
	if got, want := pwTypes(evs), "task_started intent picker_accepted request_sent response response_lost task_ended"; got != want {
		t.Fatalf("upload on choosing, no send: events %q, want %q", got, want)
	}
	if evs[3].Line != 2 || evs[3].File != "t.zip/trace.network" || !evs[3].TS.Equal(time.Date(2026, 11, 30, 7, 0, 0, 250e6, time.UTC)) {
		t.Errorf("request_sent %+v: at its start, 50 ms before its answer", evs[3])
	}
}

func TestPlaywright_ProblemsAndArchives(t *testing.T) {
	good := pwLines(pwCtx, pwPage)
	t.Run("broken line is the context's problem", func(t *testing.T) {
		res, _ := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"0-trace.trace": good + "{\"type\":\"before\",\n"})}, "t.zip")
		ps := res.Inputs[0].Problems
		if len(ps) != 1 || ps[0].File != "t.zip/0-trace.trace" || ps[0].Line != 3 || ps[0].Task != "playwright:upload report/0-trace" {
			t.Fatalf("problems %+v", ps)
		}
	})
	t.Run("cut archive", func(t *testing.T) {
		z := pwZip(map[string]string{"0-trace.trace": good})
		res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": z[:len(z)-30]}, "t.zip")
		ps := res.Inputs[0].Problems
		if len(evs) != 0 || len(ps) != 1 || ps[0].Line != 1 || !strings.Contains(ps[0].Message, "zip") {
			t.Fatalf("events %q, problems %+v", pwTypes(evs), ps)
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		tr := strings.Replace(good, `"version":7`, `"version":11`, 1)
		res, _ := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"0-trace.trace": tr})}, "t.zip")
		ps := res.Inputs[0].Problems
		if len(ps) != 1 || !strings.Contains(ps[0].Message, "version 11") || ps[0].Task == "" {
			t.Fatalf("problems %+v", ps)
		}
	})
	t.Run("zip without a trace", func(t *testing.T) {
		res, evs := readPW(t, Options{}, map[string][]byte{"other.zip": pwZip(map[string]string{"a.txt": "x"})}, "other.zip")
		in := res.Inputs[0]
		if len(evs) != 0 || in.Format != FormatUnknown || len(in.Notices) != 1 {
			t.Fatalf("%+v", in)
		}
		res, _ = readPW(t, Options{UnrecognizedIsProblem: true}, map[string][]byte{"other.zip": pwZip(map[string]string{"a.txt": "x"})}, "other.zip")
		if len(res.Inputs[0].Problems) != 1 {
			t.Fatalf("a check must fail closed on it: %+v", res.Inputs[0])
		}
	})
	t.Run("test runner steps", func(t *testing.T) {
		steps := pwLines(`{"version":8,"type":"context-options","origin":"testRunner","browserName":"","wallTime":1796022000000,"monotonicTime":1}`,
			`{"type":"before","callId":"test.step@1","startTime":2,"class":"Test","method":"step","title":"click Send","params":{}}`)
		res, evs := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"test.trace": steps, "0-trace.trace": good})}, "t.zip")
		noProblems(t, res)
		if len(res.Inputs[0].Notices) != 1 || pwTypes(evs) != "task_started task_ended" || evs[0].File != "t.zip/0-trace.trace" {
			t.Fatalf("%+v %q", res.Inputs[0], pwTypes(evs))
		}
	})
	t.Run("forced on another format", func(t *testing.T) {
		res, evs := readPW(t, Options{InputFormat: FormatPlaywright}, map[string][]byte{"a.jsonl": []byte(good[len(pwCtx)+1:])}, "a.jsonl")
		ps := res.Inputs[0].Problems
		if len(evs) != 0 || len(ps) != 1 || ps[0].Line != 1 || !strings.Contains(ps[0].Message, "context-options") {
			t.Fatalf("events %q, problems %+v", pwTypes(evs), ps)
		}
	})
	t.Run("standard input", func(t *testing.T) {
		var evs []Event
		res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(pwZip(map[string]string{"trace.trace": good}))}, func(e Event) { evs = append(evs, e) })
		if err != nil || res.Inputs[0].Format != FormatPlaywright || pwTypes(evs) != "task_started task_ended" || evs[0].File != "-/trace.trace" {
			t.Fatalf("%v %+v %q", err, res.Inputs, pwTypes(evs))
		}
	})
}

// An unpacked trace in a folder: the walk reads the .trace (by content)
// with its .network; it may still be written to, so the context is left
// open (no task_ended). A retry's archive with the same title restarts
// the task.
func TestPlaywright_UnpackedFolderAndRetry(t *testing.T) {
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"localPaths":["/x/r.pdf"]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"#send"}}`)
	network := pwLines(`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1350,"time":20,"request":{"method":"POST","url":"https://chat.example/upload"},"response":{"status":200}}}`)
	retry := strings.Replace(trace, "1796022000000", "1796025600000", 1)
	res, evs := readPW(t, Options{}, map[string][]byte{
		"run/a/0-trace.trace": []byte(trace), "run/a/0-trace.network": []byte(network), "run/a/0-trace.stacks": []byte("{}"),
		"run/b/trace.zip": pwZip(map[string]string{"0-trace.trace": retry}),
		"run/notes.trace": []byte("strace output, not a trace\n"),
	}, "run")
	noProblems(t, res)
	if len(res.Inputs) != 2 || res.Inputs[0].Path != "run/a/0-trace.trace" || res.Inputs[1].Path != "run/b/trace.zip" {
		t.Fatalf("inputs %+v", res.Inputs)
	}
	if got, want := pwTypes(evs), "task_started intent picker_accepted send_fired response task_started intent picker_accepted send_fired task_ended"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	if evs[4].File != "run/a/0-trace.network" || evs[0].Task != evs[5].Task {
		t.Errorf("response at %s; tasks %q %q (a retry is a restart of the same task)", evs[4].File, evs[0].Task, evs[5].Task)
	}
}

func TestPlaywright_Detection(t *testing.T) {
	if f := detect(pwZip(map[string]string{"trace.trace": pwCtx}), true, nil); f != formatZip {
		t.Errorf("zip: %s", f)
	}
	if f := detect([]byte(pwLines(pwCtx, pwPage)), true, nil); f != FormatPlaywright {
		t.Errorf(".trace: %s", f)
	}
	if f := detect([]byte(`{"version":7,"type":"before"}`+"\n"), true, nil); f == FormatPlaywright {
		t.Errorf("a line that is no context-options: %s", f)
	}
}

// The events of the corpus's version 4 trace (Playwright 1.37, a test
// runner's archive), as JSON: refresh with GOLDIE_UPDATE=1 (or -update)
// and read the diff.
func TestPlaywright_CorpusGolden(t *testing.T) {
	dir := sharedtest.Path(t, "corpus/playwright")
	t.Chdir(dir)
	var evs []Event
	res, err := Read([]string{"pw-repo-trace-1.37.zip"}, Options{}, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(map[string]any{"inputs": res.Inputs, "events": evs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(testdataDir(t), "golden")), goldie.WithNameSuffix(".golden"))
	g.Assert(t, "playwright-corpus-1.37.json", append(out, '\n'))
}

func testdataDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "testdata")
}

// --as-of reads the trace as it was then: a context that went on after it
// had not ended.
func TestPlaywright_AsOf(t *testing.T) {
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"localPaths":["/x/r.pdf"]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"#send"}}`)
	files := map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": trace})}
	_, evs := readPW(t, Options{AsOf: time.Date(2026, 11, 30, 7, 0, 0, 250e6, time.UTC)}, files, "t.zip")
	if got := pwTypes(evs); got != "task_started intent picker_accepted" {
		t.Fatalf("as of 250 ms: events %q", got)
	}
	_, evs = readPW(t, Options{AsOf: time.Date(2026, 11, 30, 7, 0, 1, 0, time.UTC)}, files, "t.zip")
	if got := pwTypes(evs); got != "task_started intent picker_accepted send_fired task_ended" {
		t.Fatalf("as of 1 s: events %q", got)
	}
}

// A walked folder reads every zip: one that holds no trace is not recognized.
func TestPlaywright_WalkReadsEveryArchive(t *testing.T) {
	res, _ := readPW(t, Options{}, map[string][]byte{
		"d/src.zip":   pwZip(map[string]string{"lib/stack.trace": "not a trace"}),
		"d/trace.zip": pwZip(map[string]string{"0-trace.trace": pwLines(pwCtx)}),
	}, "d")
	noProblems(t, res)
	// A zip with a file named *.trace that no trace is (a project's
	// sources) is read and not recognized: a notice, not a trace's problem.
	if len(res.Inputs) != 2 || res.Inputs[0].Path != "d/src.zip" || res.Inputs[0].Format != FormatUnknown || len(res.Inputs[0].Notices) != 1 ||
		res.Inputs[1].Path != "d/trace.zip" || res.Inputs[1].Format != FormatPlaywright || len(res.Skipped) != 0 {
		t.Fatalf("inputs %+v skipped %v", res.Inputs, res.Skipped)
	}
}

// A profile can make a press of Enter a send (the key is an argument).
func TestPlaywright_ProfileMakesEnterASend(t *testing.T) {
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"localPaths":["/x/r.pdf"]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"press","params":{"selector":"#message","key":"Enter"}}`)
	files := map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": trace})}
	if _, evs := readPW(t, Options{}, files, "t.zip"); pwTypes(evs) != "task_started intent picker_accepted task_ended" {
		t.Fatalf("built-in: %q", pwTypes(evs))
	}
	p, err := ParseProfile("enter", []byte(`{"name":"enter","rules":[{"name":"enter sends","tool":"^browser_click$","arg":"key","matches":"^Enter$","evidence":"send_fired","destination":{"provider":"web","id_default":"$page"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, evs := readPW(t, Options{Profile: p}, files, "t.zip"); pwTypes(evs) != "task_started intent picker_accepted send_fired task_ended" {
		t.Fatalf("with the profile: %q", pwTypes(evs))
	}
}
