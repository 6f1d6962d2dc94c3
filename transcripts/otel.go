package transcripts

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// OpenTelemetry GenAI spans.
//
// Read: OTLP/JSON documents ({"resourceSpans": [{"scopeSpans": [{"spans":
// [...]}]}]}, also the older instrumentationLibrarySpans), OTLP/JSON Lines
// (one export request a line, as the Collector's file exporter writes), and
// spans dumped by the OpenTelemetry Python SDK ({"spans": [...]} or a bare
// array of spans with context.trace_id / context.span_id, decimal or 0x ids
// and a flat attribute object, as any-agent writes them). Ids may be hex,
// protobuf-JSON base64 or decimal numbers; they are normalized to lowercase
// hex. Status codes may be enum names or numbers (2 / STATUS_CODE_ERROR is
// an error). Times are Unix nanoseconds (a number or a decimal string) or
// RFC 3339.
//
// Evidence: an execute_tool span (gen_ai.operation.name == "execute_tool",
// or a span name starting with "execute_tool") is one tool call, named by
// gen_ai.tool.name (else the rest of the span name), with the arguments of
// gen_ai.tool.call.arguments, at the span's start; the span's end is its
// result, an error when the status is ERROR (or an unknown code), when the
// span has an "exception" event or an error.type attribute, or when
// gen_ai.tool.call.result says so (see toolresult.go). A span with no end
// time is a call without a result.
//
// Tasks: the nearest gen_ai.conversation.id on the span or an ancestor,
// else the trace id. An invoke_agent span below another agent's span starts
// a delegated child task "<parent task>/agent-<span id>" (or its own
// conversation id, when it has one that differs), which ends with that span;
// past three such levels, "<root task>/~<hash of the parent task's
// id>/agent-<span id>" (childID: ids stay bounded in a deep chain).
// A trace task ends with its root span (a span with no parent), failed when
// the root span's status is ERROR; a conversation task is never ended here
// (the next trace may continue it). Only traces with GenAI spans become
// tasks. Relations are found within one document: a span whose parent sits
// in another file or line belongs to its trace's (or conversation's) task.
// A span exported twice is counted once per run (by trace and span id).

const convAttr = "gen_ai.conversation.id"

type otelSpan struct {
	r                 gjson.Result
	trace, id, parent string
	name, op          string
	start, end        time.Time
	hasStart, hasEnd  bool
	attrs             map[string]otelValue
	conflict          string // an attribute key given twice with different values
	status            string // UNSET, OK, ERROR, or an unknown code as written
	statusKnown       bool
	exception         bool // an "exception" span event
	line, endLine     int
}

type otelValue struct {
	text string // a string as is; anything else as JSON
	json string
}

func (s *otelSpan) attr(k string) string { return s.attrs[k].text }

func (s *otelSpan) isTool() bool {
	return s.op == "execute_tool" || strings.HasPrefix(s.name, "execute_tool")
}

func (s *otelSpan) isAgent() bool {
	return s.op == "invoke_agent" || strings.HasPrefix(s.name, "invoke_agent")
}

func (s *otelSpan) genAI() bool { return s.op != "" || s.isTool() || s.isAgent() }

// otelDoc is one document's span tree.
type otelDoc struct {
	d        *document
	spans    []*otelSpan
	byID     map[string]*otelSpan // trace/span → span
	task     map[*otelSpan]string
	visiting map[*otelSpan]bool
	tasks    map[string]*otelTask
	order    []string
	// above remembers, per span, whether an agent span is at or above
	// it (agentAbove); links: 0 not yet known, 1 the parent links have no
	// cycle, 2 they have one.
	above map[*otelSpan]bool
	links int8
}

// acyclic reports whether following parent links from any span never
// comes back to it (computed once, in O(spans)).
func (o *otelDoc) acyclic() bool {
	if o.links == 0 {
		o.links = 1
		o.above = map[*otelSpan]bool{}
		state := map[*otelSpan]int8{} // 1: on the current walk, 2: done
		for _, s := range o.spans {
			var walk []*otelSpan
			for p := s; p != nil && state[p] != 2; {
				if state[p] == 1 {
					o.links = 2
					break
				}
				state[p] = 1
				walk = append(walk, p)
				if p.parent == "" {
					break
				}
				p = o.byID[p.trace+"/"+p.parent]
			}
			for _, p := range walk {
				state[p] = 2
			}
			if o.links == 2 {
				break
			}
		}
	}
	return o.links == 1
}

type otelTask struct {
	id, parent string // parent: the delegating task, for a child
	// depth counts the "/agent-" levels a derived child id names above
	// root, the task its ancestry starts from (childID).
	depth int
	root  string
	first *otelSpan
	ender *otelSpan // the span whose end ends the task
	genAI bool
	spans []*otelSpan
}

// otelNotes collects what is worth a notice over one input.
type otelNotes struct {
	other         int
	unknownStatus map[string]bool
}

func (n *otelNotes) flush(in *Input) {
	if n.other > 0 {
		in.Notices = append(in.Notices, fmt.Sprintf("%d span(s) without a GenAI operation (gen_ai.operation.name, execute_tool, invoke_agent): no evidence", n.other))
	}
	codes := make([]string, 0, len(n.unknownStatus))
	for c := range n.unknownStatus {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	if len(codes) > 8 {
		in.Notices = append(in.Notices, fmt.Sprintf("%d more unknown status codes: not listed", len(codes)-8))
		codes = codes[:8]
	}
	for _, c := range codes {
		in.Notices = append(in.Notices, fmt.Sprintf("status code %q is not UNSET, OK or ERROR: the tool calls it ends are not taken as confirmed", clip(c, 60)))
	}
}

func (rn *run) readOTelLines(src io.Reader, in *Input) {
	notes := &otelNotes{unknownStatus: map[string]bool{}}
	jsonLines(src, in, rn.opt.MaxLineBytes, "", func(l rawLine, r gjson.Result) {
		if !r.Get("resourceSpans").IsArray() {
			in.addProblem(Problem{File: in.Path, Line: l.num, Message: "not an OTLP/JSON export request (no resourceSpans)"})
			return
		}
		in.Records-- // counted again, span by span
		rn.readOTelDocument(&document{in: in, lines: newLineIndex(l.bytes), root: r, first: l.num}, notes)
	})
	notes.flush(in)
}

func (rn *run) readOTel(d *document) {
	notes := &otelNotes{unknownStatus: map[string]bool{}}
	rn.readOTelDocument(d, notes)
	notes.flush(d.in)
}

func (rn *run) readOTelDocument(d *document, notes *otelNotes) {
	o := &otelDoc{d: d, byID: map[string]*otelSpan{}, task: map[*otelSpan]string{},
		visiting: map[*otelSpan]bool{}, tasks: map[string]*otelTask{}}
	repeats := findRepeats(d)
	digests := map[*otelSpan]string{}
	for _, raw := range otelRawSpans(d.root) {
		if d.partial(raw) {
			continue // cut by a break in the document
		}
		d.in.Records++
		if rep, ok := repeats.in(raw); ok {
			// Two readings of the span (its name, its tool, its status):
			// neither is taken. Its task is decided by the span tree, so
			// the problem names none.
			d.in.addProblem(Problem{File: d.in.Path, Line: d.lineOf(raw), Message: repeatMessage(rep.path, "span")})
			continue
		}
		s, msg := o.parse(raw)
		conflict := s != nil && s.conflict != "" && (s.genAI() || strings.HasPrefix(s.conflict, "gen_ai."))
		if msg == "" && conflict {
			msg = fmt.Sprintf("attribute %q appears twice in the span with different values: it has two readings, so the span is not read", clip(s.conflict, 60))
		}
		if msg != "" {
			if s != nil && !s.genAI() && !conflict {
				notes.other++ // not evidence either way
				continue
			}
			d.in.addProblem(Problem{File: d.in.Path, Line: d.lineOf(raw), Message: msg})
			continue
		}
		digests[s] = spanDigest(raw)
		if first, dup := o.byID[s.trace+"/"+s.id]; dup {
			if digests[first] != digests[s] {
				// One span id, two spans: which one ran cannot be told.
				d.in.addProblem(Problem{File: d.in.Path, Line: s.line,
					Message: fmt.Sprintf("span %s of trace %s appears twice with different content: it has two readings", s.id, s.trace)})
			}
			continue // the same span twice in one document: once
		}
		o.byID[s.trace+"/"+s.id] = s
		o.spans = append(o.spans, s)
	}
	repeats.rest(d)
	for _, s := range o.spans {
		if s.genAI() {
			o.tasks[o.taskOf(s)].genAI = true
		} else {
			notes.other++
		}
	}
	// A delegating task is a task even when none of its own spans is a
	// GenAI span: its child names it.
	for _, id := range o.order {
		for t := o.tasks[id]; t.genAI && t.parent != "" && o.tasks[t.parent] != nil && !o.tasks[t.parent].genAI; t = o.tasks[t.parent] {
			o.tasks[t.parent].genAI = true
		}
	}
	conv := rn.conventions(d.in)
	for _, id := range o.order {
		t := o.tasks[id]
		if !t.genAI {
			continue
		}
		sort.SliceStable(t.spans, func(i, j int) bool { return t.spans[i].start.Before(t.spans[j].start) })
		if start, ts, ok := otelTaskStart(t); !ok {
			// No span of the task has a time: nothing of it can be
			// placed, and its tool calls are problems of their own.
			d.in.addProblem(Problem{File: d.in.Path, Line: t.first.line, Task: id,
				Message: "no span of this task has a readable start or end time"})
			continue
		} else if rn.once("task:" + id) {
			fields := map[string]any{"relation": "root"}
			if t.parent != "" {
				fields = map[string]any{"relation": "delegated", "parent": t.parent}
			}
			conv.lifecycle(id, ts, start.line, "task_started", fields)
		}
		ends := false
		for _, s := range t.spans {
			digest := "otel-span-digest:" + s.trace + "/" + s.id + "|" + digests[s]
			if !rn.once("otel-span:" + s.trace + "/" + s.id) {
				if !rn.seen[digest] {
					// Exported again with other content (another tool,
					// status or end): not a copy, and which one is
					// true cannot be told.
					d.in.addProblem(Problem{File: d.in.Path, Line: s.line, Task: id,
						Message: fmt.Sprintf("span %s of trace %s was read before with different content: it has two readings", s.id, s.trace)})
				}
				continue // exported twice: counted where first read
			}
			rn.seen[digest] = true
			if s.isTool() {
				rn.otelCall(conv, d, id, s, notes)
			}
			ends = ends || s == t.ender && s.hasEnd
		}
		if ends {
			status := "completed"
			if t.ender.status == "ERROR" {
				status = "failed"
			}
			conv.lifecycle(id, t.ender.end, t.ender.endLine, "task_ended", map[string]any{"status": status})
		}
	}
}

func (rn *run) otelCall(conv *conventions, d *document, task string, s *otelSpan, notes *otelNotes) {
	name := s.attr("gen_ai.tool.name")
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(s.name, "execute_tool"))
	}
	if name == "" {
		d.in.addProblem(Problem{File: d.in.Path, Line: s.line, Task: task,
			Message: "execute_tool span without gen_ai.tool.name: what it did cannot be told"})
		return
	}
	if p, repeated := argumentsRepeat(otelArgs(s)); repeated {
		d.in.addProblem(Problem{File: d.in.Path, Line: s.line, Task: task, Message: repeatMessage(p, "call's arguments")})
		return
	}
	if !s.hasStart && !s.hasEnd {
		d.in.addProblem(Problem{File: d.in.Path, Line: s.line, Task: task,
			Message: fmt.Sprintf("execute_tool span %q without a readable start or end time", clip(name, 60))})
		return
	}
	ts := s.start
	if !s.hasStart {
		ts = s.end
	}
	id := s.attr("gen_ai.tool.call.id")
	if id == "" || !rn.once("otel-call:"+id) {
		id = "span:" + s.id // two spans with one call id are two executions
	}
	conv.Call(ToolCall{Task: task, TS: ts, ID: id, Name: name, Args: otelArgs(s), Line: s.line})
	if !s.hasEnd {
		return // no result: the call may still be running, or was lost
	}
	failed := s.status == "ERROR" || s.exception || s.attr("error.type") != ""
	if !s.statusKnown {
		notes.unknownStatus[s.status] = true
		failed = true
	}
	for _, k := range []string{"gen_ai.tool.call.result", "gen_ai.output"} {
		if v, ok := s.attrs[k]; ok {
			failed = failed || outputSaysError(gjson.Parse(v.json))
			break
		}
	}
	conv.Result(id, toolResult{TS: s.end, Error: failed, Line: s.endLine})
}

// otelArgs is the arguments object: a string holding JSON, or a structured
// attribute value.
func otelArgs(s *otelSpan) string {
	for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.args"} {
		v, ok := s.attrs[k]
		if !ok {
			continue
		}
		if t := strings.TrimSpace(v.text); validJSONString(t) && gjson.Parse(t).IsObject() {
			return t
		}
		return v.json
	}
	return ""
}

// otelTaskStart is the span a task starts at and its time: the earliest
// start, else the earliest end; ok is false when no span has a time.
func otelTaskStart(t *otelTask) (*otelSpan, time.Time, bool) {
	var start *otelSpan
	var ts time.Time
	for _, s := range t.spans {
		if s.hasStart && (start == nil || !start.hasStart || s.start.Before(ts)) {
			start, ts = s, s.start
		}
	}
	for _, s := range t.spans {
		if start == nil || (!start.hasStart && s.hasEnd && s.end.Before(ts)) {
			if s.hasEnd {
				start, ts = s, s.end
			}
		}
	}
	return start, ts, start != nil
}

// taskOf assigns a span to a task (see the comment at the top).
func (o *otelDoc) taskOf(s *otelSpan) string {
	if t, ok := o.task[s]; ok {
		return t
	}
	o.visiting[s] = true
	p := o.parentOf(s)
	var t, parentTask, root string
	depth := 0
	ender := false
	switch {
	case s.isAgent() && p != nil && o.agentAbove(s):
		parentTask = o.taskOf(p)
		if c := s.attr(convAttr); c != "" && c != parentTask {
			t = c
		} else {
			t, depth, root = o.childID(parentTask, s.id)
		}
		ender = true
	case p != nil && o.tasks[o.taskOf(p)].parent != "":
		t = o.taskOf(p) // inside a delegated child: stay there
	case s.attr(convAttr) != "":
		t = s.attr(convAttr)
	case p != nil:
		t = o.taskOf(p)
	default:
		t = s.trace
		ender = s.parent == "" // the trace's root span ends the trace task
	}
	delete(o.visiting, s)
	o.task[s] = t
	ot := o.tasks[t]
	if ot == nil {
		ot = &otelTask{id: t, parent: parentTask, first: s, depth: depth, root: root}
		o.tasks[t] = ot
		o.order = append(o.order, t)
	}
	if ender && ot.ender == nil {
		ot.ender = s
	}
	ot.spans = append(ot.spans, s)
	return t
}

// namedLevels is how many "/agent-<span id>" levels a derived task id
// names before the ancestry above is hashed.
const namedLevels = 3

// childID derives the id of a delegated child task started by span below
// parentTask: "<parent task>/agent-<span id>" while that names at most
// namedLevels levels, else "<root task>/~<hash of the parent task's
// id>/agent-<span id>", which starts counting again. Ids stay readable
// (the root task and the span are named) and bounded: a chain N agents
// deep costs O(N), not O(N²) bytes (issue 15). The hash is 128 bits of
// SHA-256, so two parents do not share a child id.
func (o *otelDoc) childID(parentTask, span string) (id string, depth int, root string) {
	pt := o.tasks[parentTask]
	root = parentTask
	if pt != nil && pt.root != "" {
		root = pt.root
	}
	if pt == nil || pt.depth < namedLevels {
		d := 1
		if pt != nil {
			d = pt.depth + 1
		}
		return parentTask + "/agent-" + span, d, root
	}
	h := sha256.Sum256([]byte(parentTask))
	return root + "/~" + hex.EncodeToString(h[:16]) + "/agent-" + span, 1, root
}

// parentOf is the span's parent in this document, or nil (no parent, a
// parent elsewhere, or a cycle in broken input).
func (o *otelDoc) parentOf(s *otelSpan) *otelSpan {
	if s.parent == "" {
		return nil
	}
	p := o.byID[s.trace+"/"+s.parent]
	if p == nil || o.visiting[p] {
		return nil
	}
	return p
}

// agentAbove reports whether an agent span is among s's ancestors. In a
// document whose parent links have no cycle, what each ancestor has above
// it is remembered, so a chain N agents deep costs O(N) (issue 15); with a
// cycle (broken input) every span walks its own ancestry, as it always did.
func (o *otelDoc) agentAbove(s *otelSpan) bool {
	if o.acyclic() {
		var path []*otelSpan
		found := false
		for p := o.parentOf(s); p != nil; p = o.byID[p.trace+"/"+p.parent] {
			if v, ok := o.above[p]; ok {
				found = v
				break
			}
			path = append(path, p)
			if p.isAgent() {
				found = true
				break
			}
			if p.parent == "" {
				break
			}
		}
		// path[i] has an agent at or above it when found, each one up
		// to the agent (or the memo) that decided it
		for _, p := range path {
			o.above[p] = found
		}
		return found
	}
	seen := map[*otelSpan]bool{s: true}
	for p := o.parentOf(s); p != nil && !seen[p]; p = o.byID[p.trace+"/"+p.parent] {
		if p.isAgent() {
			return true
		}
		seen[p] = true
		if p.parent == "" {
			break
		}
	}
	return false
}

func otelRawSpans(root gjson.Result) []gjson.Result {
	var out []gjson.Result
	each := func(r gjson.Result, f func(gjson.Result)) {
		r.ForEach(func(_, v gjson.Result) bool { f(v); return true })
	}
	switch {
	case root.Get("resourceSpans").IsArray():
		each(root.Get("resourceSpans"), func(rs gjson.Result) {
			for _, k := range []string{"scopeSpans", "instrumentationLibrarySpans"} {
				each(rs.Get(k), func(ss gjson.Result) { each(ss.Get("spans"), func(sp gjson.Result) { out = append(out, sp) }) })
			}
		})
	case root.IsArray():
		each(root, func(sp gjson.Result) { out = append(out, sp) })
	default:
		each(root.Get("spans"), func(sp gjson.Result) { out = append(out, sp) })
	}
	return out
}

func firstOf(r gjson.Result, paths ...string) gjson.Result {
	for _, p := range paths {
		if v := r.Get(p); v.Exists() && v.Type != gjson.Null {
			return v
		}
	}
	return gjson.Result{}
}

// parse reads one span; msg says why it cannot be placed.
func (o *otelDoc) parse(r gjson.Result) (*otelSpan, string) {
	if !r.IsObject() {
		return nil, "span is not a JSON object"
	}
	s := &otelSpan{r: r, line: o.d.lineOf(r), name: firstOf(r, "name").String()}
	s.attrs, s.conflict = otelAttrs(firstOf(r, "attributes"))
	// The arguments under both names the reader accepts, with different
	// values: two readings too (third adversarial review).
	if a, ok := s.attrs["gen_ai.tool.call.arguments"]; ok && s.conflict == "" {
		if b, ok := s.attrs["gen_ai.tool.args"]; ok && a.json != b.json {
			s.conflict = "gen_ai.tool.call.arguments and gen_ai.tool.args"
		}
	}
	s.op = s.attr("gen_ai.operation.name")
	var ok bool
	if s.trace, ok = otelID(firstOf(r, "traceId", "trace_id", "context.trace_id"), 16); !ok || s.trace == "" {
		return s, "span without a readable trace id"
	}
	if s.id, ok = otelID(firstOf(r, "spanId", "span_id", "context.span_id"), 8); !ok || s.id == "" {
		return s, "span without a readable span id"
	}
	if s.parent, ok = otelID(firstOf(r, "parentSpanId", "parent_span_id", "parent_id", "parent.span_id"), 8); !ok {
		return s, "span with an unreadable parent span id"
	}
	start := firstOf(r, "startTimeUnixNano", "start_time_unix_nano", "start_time", "startTime")
	end := firstOf(r, "endTimeUnixNano", "end_time_unix_nano", "end_time", "endTime")
	s.start, s.hasStart = otelTime(start)
	s.end, s.hasEnd = otelTime(end)
	st := firstOf(r, "status")
	s.status, s.statusKnown = otelStatus(firstOf(st, "code", "status_code"))
	s.endLine = s.line
	switch {
	case st.Exists():
		s.endLine = o.d.lineOf(st)
	case end.Exists():
		s.endLine = o.d.lineOf(end)
	}
	firstOf(r, "events").ForEach(func(_, e gjson.Result) bool {
		s.exception = s.exception || e.Get("name").String() == "exception"
		return true
	})
	openInferenceSpan(s) // OpenInference attributes as GenAI ones (openinference.go)
	return s, ""
}

// otelAttrs reads OTLP attributes ([{key, value: AnyValue}]) or a flat
// attribute object. conflict names a key the list gives twice with
// different values (OTLP requires unique keys; readers of the list keep
// the first or the last): the first is kept, and the caller decides. The
// same key with the same value twice says one thing.
func otelAttrs(r gjson.Result) (out map[string]otelValue, conflict string) {
	out = map[string]otelValue{}
	switch {
	case r.IsArray():
		r.ForEach(func(_, kv gjson.Result) bool {
			k := kv.Get("key").String()
			if k == "" {
				return true
			}
			v := otlpAny(kv.Get("value"), 1)
			b, err := json.Marshal(v)
			if err != nil {
				b = []byte("null")
			}
			val := otelValue{text: string(b), json: string(b)}
			if s, ok := v.(string); ok {
				val.text = s
			}
			if prev, dup := out[k]; dup {
				if prev != val && conflict == "" {
					conflict = k
				}
				return true
			}
			out[k] = val
			return true
		})
	case r.IsObject():
		r.ForEach(func(k, v gjson.Result) bool {
			if v.Type == gjson.String {
				out[k.String()] = otelValue{text: v.Str, json: v.Raw}
			} else {
				out[k.String()] = otelValue{text: v.Raw, json: v.Raw}
			}
			return true
		})
	}
	return out, conflict
}

// spanDigest tells two exports of one span apart: the hash of its JSON
// without white space.
func spanDigest(r gjson.Result) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(r.Raw)) != nil {
		return sha256Hex(r.Raw)
	}
	return sha256Hex(b.String())
}

// otlpAny converts an OTLP AnyValue to a JSON-ready value; values nested
// deeper than MaxValueDepth are kept as their JSON text.
func otlpAny(v gjson.Result, depth int) any {
	number := func(n gjson.Result) any {
		text := n.Raw
		if n.Type == gjson.String {
			text = n.Str
		}
		// strconv also reads NaN, Inf and 0x1p3, which are not JSON.
		if text == "" {
			return text
		}
		if end, ok := scanNumber(text, 0); !ok || end != len(text) {
			return text
		}
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return text // beyond float64: kept as text
		}
		return json.Number(text)
	}
	if depth > MaxValueDepth {
		return v.Raw
	}
	switch {
	case v.Get("stringValue").Exists():
		return v.Get("stringValue").String()
	case v.Get("boolValue").Exists():
		return v.Get("boolValue").Bool()
	case v.Get("intValue").Exists():
		return number(v.Get("intValue"))
	case v.Get("doubleValue").Exists():
		return number(v.Get("doubleValue"))
	case v.Get("arrayValue").Exists():
		list := []any{}
		v.Get("arrayValue.values").ForEach(func(_, x gjson.Result) bool { list = append(list, otlpAny(x, depth+1)); return true })
		return list
	case v.Get("kvlistValue").Exists():
		m := map[string]any{}
		v.Get("kvlistValue.values").ForEach(func(_, kv gjson.Result) bool {
			m[kv.Get("key").String()] = otlpAny(kv.Get("value"), depth+1)
			return true
		})
		return m
	case v.Get("bytesValue").Exists():
		return v.Get("bytesValue").String()
	}
	return nil
}

// otelID normalizes a trace (size 16) or span (size 8) id to lowercase hex:
// hex (optionally 0x), protobuf-JSON base64, or a decimal number. An absent,
// empty or all-zero id is "" (ok); ok is false for an id that cannot be read.
func otelID(r gjson.Result, size int) (string, bool) {
	switch r.Type {
	case gjson.Null:
		return "", true
	case gjson.Number:
		n, ok := new(big.Int).SetString(r.Raw, 10)
		if !ok || n.Sign() < 0 || n.BitLen() > size*8 {
			return "", false
		}
		if n.Sign() == 0 {
			return "", true
		}
		return fmt.Sprintf("%0*x", size*2, n), true
	case gjson.String:
		s := strings.TrimSpace(r.Str)
		if s == "" {
			return "", true
		}
		h, prefixed := strings.CutPrefix(strings.ToLower(s), "0x")
		if prefixed && len(h) < 2*size {
			h = strings.Repeat("0", 2*size-len(h)) + h // 0x ids drop leading zeros
		}
		if _, err := hex.DecodeString(h); err == nil && len(h) == 2*size {
			if strings.Trim(h, "0") == "" {
				return "", true
			}
			return h, true
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(s); err == nil && len(b) == size {
				h := hex.EncodeToString(b)
				if strings.Trim(h, "0") == "" {
					return "", true
				}
				return h, true
			}
		}
		if n, ok := new(big.Int).SetString(s, 10); ok && n.Sign() > 0 && n.BitLen() <= size*8 {
			return fmt.Sprintf("%0*x", size*2, n), true
		}
		return "", false
	}
	return "", false
}

// otelTime reads Unix nanoseconds (number or decimal string) or RFC 3339.
func otelTime(r gjson.Result) (time.Time, bool) {
	text := r.Raw
	if r.Type == gjson.String {
		text = r.Str
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil {
		if n <= 0 {
			return time.Time{}, false
		}
		return time.Unix(0, n).UTC(), true
	}
	return parseTime(r)
}

// otelStatus normalizes a status code: 0/UNSET, 1/OK, 2/ERROR, as enum
// names (STATUS_CODE_ERROR), short names or numbers. An absent code is
// UNSET (protobuf JSON omits defaults).
func otelStatus(r gjson.Result) (string, bool) {
	if !r.Exists() {
		return "UNSET", true
	}
	s := strings.ToUpper(strings.TrimSpace(r.String()))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "STATUSCODE."), "STATUS_CODE_")
	switch s {
	case "0", "UNSET", "":
		return "UNSET", true
	case "1", "OK":
		return "OK", true
	case "2", "ERROR":
		return "ERROR", true
	}
	return r.String(), false
}
