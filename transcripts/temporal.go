package transcripts

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Temporal workflow histories: {"events": [...]} as `temporal workflow show
// --output json`, the Web UI download and the SDKs' replay tests write them
// (also {"history": {"events": [...]}}). Both spellings of event types
// (EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, ActivityTaskScheduled), ids as
// numbers or strings, base64 payloads (metadata.encoding json/plain).
//
// A run is a task, named by its run id: originalExecutionRunId of the
// WorkflowExecutionStarted event (firstExecutionRunId for the first run of a
// chain), else a workflowExecution/execution object around the events, else
// "temporal:<path>". Relations:
//   - continuedExecutionRunId (continue-as-new, workflow retry, cron): the
//     run is `resumed`, resuming that run;
//   - parentWorkflowExecution: the run is a `child` of that run; a parent's
//     ChildWorkflowExecutionStarted is a `task_spawned` of the child run;
//   - a reset (WorkflowTaskFailed with cause ResetWorkflow, baseRunId,
//     newRunId): the events before it are the base run's (copied into the new
//     run's history), the events after it the new run's, which is `resumed`.
//
// Workflow close events end the task (task_ended); workflow-task events
// yield nothing. An activity whose first input payload is a JSON object with
// `destination` is a delivery, its content `content_sha256`,
// `content.sha256`, `sha256`, `content.path` (resolved as native paths are)
// or a `content`, `text`, `body` or `message` string (its UTF-8 bytes);
// with none of them the delivery
// has no key:
//   - ActivityTaskScheduled: the intent;
//   - ActivityTaskStarted with attempt N: N request_sent (every earlier
//     attempt may have sent before it failed);
//   - Completed: response ok:true; Failed: response ok:false; TimedOut:
//     timeout; Canceled after a start: response_lost;
//   - TimedOut SCHEDULE_TO_START, or Canceled, with no start: not crossed.
//     Whether it started is decided over the whole history, not by event
//     order (the Started event is written when the activity closes, after a
//     CancelRequested, say);
//   - no close event: an unconcluded crossing (Temporal writes Started only
//     when the activity closes, so a running activity shows only Scheduled).
//
// Events are counted once per run (task and event id), so a reset run's
// history read together with its base run's does not count the shared
// events twice.
//
// References to other runs: continuedExecutionRunId (resumes), a
// parent's runId (parent), ChildWorkflowExecutionStarted (task_spawned),
// and the newExecutionRunId of a run with a delivery that continues as
// new, is retried or runs again by cron (task_spawned, before its
// task_ended): a named run with no history is "referenced but no
// history" and fails closed. Not references: signals and cancel requests
// to other executions (they start no run of this chain), a child
// initiated with no start recorded (no run id to name; a notice), and a
// reset's base run, whose events up to the reset point are in this
// history (what it did after the reset point is only in its own: a
// notice).
//
// --as-of T: the reader stops at the first event after T (Options.AsOf),
// so the history is read as it was written at T: an activity scheduled
// before T whose Started or close event comes after it is an unconcluded
// crossing at T, and a child initiated before T with no start by then is
// one with no start. The CLI then drops every event after T, as for every
// format; each fact carries its own event's time.

// temporalContentsDisagree: a payload names its content in more than one
// form (a digest field, another digest field, a text) and they are not
// the same bytes.
func temporalContentsDisagree(p gjson.Result) bool {
	seen := map[string]bool{}
	for _, k := range []string{"content_sha256", "content.sha256", "sha256"} {
		if v := p.Get(k); v.Type == gjson.String {
			seen[strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v.Str)), "sha256:")] = true
		}
	}
	for _, k := range []string{"content", "text", "body", "message"} {
		if v := p.Get(k); v.Type == gjson.String {
			seen[sha256Hex(v.Str)] = true
		}
	}
	return len(seen) > 1
}

// temporalCloses are the events that end a run.
var temporalCloses = map[string]bool{"WorkflowExecutionCompleted": true, "WorkflowExecutionFailed": true,
	"WorkflowExecutionTimedOut": true, "WorkflowExecutionTerminated": true, "WorkflowExecutionCanceled": true,
	"WorkflowExecutionContinuedAsNew": true}

// maxUnixSeconds is the last second of the year 9999: later times do not
// print as RFC 3339.
const maxUnixSeconds = 253402300799

// maxAttemptEvents bounds the request_sent events of one activity.
const maxAttemptEvents = 10

// temporalEvent is one event of a history.
type temporalEvent struct {
	id    string // eventId as text
	num   int64  // eventId as a number, 0 when it is not one
	typ   string // PascalCase type, "" when unknown
	attrs gjson.Result
	ts    time.Time
	tsOK  bool
	line  int
	task  string
	bad   string // why the event cannot be read, "" when it can
	// ownTask: a bad event that is still its run's (a repeated key that
	// cannot change which run it belongs to).
	ownTask bool
	fp      string // jsonFingerprint of the event (compareCopies)
}

// temporalActivity gathers the events of one activity (by scheduled event).
type temporalActivity struct {
	scheduled *temporalEvent
	started   *temporalEvent // the (first) ActivityTaskStarted
	attempts  int            // the highest attempt of a Started event
	closed    *temporalEvent // Completed, Failed, TimedOut or Canceled
	delivery  bool
	intent    string
	name      string
}

func (rn *run) readTemporal(d *document) {
	in := d.in
	conv := rn.conventions(in)
	list := d.root.Get("events")
	if !list.IsArray() {
		list = d.root.Get("history.events")
	}
	if !list.IsArray() {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "not a Temporal history: no events array"})
		return
	}
	for _, p := range []string{"nextPageToken", "history.nextPageToken"} {
		if tok := d.root.Get(p); tok.Type == gjson.String && tok.Str != "" {
			in.addProblem(Problem{File: in.Path, Line: d.lineOf(tok),
				Message: "one page of a longer history (nextPageToken is set): the events after it are missing"})
		}
	}
	var evs []*temporalEvent
	repeats := findRepeats(d)
	list.ForEach(func(_, r gjson.Result) bool {
		if d.partial(r) {
			return false // the event a cut went through, the last one
		}
		e := parseTemporalEvent(d, r)
		if !rn.opt.AsOf.IsZero() && e.tsOK && e.ts.After(rn.opt.AsOf) {
			// The history as written at --as-of ends here (events are
			// in order): whether an activity started or closed is then
			// decided on what was known at that time.
			return false
		}
		in.Records++
		if rep, ok := repeats.in(r); ok && e.bad == "" {
			// Two readings of the event: it is not read. Its run is
			// known unless the event may decide runs (a start, a reset
			// marker, or its type itself is repeated).
			e.bad = repeatMessage(rep.path, "event")
			e.ownTask = e.typ != "WorkflowExecutionStarted" && e.typ != "WorkflowTaskFailed" &&
				!strings.HasSuffix(rep.path, "].eventType")
		}
		evs = append(evs, e)
		return true
	})
	repeats.rest(d)
	if len(evs) == 0 {
		in.addProblem(Problem{File: in.Path, Line: d.lineOf(list), Message: "the history has no events"})
		return
	}
	t := &temporalReader{rn: rn, d: d, conv: conv, evs: evs, acts: map[string]*temporalActivity{}}
	t.assignTasks()
	t.compareCopies()
	t.checkComplete()
	t.indexActivities()
	for _, e := range evs {
		t.emit(e)
	}
	// A history that ends with its run's close is that run's own, whole
	// history. A reset run's copies its base run's events only up to the
	// reset point, and a base run's history cut before its end (a reset
	// terminates it) is no whole history either.
	if last := evs[len(evs)-1]; last.task != "" && temporalCloses[last.typ] {
		rn.temporalOwn[last.task] = true
	}
	t.notices()
}

type temporalReader struct {
	rn    *run
	d     *document
	conv  *conventions
	evs   []*temporalEvent
	acts  map[string]*temporalActivity
	first string // the run of the first event

	encoded        map[string]int // payload encoding → activities not inspected
	localActs      int
	resets         []string
	unnamedParents []string
	children       map[string]bool // initiated event ids with a start or a failure
	initiated      []*temporalEvent
	badTime        map[*temporalEvent]bool
	delivering     map[string]bool // runs that scheduled a delivery (delivers)
}

func parseTemporalEvent(d *document, r gjson.Result) *temporalEvent {
	e := &temporalEvent{line: d.lineOf(r)}
	if !r.IsObject() {
		e.bad = "event is not a JSON object"
		return e
	}
	e.id = idText(r.Get("eventId"))
	e.num, _ = strconv.ParseInt(e.id, 10, 64)
	e.typ, e.attrs = temporalTypeOf(r)
	if e.typ == "" {
		e.bad = "event has no eventType"
	}
	e.ts, e.tsOK = temporalTime(r.Get("eventTime"))
	e.fp = jsonFingerprint(r.Raw)
	return e
}

// temporalTypeOf returns the event type in PascalCase and its attributes.
// EVENT_TYPE_ACTIVITY_TASK_SCHEDULED and ActivityTaskScheduled are the same
// type; a type given as an enum number is named by its attributes key.
func temporalTypeOf(r gjson.Result) (string, gjson.Result) {
	typ := ""
	if t := r.Get("eventType"); t.Type == gjson.String {
		typ = t.Str
		if rest, ok := strings.CutPrefix(typ, "EVENT_TYPE_"); ok {
			var b strings.Builder
			for _, w := range strings.Split(strings.ToLower(rest), "_") {
				if w != "" {
					b.WriteString(strings.ToUpper(w[:1]) + w[1:])
				}
			}
			typ = b.String()
		}
	}
	if typ != "" {
		if a := r.Get(strings.ToLower(typ[:1]) + typ[1:] + "EventAttributes"); a.Exists() {
			return typ, a
		}
	}
	var attrs gjson.Result
	r.ForEach(func(k, v gjson.Result) bool {
		if name, ok := strings.CutSuffix(k.Str, "EventAttributes"); ok && name != "" {
			attrs = v
			if typ == "" || !strings.EqualFold(name, typ) {
				typ = strings.ToUpper(name[:1]) + name[1:]
			}
			return false
		}
		return true
	})
	return typ, attrs
}

// idText is an id given as a number or a string.
func idText(r gjson.Result) string {
	switch r.Type {
	case gjson.String:
		return strings.TrimSpace(r.Str)
	case gjson.Number:
		return r.Raw
	}
	return ""
}

// temporalTime reads an RFC 3339 string, a Unix time number, or a protobuf
// Timestamp object {seconds, nanos}.
func temporalTime(r gjson.Result) (time.Time, bool) {
	if r.IsObject() {
		s, err := strconv.ParseInt(idText(r.Get("seconds")), 10, 64)
		ns := r.Get("nanos").Int()
		if err != nil || s <= 0 || s > maxUnixSeconds || ns < 0 || ns >= 1e9 {
			return time.Time{}, false
		}
		return time.Unix(s, ns).UTC(), true
	}
	return parseTime(r)
}

func isResetMarker(e *temporalEvent) bool {
	if e.typ != "WorkflowTaskFailed" || e.attrs.Get("newRunId").String() == "" {
		return false
	}
	cause := strings.ToLower(strings.ReplaceAll(e.attrs.Get("cause").String(), "_", ""))
	return strings.HasSuffix(cause, "resetworkflow")
}

// assignTasks names the run of every event.
func (t *temporalReader) assignTasks() {
	run := ""
	if f := t.evs[0]; f.typ == "WorkflowExecutionStarted" {
		a := f.attrs
		run = a.Get("originalExecutionRunId").String()
		if run == "" && a.Get("continuedExecutionRunId").String() == "" {
			// The first run of a chain is its own first run.
			run = a.Get("firstExecutionRunId").String()
		}
	}
	for _, p := range []string{"workflowExecution.runId", "execution.runId", "runId"} {
		if run == "" {
			run = t.d.root.Get(p).String()
		}
	}
	if run == "" {
		run = "temporal:" + t.d.in.Path
	}
	t.first = run
	for _, e := range t.evs {
		if isResetMarker(e) {
			run = e.attrs.Get("newRunId").String()
		}
		e.task = run
	}
}

// compareCopies: one run's event, by its id, in two histories of the run
// (a history read twice, or a reset run's copy of its base run's events)
// must say the same. When it does not, the event has two readings and
// neither is taken: a problem of its run (a seventh review: the second
// history of a run, whose activity posted another message, was dropped as
// a copy, and a check for that message allowed).
func (t *temporalReader) compareCopies() {
	for _, e := range t.evs {
		if e.bad != "" || e.task == "" || e.id == "" {
			continue
		}
		if first, differs := readAgain(t.rn.temporalEvents, e.task+"\x00"+e.id, e.fp, t.d.in.Path); differs {
			e.bad = fmt.Sprintf("run %s's event %s differs from the same event in %s: two readings of the run, neither is taken", clip(e.task, 60), clip(e.id, 20), first.path)
			e.ownTask = true
		}
	}
}

// checkComplete reports what makes the history incomplete: unreadable
// events, and events missing at the start or in between.
func (t *temporalReader) checkComplete() {
	in := t.d.in
	var prev int64
	for i, e := range t.evs {
		if e.bad != "" {
			// An unreadable event may have been anything (a reset, a
			// child's start): it may belong to any task.
			p := Problem{File: in.Path, Line: e.line, Message: e.bad}
			if e.ownTask {
				p.Task = e.task
			}
			in.addProblem(p)
			prev = 0
			continue
		}
		switch {
		case e.num <= 0:
			in.addProblem(Problem{File: in.Path, Line: e.line, Task: e.task,
				Message: fmt.Sprintf("%s event without a positive numeric eventId: its place in the history cannot be checked", clip(e.typ, 60))})
		case i == 0 && (e.typ != "WorkflowExecutionStarted" || e.num > 1):
			in.addProblem(Problem{File: in.Path, Line: e.line, Task: e.task,
				Message: fmt.Sprintf("the history starts with %s (event %s), not WorkflowExecutionStarted: earlier events are missing", clip(e.typ, 60), clip(e.id, 30))})
		case prev > 0 && e.num > prev+1:
			in.addProblem(Problem{File: in.Path, Line: e.line,
				Message: fmt.Sprintf("events %d to %d are missing", prev+1, e.num-1)})
		case prev > 0 && e.num > 0 && e.num <= prev:
			// Event ids grow by one through a history: a repeated or
			// earlier id is a damaged or spliced history.
			in.addProblem(Problem{File: in.Path, Line: e.line,
				Message: fmt.Sprintf("event %d follows event %d: the history is out of order or repeats events", e.num, prev)})
		}
		prev = e.num
	}
}

func (t *temporalReader) indexActivities() {
	t.children = map[string]bool{}
	for _, e := range t.evs {
		if e.bad != "" {
			continue
		}
		switch e.typ {
		case "ActivityTaskScheduled":
			if t.acts[e.id] == nil {
				t.acts[e.id] = &temporalActivity{scheduled: e}
			}
		case "ActivityTaskStarted":
			if a := t.acts[idText(e.attrs.Get("scheduledEventId"))]; a != nil {
				if a.started == nil {
					a.started = e
				}
				if n := int(e.attrs.Get("attempt").Int()); n > a.attempts {
					a.attempts = n
				}
			}
		case "ActivityTaskCompleted", "ActivityTaskFailed", "ActivityTaskTimedOut", "ActivityTaskCanceled":
			if a := t.acts[idText(e.attrs.Get("scheduledEventId"))]; a != nil && a.closed == nil {
				a.closed = e
			}
		case "ChildWorkflowExecutionStarted", "StartChildWorkflowExecutionFailed":
			t.children[idText(e.attrs.Get("initiatedEventId"))] = true
		}
	}
	for _, a := range t.acts {
		if a.attempts < 1 {
			a.attempts = 1
		}
	}
}

// once reports whether a piece of evidence of a run is new in this Read.
func (t *temporalReader) once(task string, piece ...string) bool {
	return t.rn.once("temporal:" + task + "|" + strings.Join(piece, "|"))
}

func (t *temporalReader) out(e *temporalEvent, typ string, fields map[string]any) {
	if !e.tsOK {
		if t.badTime[e] {
			return
		}
		if t.badTime == nil {
			t.badTime = map[*temporalEvent]bool{}
		}
		t.badTime[e] = true
		t.d.in.addProblem(Problem{File: t.d.in.Path, Line: e.line, Task: e.task,
			Message: fmt.Sprintf("%s event %s has no readable eventTime", clip(e.typ, 60), clip(e.id, 30))})
		return
	}
	if e.id != "" {
		fields["event_id"] = e.id
	}
	t.conv.event(e.task, e.ts, e.line, typ, fields)
}

func (t *temporalReader) emit(e *temporalEvent) {
	if e.bad != "" {
		return
	}
	a := e.attrs
	switch e.typ {
	case "WorkflowExecutionStarted":
		if e != t.evs[0] || !t.once(e.task, "started") {
			return
		}
		fields := map[string]any{"relation": "root"}
		if p := a.Get("parentWorkflowExecution.runId").String(); p != "" {
			fields["relation"], fields["parent"] = "child", p
		}
		if c := a.Get("continuedExecutionRunId").String(); c != "" {
			fields["relation"], fields["resumes"] = "resumed", c
		} else if init := a.Get("initiator").String(); init != "" && !strings.Contains(strings.ToLower(init), "unspecified") {
			t.unnamedParents = append(t.unnamedParents, fmt.Sprintf("%s (initiator %s)", clip(e.task, 60), clip(init, 40)))
		}
		if w := firstString(a.Get("workflowId"), t.d.root.Get("workflowExecution.workflowId"), t.d.root.Get("execution.workflowId")); w != "" {
			fields["workflow_id"] = w
		}
		if w := a.Get("workflowType.name").String(); w != "" {
			fields["workflow_type"] = w
		}
		t.out(e, "task_started", fields)
	case "WorkflowTaskFailed":
		if !isResetMarker(e) || !t.once(e.task, "started") {
			return
		}
		base := a.Get("baseRunId").String()
		if base == "" {
			base = t.first
		}
		t.resets = append(t.resets, fmt.Sprintf("%s from %s at event %s", clip(e.task, 60), clip(base, 60), clip(e.id, 30)))
		t.rn.temporalResets = append(t.rn.temporalResets, temporalReset{path: t.d.in.Path, line: e.line, base: base, from: e.task})
		t.out(e, "task_started", map[string]any{"relation": "resumed", "resumes": base, "reset": true})
	case "WorkflowExecutionCompleted", "WorkflowExecutionContinuedAsNew":
		t.ended(e, "completed")
	case "WorkflowExecutionFailed", "WorkflowExecutionTimedOut":
		t.ended(e, "failed")
	case "WorkflowExecutionCanceled", "WorkflowExecutionTerminated":
		t.ended(e, "cancelled")
	case "ChildWorkflowExecutionStarted":
		child := a.Get("workflowExecution.runId").String()
		if child == "" || !t.once(e.task, "spawned", child) {
			return
		}
		fields := map[string]any{"child": child}
		if w := a.Get("workflowExecution.workflowId").String(); w != "" {
			fields["workflow_id"] = w
		}
		t.out(e, "task_spawned", fields)
	case "StartChildWorkflowExecutionInitiated":
		t.initiated = append(t.initiated, e)
	case "MarkerRecorded":
		if m := strings.ToLower(a.Get("markerName").String()); strings.Contains(m, "localactivity") || strings.Contains(m, "local_activity") {
			t.localActs++
		}
	case "ActivityTaskScheduled":
		t.scheduled(e)
	case "ActivityTaskStarted":
		act := t.acts[idText(a.Get("scheduledEventId"))]
		if act == nil || !act.delivery || act.started != e {
			return
		}
		// An attempt count is the history's word, not a bound on work: a
		// damaged history may say 99999999999. Past maxAttemptEvents the
		// last event stands for the rest (two crossings already make a
		// duplicate delivery).
		n := min(act.attempts, maxAttemptEvents)
		for k := 1; k <= n; k++ {
			if !t.once(e.task, "attempt", act.scheduled.id, strconv.Itoa(k)) {
				continue
			}
			fields := map[string]any{"intent": act.intent, "activity": act.name, "attempt": k}
			switch {
			case k == n && n < act.attempts:
				fields["attempt"] = act.attempts
				fields["detail"] = fmt.Sprintf("attempts %d to %d (not listed one by one): each may have sent", k, act.attempts)
			case k < act.attempts:
				fields["detail"] = fmt.Sprintf("attempt %d of %d: it failed or timed out and was retried, and may have sent", k, act.attempts)
			}
			t.out(e, "request_sent", fields)
		}
	case "ActivityTaskCompleted", "ActivityTaskFailed", "ActivityTaskTimedOut", "ActivityTaskCanceled":
		act := t.acts[idText(a.Get("scheduledEventId"))]
		if act == nil || !act.delivery || act.closed != e {
			return
		}
		t.closed(act, e)
	}
}

func (t *temporalReader) ended(e *temporalEvent, status string) {
	if !t.once(e.task, "ended") {
		return
	}
	fields := map[string]any{"status": status, "temporal_close": e.typ}
	next := e.attrs.Get("newExecutionRunId").String()
	if next != "" {
		fields["next_run"] = next
	}
	if next != "" && t.delivers(e.task) && t.once(e.task, "spawned", next) {
		// The run goes on as another run (continue-as-new, a retry, the
		// next cron run), which inherits its intent and may do the same
		// delivery: it is named, so that a missing history of it is
		// "referenced but no history" (fail closed) instead of a chain
		// that ended clean. Only for a run with a delivery: the next run
		// of any other run is no more relevant than any run not read.
		// Before the end: nothing of a task follows its task_ended.
		t.out(e, "task_spawned", map[string]any{"child": next, "temporal_next_run": e.typ})
	}
	t.out(e, "task_ended", fields)
}

// delivers reports whether a run scheduled a delivery in this history
// (so far). It was a scan of every activity for each run that ended:
// runs × activities (20,000 resets of a history of as many activities:
// 83 s, issue 15, the 46th review).
func (t *temporalReader) delivers(run string) bool { return t.delivering[run] }

// scheduled reads an activity's input: a delivery declares its intent.
func (t *temporalReader) scheduled(e *temporalEvent) {
	act := t.acts[e.id]
	if act == nil || act.scheduled != e {
		return
	}
	act.name = e.attrs.Get("activityType.name").String()
	payload, encoding := temporalPayload(e.attrs.Get("input.payloads.0"))
	if encoding != "" {
		if t.encoded == nil {
			t.encoded = map[string]int{}
		}
		t.encoded[encoding]++
		return
	}
	if !payload.IsObject() || !payload.Get("destination").Exists() {
		return
	}
	// A payload that names a destination is a delivery, whatever form its
	// content takes (SPEC §2: a digest or a path); with no content it can
	// be read, it is a delivery with no key (fail closed), never nothing.
	act.delivery = true
	if t.delivering == nil {
		t.delivering = map[string]bool{}
	}
	t.delivering[act.scheduled.task] = true
	act.intent = "activity:" + e.id
	var content map[string]any
	switch {
	case temporalContentsDisagree(payload):
		// Two readings of what was sent: keyed by neither (fail closed).
		t.d.in.addProblem(Problem{File: t.d.in.Path, Line: e.line, Task: e.task,
			Message: "the delivery's payload gives its content twice, differently: which bytes were sent cannot be told"})
		content = map[string]any{"path": ""}
	case payload.Get("content_sha256").Exists():
		content = map[string]any{"sha256": argString(payload.Get("content_sha256"))}
	case payload.Get("content.sha256").Exists():
		content = map[string]any{"sha256": argString(payload.Get("content.sha256"))}
	case payload.Get("sha256").Exists():
		content = map[string]any{"sha256": argString(payload.Get("sha256"))}
	case payload.Get("content.path").Type == gjson.String:
		content = map[string]any{"path": payload.Get("content.path").Str}
	case payload.Get("content").Type == gjson.String:
		content = map[string]any{"sha256": sha256Hex(payload.Get("content").Str)}
	case payload.Get("text").Type == gjson.String, payload.Get("body").Type == gjson.String, payload.Get("message").Type == gjson.String:
		// The text it posts, as the conventions' text_args: its bytes.
		text := firstString(payload.Get("text"), payload.Get("body"), payload.Get("message"))
		content = map[string]any{"sha256": sha256Hex(text)}
	default:
		content = map[string]any{"path": ""} // no content this reader can key: unkeyed
	}
	if n := payload.Get("content.name"); n.Type == gjson.String && n.Str != "" {
		content["name"] = n.Str
	}
	if t.once(e.task, "intent", e.id) {
		fields := map[string]any{"intent": act.intent, "destination": temporalDestination(payload.Get("destination")),
			"content": content, "activity": act.name}
		if id := e.attrs.Get("activityId").String(); id != "" {
			fields["activity_id"] = id
		}
		t.out(e, "intent", fields)
	}
	if act.started == nil && act.closed == nil && t.once(e.task, "attempt", e.id, "1") {
		t.out(e, "request_sent", map[string]any{"intent": act.intent, "activity": act.name,
			"detail": "scheduled with no close event: the activity may be running (Temporal records its start only when it closes)"})
	}
}

// closed turns an activity's close event into the outcome of its crossing,
// or into nothing when the activity never started.
func (t *temporalReader) closed(act *temporalActivity, e *temporalEvent) {
	crossed, timeout := t.crossed(act, e)
	if !crossed {
		return
	}
	if act.started == nil && t.once(e.task, "attempt", act.scheduled.id, "1") {
		t.out(e, "request_sent", map[string]any{"intent": act.intent, "activity": act.name,
			"detail": "no ActivityTaskStarted recorded, but an attempt ran before " + e.typ})
	}
	if !t.once(e.task, "close", e.id) {
		return
	}
	fields := map[string]any{"intent": act.intent, "activity": act.name}
	switch e.typ {
	case "ActivityTaskCompleted":
		fields["ok"] = true
		t.out(e, "response", fields)
	case "ActivityTaskFailed":
		fields["ok"] = false
		if m := e.attrs.Get("failure.message").String(); m != "" {
			fields["detail"] = clip(m, 200)
		}
		t.out(e, "response", fields)
	case "ActivityTaskTimedOut":
		fields["detail"] = timeout + " timeout"
		t.out(e, "timeout", fields)
	case "ActivityTaskCanceled":
		fields["detail"] = "canceled after it started: its result never came"
		t.out(e, "response_lost", fields)
	}
}

// crossed decides whether an activity may have reached the far side: it
// started (a Started event anywhere in the history, or a startedEventId on
// the close event), or its close event implies an attempt ran. A timeout
// before any start (SCHEDULE_TO_START) or a cancel before any start did
// not cross.
func (t *temporalReader) crossed(act *temporalActivity, e *temporalEvent) (bool, string) {
	a := e.attrs
	timeout := timeoutType(a)
	if act.started != nil {
		return true, timeout
	}
	if s := idText(a.Get("startedEventId")); s != "" && s != "0" {
		return true, timeout
	}
	switch e.typ {
	case "ActivityTaskCompleted", "ActivityTaskFailed":
		return true, timeout // only a worker that ran it completes or fails it
	case "ActivityTaskTimedOut":
		if timeout != "SCHEDULE_TO_START" {
			return true, timeout // SCHEDULE_TO_CLOSE: an earlier attempt may have run
		}
		// The failure of an earlier attempt, carried as the cause.
		return a.Get("failure.cause").Exists() || a.Get("lastFailure").Exists(), timeout
	}
	return false, timeout
}

// timeoutType is SCHEDULE_TO_START, START_TO_CLOSE, SCHEDULE_TO_CLOSE or
// HEARTBEAT, whichever spelling the history uses.
func timeoutType(a gjson.Result) string {
	s := firstString(a.Get("failure.timeoutFailureInfo.timeoutType"), a.Get("timeoutType"))
	s = strings.TrimPrefix(s, "TIMEOUT_TYPE_")
	switch strings.ToLower(strings.ReplaceAll(s, "_", "")) {
	case "scheduletostart":
		return "SCHEDULE_TO_START"
	case "starttoclose":
		return "START_TO_CLOSE"
	case "scheduletoclose":
		return "SCHEDULE_TO_CLOSE"
	case "heartbeat":
		return "HEARTBEAT"
	case "":
		return "UNSPECIFIED"
	}
	return s
}

func firstString(rs ...gjson.Result) string {
	for _, r := range rs {
		if r.Type == gjson.String && r.Str != "" {
			return r.Str
		}
	}
	return ""
}

// temporalPayload decodes one payload to JSON. encoding is set (and the
// payload not read) when it is not JSON: binary/encrypted, protobuf, ...
// The shorthand form (the JSON value itself, no data/metadata) is read as
// is; a JSON string that holds a JSON object is unwrapped.
func temporalPayload(p gjson.Result) (gjson.Result, string) {
	if !p.Exists() || p.Type == gjson.Null {
		return gjson.Result{}, ""
	}
	if !p.IsObject() || (!p.Get("data").Exists() && !p.Get("metadata").Exists()) {
		return unwrapJSONString(p), ""
	}
	enc := decodeBase64Text(p.Get("metadata.encoding").String())
	if enc == "binary/null" {
		return gjson.Result{}, ""
	}
	if enc != "" && !strings.HasPrefix(enc, "json/") {
		return gjson.Result{}, enc
	}
	data := p.Get("data")
	if data.Type != gjson.String {
		return unwrapJSONString(data), ""
	}
	b, err := base64.StdEncoding.DecodeString(data.Str)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(data.Str); err != nil {
			b = []byte(data.Str) // not base64: JSON text as is
		}
	}
	if !validJSON(b) {
		return gjson.Result{}, ""
	}
	return unwrapJSONString(gjson.ParseBytes(b)), ""
}

func unwrapJSONString(r gjson.Result) gjson.Result {
	if r.Type == gjson.String && validJSONString(r.Str) {
		if inner := gjson.Parse(r.Str); inner.IsObject() {
			return inner
		}
	}
	return r
}

// decodeBase64Text decodes metadata values, which histories write in
// base64 ("anNvbi9wbGFpbg==") or, in some exports, as plain text.
func decodeBase64Text(s string) string {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && utf8.Valid(b) && strings.Contains(string(b), "/") {
		return string(b)
	}
	return s
}

// temporalDestination reads {provider, id, title} or "provider/id" (a
// string without a slash is a display title).
func temporalDestination(r gjson.Result) map[string]any {
	dest := map[string]any{}
	switch {
	case r.IsObject():
		for _, k := range []string{"provider", "id", "title"} {
			if v := r.Get(k); v.Type == gjson.String && v.Str != "" {
				dest[k] = v.Str
			}
		}
	case r.Type == gjson.String:
		if p, id, ok := strings.Cut(r.Str, "/"); ok && strings.TrimSpace(p) != "" && strings.TrimSpace(id) != "" {
			dest["provider"], dest["id"] = p, id
		} else if strings.TrimSpace(r.Str) != "" {
			dest["title"] = r.Str
		}
	}
	return dest
}

// notices say what the history holds that effectlint cannot see into.
func (t *temporalReader) notices() {
	in := t.d.in
	var encs []string
	for enc := range t.encoded {
		encs = append(encs, enc)
	}
	sort.Strings(encs)
	for _, enc := range encs {
		in.Notices = append(in.Notices, fmt.Sprintf("%d activity input(s) encoded as %q were not inspected: decode them (a codec server) to see deliveries", t.encoded[enc], clip(enc, 60)))
	}
	if t.localActs > 0 {
		in.Notices = append(in.Notices, fmt.Sprintf("%d local activity marker(s): a history does not record their inputs, so their deliveries cannot be seen", t.localActs))
	}
	if len(t.resets) > 0 {
		in.Notices = append(in.Notices, "reset run(s) "+listed(t.resets, 3)+": what a base run did after its reset point is only in its own history")
	}
	for _, u := range t.unnamedParents {
		in.Notices = append(in.Notices, "run "+u+" continues a run the history does not name: that run is not linked")
	}
	var unstarted []string
	for _, e := range t.initiated {
		if !t.children[e.id] {
			unstarted = append(unstarted, clip(e.id, 30))
		}
	}
	if len(unstarted) > 0 {
		in.Notices = append(in.Notices, fmt.Sprintf("child workflow(s) initiated at event(s) %s have no start recorded: their runs cannot be named", listed(unstarted, 8)))
	}
}
