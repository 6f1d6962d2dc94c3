package transcripts

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/effectlint/effectlint/effect"
)

// Playwright traces (trace.zip as tracing.stop writes it, or an unpacked
// trace: N-trace.trace with N-trace.network and resources/ beside it).
// Every *.trace that starts with a context-options line is one browser
// context: a task. Its actions (before/after lines) and its network log
// (resource-snapshot lines of the .network) are joined by time:
//
//   - setInputFiles (page, locator, element handle, file chooser) is
//     picker_accepted, with an intent: the page's URL is the destination
//     (provider web), the file its content: the bytes when the trace holds
//     them, the local path it names, else none (tied to no key);
//   - click, dblclick, tap and press, and a dispatchEvent of a click (or
//     submit, tap, pointerup...), are judged by the conventions as the
//     Playwright MCP tool browser_click whose element is the selector
//     (built in: a submit-shaped selector, role or name is send_fired; a
//     profile may say otherwise);
//   - a request the test sends itself (APIRequestContext.fetch) that
//     writes is request_sent to its URL, keyed by each multipart file the
//     trace holds the bytes of, else tied to no key;
//   - a writing request (not GET, HEAD, OPTIONS) after a picker that no
//     send follows is request_sent (an upload on choosing); its outcome,
//     and that of a writing request after a send or before a send that
//     follows (part of that delivery: no second submission), is a
//     response (ok for 2xx, with the status) or response_lost (no status);
//   - waitForSelector and expect after a send are a readback: confirmed
//     when they passed, unavailable when they timed out, mismatch when
//     they failed otherwise;
//   - any other action that ends in an error is timeout (TimeoutError)
//     or failure_shown.
//
// Contexts are told apart by the trace's title (the test runner gives
// every context of a test its title) and the trace's name in the archive;
// a retry of the test writes another archive with the same title and
// names: a restart of that task. A trace without a title is a task of its
// own. A zip archive is written when tracing stops: its contexts ended
// (task_ended); an unpacked trace may still be written to, and is left
// open.

// FormatPlaywright is the name of Playwright traces.
const FormatPlaywright = "playwright"

// The trace format versions this reader knows: the corpus holds 4, 6 and
// 7; Playwright 1.65 writes 10.
const (
	pwMinVersion = 3
	pwMaxVersion = 10
)

// pwContextLine: a record that starts a context's trace.
func pwContextLine(r gjson.Result) bool {
	return r.Get("type").String() == "context-options" && r.Get("version").Type == gjson.Number
}

// pwArchive is a trace's files: a zip archive's entries or a folder's
// files, by name relative to the trace.
type pwArchive struct {
	names   []string // the *.trace it holds, in order
	has     func(name string) bool
	open    func(name string) (io.ReadCloser, error)
	display func(name string) string
	// finished: tracing stopped (a zip archive), so its contexts ended.
	finished bool
}

// readPlaywright reads one .trace file (forced, or detected by its first
// line) with what lies beside it; trace archives come through readZip.
func (rn *run) readPlaywright(br *bufio.Reader, in *Input) {
	in.Format = FormatPlaywright
	rn.readPlaywrightArchive(pwSingleTrace(br, in.Path), in)
}

func (a *pwArchive) hasTrace() bool {
	for _, n := range a.names {
		if strings.HasSuffix(n, ".trace") {
			return true
		}
	}
	return false
}

// readPlaywrightArchive reads every context trace of an archive.
func (rn *run) readPlaywrightArchive(a *pwArchive, in *Input) {
	read := 0
	for _, name := range a.names {
		if !strings.HasSuffix(name, ".trace") {
			continue
		}
		if rn.readPlaywrightTrace(a, name, in) {
			read++
		}
	}
	// (A .trace with nothing in it is left to checkEmpty: "the file is empty".)
	if read == 0 && len(in.Problems) == 0 && in.Events == 0 && len(in.Notices) == 0 && (a.finished || in.Records > 0) {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "no browser context trace (a *.trace starting with context-options) in the archive"})
	}
}

// pwItem is one record of a context's trace or network log, on the
// trace's own clock (milliseconds).
type pwItem struct {
	t    float64
	seq  int // file order: trace lines first, then network lines
	kind string
	file string
	line int
	r    gjson.Result
	// A snapshot keeps only its page's URL and call (its html can be
	// megabytes, and a trace holds many).
	url, callID string
}

// pwTrace is one context being read.
type pwTrace struct {
	rn      *run
	a       *pwArchive
	in      *Input
	conv    *conventions
	task    string
	file    string // display path of the .trace
	version int64
	// clock: wall = wall0 + (t - mono0) milliseconds.
	wall0, mono0 float64
	clockOK      bool
	items        []pwItem
	problems     []Problem
	befores      map[string]gjson.Result
	snapURL      map[string]string // callId → the main frame's URL before it
	snapTitle    map[string]string
	url, title   string
	// The current crossing episode of the context.
	crossed, sent bool
	lastT         float64
	lastLine      int  // of the .trace
	cut           bool // records after Options.AsOf were left out
	sendAhead     bool // a send follows the current record in its episode
	// The first snapshot's wall and monotonic time (a clock for traces
	// whose actions give none).
	snapWall, snapMono float64
	snapClock          bool
	// resources/<sha1> already hashed: a resource given to many calls is
	// inflated once, not once per call.
	sums map[string]*[32]byte
}

// readPlaywrightTrace reads one .trace (and its .network); false when it
// is no context's trace (the test runner's steps, say).
func (rn *run) readPlaywrightTrace(a *pwArchive, name string, in *Input) bool {
	t := &pwTrace{rn: rn, a: a, in: in, file: a.display(name), befores: map[string]gjson.Result{},
		snapURL: map[string]string{}, snapTitle: map[string]string{}}
	var ctx, firstRec gjson.Result
	ctxLine, firstLine := 0, 0
	t.lines(name, func(l rawLine, r gjson.Result) bool {
		if firstLine == 0 {
			firstRec, firstLine = r.Get("@this"), l.num
			if !pwContextLine(r) || r.Get("origin").String() == "testRunner" {
				return false
			}
			ctx, ctxLine = firstRec, l.num
			return true
		}
		t.record(t.file, l.num, r)
		return true
	})
	if ctxLine == 0 {
		switch {
		case firstLine == 0:
		case firstRec.Get("class").String() == "Test" || firstRec.Get("origin").String() == "testRunner":
			// The test runner's own steps (test.trace; N-trace.trace of
			// older versions) hold no context's actions.
			in.Notices = appendOnce(in.Notices, "Playwright test runner steps (a trace of Test steps, such as test.trace) are not read: each browser context's own trace holds its actions")
		default:
			t.problems = append(t.problems, Problem{File: t.file, Line: firstLine,
				Message: "not a Playwright browser context's trace: its first record is not context-options"})
		}
		t.flushProblems("")
		return false
	}
	t.version = ctx.Get("version").Int()
	base := strings.TrimSuffix(path.Base(name), ".trace")
	if title := ctx.Get("title").String(); title != "" {
		t.task = "playwright:" + title + "/" + base
	} else {
		t.task = "playwright:" + t.file
	}
	if network := strings.TrimSuffix(name, ".trace") + ".network"; a.has(network) {
		t.lines(network, func(l rawLine, r gjson.Result) bool {
			t.record(a.display(network), l.num, r)
			return true
		})
	}
	if t.version < pwMinVersion || t.version > pwMaxVersion {
		t.problems = append(t.problems, Problem{File: t.file, Line: ctxLine,
			Message: fmt.Sprintf("trace format version %d is not one this reader knows (%d to %d): actions it records otherwise may be missed", t.version, pwMinVersion, pwMaxVersion)})
	}
	t.setClock(ctx)
	t.conv = rn.conventions(in)
	t.conv.file = t.file
	t.conv.source = FormatPlaywright
	emit := t.conv.emit
	t.conv.emit = func(e Event) {
		if e.Type == "send_fired" || e.Type == "request_sent" {
			t.sent, t.crossed = true, true
		}
		emit(e)
	}
	start := ctx.Get("monotonicTime").Float()
	if !ctx.Get("monotonicTime").Exists() && len(t.items) > 0 {
		start = t.items[0].t
	}
	fields := map[string]any{"relation": "root"}
	if title := ctx.Get("title").String(); title != "" {
		fields["title"] = clip(title, 200)
	}
	t.conv.lifecycle(t.task, t.ts(start), ctxLine, "task_started", fields)
	t.lastT, t.lastLine = start, ctxLine
	t.run()
	if a.finished && !t.cut {
		// At the last record read: tracing stopped after it.
		t.conv.lifecycle(t.task, t.ts(t.lastT), t.lastLine, "task_ended", map[string]any{"status": "completed"})
	}
	t.flushProblems(t.task)
	return true
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// flushProblems gives the context's problems to the input: every one of
// them is that context's (a trace file is one context).
func (t *pwTrace) flushProblems(task string) {
	for _, p := range t.problems {
		p.Task = task
		t.in.addProblem(p)
	}
	t.problems = nil
}

// lines reads the JSON Lines of an entry; handle returns false to stop.
func (t *pwTrace) lines(name string, handle func(rawLine, gjson.Result) bool) {
	file := t.a.display(name)
	rc, err := t.a.open(name)
	if err != nil {
		t.problems = append(t.problems, Problem{File: file, Line: 1, Message: "cannot read: " + err.Error()})
		return
	}
	defer rc.Close()
	lr := newLineReader(rc, t.rn.opt.MaxLineBytes)
	for {
		l, err := lr.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.problems = append(t.problems, Problem{File: file, Line: lr.line + 1, Message: "input ends early: " + err.Error()})
			return
		}
		if len(bytes.Trim(l.bytes, " \t\r\n")) == 0 && !l.tooLong {
			continue
		}
		t.in.Records++
		if msg, _ := checkJSONLine(l, ""); msg != "" {
			t.problems = append(t.problems, Problem{File: file, Line: l.num, Message: msg})
			continue
		}
		if !handle(l, gjson.ParseBytes(l.bytes)) {
			return
		}
	}
}

// record keeps what a line says that matters, at its time.
func (t *pwTrace) record(file string, line int, r gjson.Result) {
	add := func(kind string, tm gjson.Result) *pwItem {
		if tm.Type != gjson.Number || math.IsNaN(tm.Float()) || math.IsInf(tm.Float(), 0) {
			t.problems = append(t.problems, Problem{File: file, Line: line, Message: kind + " record without a time"})
			return nil
		}
		t.items = append(t.items, pwItem{t: tm.Float(), seq: len(t.items), kind: kind, file: file, line: line, r: r})
		return &t.items[len(t.items)-1]
	}
	switch r.Get("type").String() {
	case "before":
		t.befores[r.Get("callId").String()] = r
		add("before", r.Get("startTime"))
	case "after":
		add("after", r.Get("endTime"))
	case "event":
		if r.Get("method").String() == "navigated" && r.Get("class").String() == "Frame" {
			add("navigated", r.Get("time"))
		}
	case "frame-snapshot":
		s := r.Get("snapshot")
		if !s.Get("isMainFrame").Bool() {
			return
		}
		id := s.Get("callId").String()
		before := s.Get("phase").String() == "before" || strings.HasPrefix(s.Get("snapshotName").String(), "before@")
		if before && id != "" {
			if _, ok := t.snapURL[id]; !ok {
				t.snapURL[id] = s.Get("frameUrl").String()
			}
		}
		if title := pwTitle(s.Get("html"), 0); title != "" {
			t.snapTitle[id] = title
		}
		if w := s.Get("wallTime"); w.Type == gjson.Number && !t.snapClock && s.Get("timestamp").Type == gjson.Number {
			t.snapWall, t.snapMono, t.snapClock = w.Float(), s.Get("timestamp").Float(), true
		}
		if it := add("snapshot", s.Get("timestamp")); it != nil {
			it.r, it.url, it.callID = gjson.Result{}, s.Get("frameUrl").String(), id
		}
	case "resource-snapshot":
		s := r.Get("snapshot")
		if !pwWriting(s.Get("request.method").String()) {
			return
		}
		tm := s.Get("_monotonicTime")
		if tm.Type != gjson.Number {
			// No monotonic time: placed by its wall-clock start below.
			t.items = append(t.items, pwItem{t: math.NaN(), seq: len(t.items), kind: "request", file: file, line: line, r: r})
			return
		}
		add("request", tm)
	}
}

// pwWriting: a request that may change the server (a delivery).
func pwWriting(method string) bool {
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS", "TRACE", "CONNECT":
		return false
	}
	return method != ""
}

// pwTitle finds the text of a TITLE element in a snapshot's html (nested
// arrays: [tag, attributes, children...]).
func pwTitle(n gjson.Result, depth int) string {
	if !n.IsArray() || depth > 4 {
		return ""
	}
	kids := n.Array()
	if len(kids) >= 3 && kids[0].String() == "TITLE" && kids[2].Type == gjson.String {
		return clip(kids[2].Str, 200)
	}
	for _, k := range kids {
		if s := pwTitle(k, depth+1); s != "" {
			return s
		}
	}
	return ""
}

// setClock finds how the trace's monotonic times map to wall-clock time:
// context-options gives both (version 7 on); older traces give wallTime
// on actions or snapshots.
func (t *pwTrace) setClock(ctx gjson.Result) {
	if w, m := ctx.Get("wallTime"), ctx.Get("monotonicTime"); w.Type == gjson.Number && m.Type == gjson.Number {
		t.wall0, t.mono0, t.clockOK = w.Float(), m.Float(), true
	}
	for _, it := range t.items {
		if t.clockOK {
			break
		}
		switch it.kind {
		case "before":
			if w := it.r.Get("wallTime"); w.Type == gjson.Number {
				t.wall0, t.mono0, t.clockOK = w.Float(), it.t, true
			}
		}
	}
	if !t.clockOK && t.snapClock {
		t.wall0, t.mono0, t.clockOK = t.snapWall, t.snapMono, true
	}
	if !t.clockOK {
		if w := ctx.Get("wallTime"); w.Type == gjson.Number {
			t.wall0, t.clockOK = w.Float(), true
			if len(t.items) > 0 {
				t.mono0 = t.items[0].t
			}
		}
	}
	if t.clockOK && (t.wall0 < 0 || t.wall0 > 253402300799000) {
		t.clockOK = false
	}
	if !t.clockOK {
		t.problems = append(t.problems, Problem{File: t.file, Line: 1,
			Message: "the trace gives no wall-clock time: its events cannot be placed among other histories"})
		t.wall0, t.mono0 = 0, 0
	}
	// Network entries with no monotonic time: by their wall-clock start.
	for i := range t.items {
		it := &t.items[i]
		if it.kind != "request" || !math.IsNaN(it.t) {
			continue
		}
		started, err := time.Parse(time.RFC3339Nano, it.r.Get("snapshot.startedDateTime").String())
		if err != nil {
			t.problems = append(t.problems, Problem{File: it.file, Line: it.line, Message: "network entry without a time"})
			it.kind, it.t = "", 0
			continue
		}
		it.t = float64(started.UnixMilli()) - t.wall0 + t.mono0 + math.Max(0, it.r.Get("snapshot.time").Float())
	}
}

// ts turns a trace time into wall-clock time (bounded to printable years).
func (t *pwTrace) ts(mono float64) time.Time {
	ms := t.wall0 + (mono - t.mono0)
	if math.IsNaN(ms) || ms < 0 {
		ms = 0
	}
	if ms > 253402300799000 {
		ms = 253402300799000
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// run emits the context's evidence in time order.
func (t *pwTrace) run() {
	sort.SliceStable(t.items, func(i, j int) bool {
		if t.items[i].t != t.items[j].t {
			return t.items[i].t < t.items[j].t
		}
		return t.items[i].seq < t.items[j].seq
	})
	asOf := t.rn.opt.AsOf
	// sendAhead: a send follows in the same episode (before the next
	// picker), within what --as-of lets be known. A writing request
	// before it is then part of that delivery (an upload on choosing the
	// file), not a submission of its own: a picker, its upload and the
	// send are one submission, never a duplicate in one segment.
	sendAhead := make([]bool, len(t.items))
	later := false
	for i := len(t.items) - 1; i >= 0; i-- {
		it := t.items[i]
		if it.kind == "before" && (asOf.IsZero() || !t.ts(it.t).After(asOf)) {
			switch m := it.r.Get("method").String(); {
			case m == "setInputFiles":
				later = false
			case pwClickLike(it.r) && t.judgedSubmission(it):
				later = true
			}
		}
		sendAhead[i] = later
	}
	for i, it := range t.items {
		if it.kind == "" {
			continue
		}
		t.sendAhead = sendAhead[i]
		if !asOf.IsZero() && t.ts(it.t).After(asOf) {
			t.cut = true // the context went on after --as-of: not ended then
			break
		}
		if it.t > t.lastT {
			t.lastT = it.t
		}
		if it.file == t.file && it.line > t.lastLine {
			t.lastLine = it.line
		}
		t.conv.wrote(t.task, it.line)
		switch it.kind {
		case "navigated":
			t.url = it.r.Get("params.url").String()
		case "snapshot":
			t.url = it.url
			if title := t.snapTitle[it.callID]; title != "" {
				t.title = title
			}
		case "before":
			t.before(it)
		case "after":
			t.after(it)
		case "request":
			t.request(it)
		}
	}
}

// destination is the page an action acts on: the URL its own snapshot
// shows, else the page's latest.
func (t *pwTrace) destination(callID string) map[string]any {
	u := t.url
	if s, ok := t.snapURL[callID]; ok && s != "" {
		u = s
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if u == "" || u == "about:blank" {
		return nil
	}
	d := map[string]any{"provider": "web", "id": u}
	if t.title != "" {
		d["title"] = t.title
	}
	return d
}

var pwClicks = map[string]bool{"click": true, "dblclick": true, "tap": true, "press": true}

// pwClickLike: a click, dblclick, tap or press, or a dispatchEvent of a
// click or submit (an event the page handles as that click: the same
// send conventions judge it).
func pwClickLike(r gjson.Result) bool {
	m := r.Get("method").String()
	if m == "dispatchEvent" {
		switch strings.ToLower(r.Get("params.type").String()) {
		case "click", "dblclick", "submit", "tap", "pointerup", "mouseup", "touchend":
			return true
		}
		return false
	}
	return pwClicks[m]
}

func (t *pwTrace) before(it pwItem) {
	r := it.r
	method := r.Get("method").String()
	id := r.Get("callId").String()
	ts := t.ts(it.t)
	switch {
	case method == "setInputFiles":
		t.picker(it, id, ts)
	case r.Get("class").String() == "APIRequestContext" && method == "fetch":
		t.apiRequest(it, id, ts)
	case pwClickLike(r):
		if t.conv.page == nil {
			t.conv.page = map[string]string{}
		}
		if d := t.destination(id); d != nil {
			t.conv.page[t.task] = d["id"].(string)
		} else {
			delete(t.conv.page, t.task)
		}
		t.conv.Call(t.clickCall(it, ts))
	}
}

// clickCall is a click or press as the tool call the conventions judge.
func (t *pwTrace) clickCall(it pwItem, ts time.Time) ToolCall {
	r := it.r
	action := r.Get("method").String()
	if action == "dispatchEvent" {
		action += ":" + r.Get("params.type").String()
	}
	args, _ := json.Marshal(map[string]any{"element": r.Get("params.selector").String(),
		"key": r.Get("params.key").String(), "action": action})
	return ToolCall{Task: t.task, TS: ts, Name: "browser_click", Args: string(args), Line: it.line}
}

// judgedSubmission: the conventions make this click a submission.
func (t *pwTrace) judgedSubmission(it pwItem) bool {
	for _, j := range t.conv.judge(t.clickCall(it, time.Time{}), "browser_click", t.conv.rules) {
		if j.rule.Evidence == "send_fired" || j.rule.Evidence == "request_sent" {
			return true
		}
	}
	return false
}

// pwFile is one file a picker or a request carries: its name as recorded
// and its content (nil when its bytes are not known).
type pwFile struct {
	name    string
	content map[string]any
}

// crossEach records a crossing of type typ for each file, with fields,
// each under an intent of its own: keyed when the destination and the
// file's bytes are known, else tied to no key (unkeyed-…), so the gate
// stops rather than guess.
func (t *pwTrace) crossEach(id string, ts time.Time, line int, typ string, dest map[string]any, files []pwFile, fields map[string]any) {
	for i, f := range files {
		intent := "pw:" + id
		if i > 0 {
			intent += fmt.Sprintf("#%d", i+1)
		}
		ev := make(map[string]any, len(fields)+2)
		for k, v := range fields {
			ev[k] = v
		}
		if f.name != "" {
			ev["file"] = clip(f.name, 300)
		}
		if dest != nil && f.content != nil {
			t.conv.event(t.task, ts, line, "intent", map[string]any{"intent": intent, "destination": dest, "content": f.content})
		} else {
			intent = "unkeyed-" + intent
		}
		ev["intent"] = intent
		t.conv.event(t.task, ts, line, typ, ev)
	}
}

// picker: a file input given files. One intent for each file.
func (t *pwTrace) picker(it pwItem, id string, ts time.Time) {
	params := it.r.Get("params")
	var files []pwFile
	params.Get("localPaths").ForEach(func(_, p gjson.Result) bool {
		if p.Type == gjson.String && p.Str != "" {
			files = append(files, pwFile{name: p.Str, content: t.localFile(p.Str)})
		}
		return true
	})
	for _, key := range []string{"payloads", "files"} {
		params.Get(key).ForEach(func(_, p gjson.Result) bool {
			files = append(files, pwFile{name: p.Get("name").String(), content: t.payload(p)})
			return true
		})
	}
	if params.Get("localDirectory").Exists() || len(files) == 0 {
		files = append(files, pwFile{name: params.Get("localDirectory").String()})
	}
	dest := t.destination(id)
	t.crossed, t.sent = true, false
	t.crossEach(id, ts, it.line, "picker_accepted", dest, files, map[string]any{"action": "setInputFiles"})
}

// apiRequest: a request the test sends itself (APIRequestContext.fetch:
// request.post, page.request.put, ...). One that writes (a method that is
// not GET/HEAD/OPTIONS, or any body) is request_sent whatever the page
// shows: destination web / its URL; one intent for each multipart file
// whose bytes the trace holds, else a crossing tied to no key (a form, a
// JSON or raw body, a file without its bytes).
func (t *pwTrace) apiRequest(it pwItem, id string, ts time.Time) {
	params := it.r.Get("params")
	method := strings.ToUpper(params.Get("method").String())
	body := false
	for _, k := range []string{"postData", "jsonData", "formData", "multipartData"} {
		if v := params.Get(k); v.Exists() && v.Type != gjson.Null {
			body = true
		}
	}
	if method == "" {
		method = "GET"
		if body {
			method = "POST"
		}
	}
	if !pwWriting(method) && !body {
		return
	}
	u := params.Get("url").String()
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	var dest map[string]any
	if u != "" {
		dest = map[string]any{"provider": "web", "id": clip(u, 2000)}
	}
	var files []pwFile
	params.Get("multipartData").ForEach(func(_, p gjson.Result) bool {
		if f := p.Get("file"); f.Exists() {
			files = append(files, pwFile{name: f.Get("name").String(), content: t.payload(f)})
		}
		return true
	})
	if len(files) == 0 {
		files = append(files, pwFile{}) // a body that is no file: no content to key
	}
	detail := method + " " + clip(u, 300)
	t.crossed, t.sent = true, false
	t.crossEach(id, ts, it.line, "request_sent", dest, files, map[string]any{"action": "fetch", "detail": detail})
	t.sent = true
}

// localFile is the content of a file the trace names by path. Playwright
// records absolute paths; the analyzer hashes them (through --path-map
// when they were another machine's), and one that does not resolve
// leaves the picker without a key. A relative path resolves against the
// folder of the archive (or .trace) that names it, and is hashed here: the
// analyzer would look inside the archive's name.
func (t *pwTrace) localFile(p string) map[string]any {
	name := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") || t.in.Path == "-" {
		return map[string]any{"path": p, "name": name}
	}
	full := filepath.Join(filepath.Dir(filepath.FromSlash(t.in.Path)), filepath.FromSlash(p))
	sum, err := effect.HashRegularFile(full)
	if err != nil {
		// Not found: a path the analyzer cannot hash either (no key).
		return map[string]any{"path": filepath.ToSlash(full), "name": name}
	}
	return map[string]any{"sha256": sum, "name": name}
}

// payload is the content of a file given as bytes: hashed when the trace
// holds them (inline base64, or resources/ by sha1), else nil.
func (t *pwTrace) payload(p gjson.Result) map[string]any {
	name := p.Get("name").String()
	var sum [32]byte
	if sha1 := p.Get("sha1").String(); sha1 != "" {
		s := t.resourceSum(sha1)
		if s == nil {
			return nil
		}
		sum = *s
	} else if b := p.Get("buffer"); b.Type == gjson.String && !strings.HasPrefix(b.Str, "<") {
		dec, err := base64.StdEncoding.DecodeString(b.Str)
		if err != nil {
			return nil
		}
		sum = sha256.Sum256(dec)
	} else {
		return nil
	}
	c := map[string]any{"sha256": hex.EncodeToString(sum[:])}
	if name != "" {
		c["name"] = clip(name, 300)
	}
	return c
}

// resourceSum is the SHA-256 of resources/<sha1> of the trace (read
// bounded), nil when it cannot be read.
func (t *pwTrace) resourceSum(sha1 string) *[32]byte {
	if s, ok := t.sums[sha1]; ok {
		return s
	}
	var sum *[32]byte
	if b, ok := t.resource(sha1); ok {
		s := sha256.Sum256(b)
		sum = &s
	}
	if t.sums == nil {
		t.sums = map[string]*[32]byte{}
	}
	t.sums[sha1] = sum
	return sum
}

// resource reads resources/<sha1> of the trace (bounded).
func (t *pwTrace) resource(sha1 string) ([]byte, bool) {
	if strings.ContainsAny(sha1, `/\`) || strings.Contains(sha1, "..") {
		return nil, false
	}
	rc, err := t.a.open("resources/" + sha1)
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	b, tooBig, err := readBounded(rc, t.rn.documentLimit())
	if err != nil || tooBig {
		return nil, false
	}
	return b, true
}

var pwReadbacks = map[string]bool{"expect": true, "waitForSelector": true}

func (t *pwTrace) after(it pwItem) {
	id := it.r.Get("callId").String()
	b, ok := t.befores[id]
	if !ok {
		return
	}
	method := b.Get("method").String()
	if method == "goto" && !it.r.Get("error").Exists() {
		if u := b.Get("params.url").String(); u != "" {
			t.url = u
		}
	}
	ts := t.ts(it.t)
	errMsg, timedOut := pwError(it.r)
	if pwReadbacks[method] && t.sent {
		result := "confirmed"
		switch {
		case timedOut:
			result = "unavailable"
		case errMsg != "" || it.r.Get("result.matches").Type == gjson.False:
			result = "mismatch"
		}
		fields := map[string]any{"result": result, "action": method}
		if sel := b.Get("params.selector").String(); sel != "" {
			fields["detail"] = clip(sel, 200)
		}
		t.conv.event(t.task, ts, it.line, "readback", fields)
		return
	}
	if errMsg == "" {
		return
	}
	typ := "failure_shown"
	if timedOut {
		typ = "timeout"
	}
	t.conv.event(t.task, ts, it.line, typ, map[string]any{"detail": clip(method+": "+errMsg, 300), "action": method})
}

// pwError is an action's error message, and whether it was a timeout.
// Versions differ in the shape: {error: {message, name}} or {error:
// {error: {message, name}}}.
func pwError(after gjson.Result) (string, bool) {
	e := after.Get("error")
	if !e.Exists() || e.Type == gjson.Null {
		return "", false
	}
	if e.Get("error").IsObject() {
		e = e.Get("error")
	}
	msg := e.Get("message").String()
	if msg == "" {
		msg = clip(e.Raw, 200)
	}
	timedOut := e.Get("name").String() == "TimeoutError" || strings.HasPrefix(msg, "Timeout ") || strings.Contains(msg, "TimeoutError")
	return clip(firstLine(msg), 300), timedOut
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// request: a writing request of the page, after a crossing of this
// context.
func (t *pwTrace) request(it pwItem) {
	if !t.crossed {
		return
	}
	s := it.r.Get("snapshot")
	end := t.ts(it.t)
	start := t.ts(it.t - math.Max(0, s.Get("time").Float()))
	method := s.Get("request.method").String()
	url := clip(s.Get("request.url").String(), 300)
	if !t.sent && !t.sendAhead {
		// An upload on choosing the file, and no send after it: the
		// request is the submission.
		t.event(it, start, "request_sent", map[string]any{"detail": method + " " + url})
		t.sent = true
	}
	status := s.Get("response.status")
	if status.Type != gjson.Number || status.Int() <= 0 {
		detail := method + " " + url
		if f := s.Get("response._failureText").String(); f != "" {
			detail += ": " + clip(f, 200)
		}
		t.event(it, end, "response_lost", map[string]any{"detail": detail})
		return
	}
	code := status.Int()
	t.event(it, end, "response", map[string]any{"ok": code >= 200 && code < 300, "status": float64(code), "detail": method + " " + url})
}

// event emits at a network line (its own file).
func (t *pwTrace) event(it pwItem, ts time.Time, typ string, fields map[string]any) {
	file := t.conv.file
	t.conv.file = it.file
	t.conv.event(t.task, ts, it.line, typ, fields)
	t.conv.file = file
}
