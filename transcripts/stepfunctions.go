package transcripts

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// FormatStepFunctions names AWS Step Functions execution histories.
const FormatStepFunctions = "stepfunctions"

// AWS Step Functions execution histories: the output of GetExecutionHistory
// ({"events": [...]}, as `aws stepfunctions get-execution-history` prints
// it), optionally with the execution's executionArn beside the events, and
// LocalStack snapshot files ({"<test>": {"recorded-content": {"<name>":
// {"events": [...]}}}}), each recorded history one execution.
//
// An execution is a task, named by the document's executionArn, else
// "stepfunctions:<path>" (with "#<test>/<name>" for a snapshot entry): the
// history itself does not name its execution, so two files of one
// execution are joined only when they carry its ARN. ExecutionStarted
// starts it (relation root); ExecutionSucceeded, Failed, TimedOut and
// Aborted end it; ExecutionRedriven (a redrive, which continues the same
// history) is a restart: a second task_started.
//
// Task states (the Task*, Activity* and LambdaFunction* event families)
// are tool calls named "<resourceType>:<resource>" ("sqs:sendMessage.
// waitForTaskToken", "sns:publish", "aws-sdk:ses:sendEmail", "activity:
// <activity ARN>", "lambda:<function ARN>") with the task's parameters as
// arguments, judged by the same conventions as agents' tool calls (the
// built-in AWS rules, a --profile's own): a delivery-shaped task declares
// its intent and crosses (request_sent) at its Scheduled event; Submitted
// (a waitForTaskToken message handed over) is outgoing_item_seen;
// Succeeded is a response ok: true; Failed and SubmitFailed a response ok:
// false; TimedOut (States.Timeout, States.HeartbeatTimeout) a timeout. A
// scheduled task that never started (StartFailed, ScheduleFailed, with no
// Started) did not cross. A scheduled task with no close event is a
// crossing not yet concluded. A retry (a Scheduled event whose previous
// event is the failure or timeout of a delivery-shaped attempt) is a
// restart of the execution's segment: an interrupted with reason retry
// before it, so the earlier attempt is a crossing in an ended segment.
//
// Times: "timestamp" as epoch seconds (the API) or RFC 3339 (the CLI). An
// event without a readable time (LocalStack normalizes every timestamp to
// the literal "timestamp") gets the previous event's time plus one
// millisecond, starting at the Unix epoch, with a notice: such times keep
// the history's order only.
//
// HTTP Tasks (http:invoke) and API Gateway tasks (apigateway:invoke) get
// the URL they call as the parameter InvokeUrl (the endpoint; for API
// Gateway https://<ApiEndpoint>/<Stage><Path>): the built-in rule makes
// one with a writing method a delivery to it.
//
// Problems: a history that is one page of several (nextToken set), that
// does not start with ExecutionStarted, whose event ids skip or repeat,
// an event that cannot be read, and what has two readings: a repeated key
// in the document or in the JSON text of a task's parameters or input, an
// event type that is a known type in another letter case, and an event
// that another history of the same execution (the same executionArn)
// holds with another type, previous event, time or details (histories
// that agree where they overlap are read once).

// sfnEvent is one event of a Step Functions history.
type sfnEvent struct {
	r       gjson.Result
	id      int64
	prev    int64
	typ     string
	details gjson.Result
	ts      time.Time
	line    int
}

// sfnAttempt is one scheduled task state (an attempt of it).
type sfnAttempt struct {
	scheduled *sfnEvent
	family    string // Task, Activity, LambdaFunction
	started   bool
	closed    *sfnEvent
	callID    string
	delivery  bool
}

var sfnFamilies = []string{"LambdaFunction", "Activity", "Task"}

// sfnSplit splits an event type into its family and phase: TaskScheduled
// → Task, Scheduled.
func sfnSplit(typ string) (family, phase string) {
	for _, f := range sfnFamilies {
		if rest, ok := strings.CutPrefix(typ, f); ok {
			switch rest {
			case "Scheduled", "Started", "Submitted", "Succeeded", "Failed", "TimedOut",
				"StartFailed", "SubmitFailed", "ScheduleFailed":
				return f, rest
			}
		}
	}
	return "", ""
}

// stepFunctionsHistory reports whether a value is a GetExecutionHistory
// output: an events list whose first event has a type, a numeric id, no
// Temporal eventType, and a previousEventId or an ...EventDetails object
// (which other logs of typed, numbered events lack).
func stepFunctionsHistory(r gjson.Result) bool {
	e := r.Get("events.0")
	if !r.Get("events").IsArray() || e.Get("type").Type != gjson.String || e.Get("id").Type != gjson.Number || e.Get("eventType").Exists() {
		return false
	}
	if e.Get("previousEventId").Exists() {
		return true
	}
	details := false
	e.ForEach(func(k, v gjson.Result) bool {
		details = strings.HasSuffix(k.String(), "EventDetails") && v.IsObject()
		return !details
	})
	return details
}

// sfnSnapshotHistories lists the histories of a LocalStack snapshot file
// (name, value), in the file's order.
func sfnSnapshotHistories(doc gjson.Result) (names []string, hs []gjson.Result) {
	if !doc.IsObject() {
		return nil, nil
	}
	doc.ForEach(func(test, v gjson.Result) bool {
		v.Get("recorded-content").ForEach(func(name, h gjson.Result) bool {
			if stepFunctionsHistory(h) {
				t := test.String()
				if i := strings.LastIndex(t, "::"); i >= 0 {
					t = t[i+2:]
				}
				names = append(names, t+"/"+name.String())
				hs = append(hs, h)
			}
			return true
		})
		return true
	})
	return names, hs
}

// stepFunctionsDocument: a history, or a LocalStack snapshot with at least
// one history in its first test entry.
func stepFunctionsDocument(doc gjson.Result) bool {
	if stepFunctionsHistory(doc) {
		return true
	}
	if !doc.IsObject() {
		return false
	}
	found := false
	doc.ForEach(func(_, v gjson.Result) bool {
		v.Get("recorded-content").ForEach(func(_, h gjson.Result) bool {
			found = stepFunctionsHistory(h)
			return !found
		})
		return false // the first entry decides
	})
	return found
}

func (rn *run) readStepFunctions(d *document) {
	in := d.in
	repeats := findRepeats(d)
	defer repeats.rest(d) // a repeat outside every event (two events lists) is the document's
	if stepFunctionsHistory(d.root) {
		task := d.root.Get("executionArn").String()
		if task == "" {
			task = "stepfunctions:" + in.Path
		}
		rn.sfnTimesNotice(in, rn.readSFNHistory(d, repeats, d.root, task))
		return
	}
	names, hs := sfnSnapshotHistories(d.root)
	if len(hs) == 0 {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "not a Step Functions execution history: no events list with typed, numbered events"})
		return
	}
	synthetic := 0
	for i, h := range hs {
		task := h.Get("executionArn").String()
		if task == "" {
			task = "stepfunctions:" + in.Path + "#" + names[i]
		}
		synthetic += rn.readSFNHistory(d, repeats, h, task)
	}
	rn.sfnTimesNotice(in, synthetic)
}

func (rn *run) sfnTimesNotice(in *Input, synthetic int) {
	if synthetic > 0 {
		in.Notices = append(in.Notices, fmt.Sprintf("%d event(s) without a readable timestamp (LocalStack snapshots write the literal \"timestamp\"): their times are synthetic (the previous event's plus 1 ms, from the Unix epoch) and keep each history's order only", synthetic))
	}
}

// readSFNHistory reads one execution's history and returns how many of
// its events had no readable time.
func (rn *run) readSFNHistory(d *document, repeats *docRepeats, h gjson.Result, task string) int {
	in := d.in
	conv := rn.conventions(in)
	if tok := h.Get("nextToken"); tok.Type == gjson.String && tok.Str != "" {
		in.addProblem(Problem{File: in.Path, Line: d.lineOf(tok), Task: task,
			Message: "one page of a longer history (nextToken is set): the events after it are missing"})
	}
	var evs []*sfnEvent
	clock := time.Unix(0, 0).UTC()
	synthetic := 0
	h.Get("events").ForEach(func(_, r gjson.Result) bool {
		if d.partial(r) {
			return false
		}
		in.Records++
		line := d.lineOf(r)
		if rep, ok := repeats.in(r); ok {
			in.addProblem(Problem{File: in.Path, Line: line, Task: task, Message: repeatMessage(rep.path, "event")})
			return true
		}
		e, bad := parseSFNEvent(r)
		if bad != "" {
			in.addProblem(Problem{File: in.Path, Line: line, Task: task, Message: bad})
			return true
		}
		e.line = line
		t, timed := sfnTime(r.Get("timestamp"))
		if timed {
			clock = t
		} else {
			clock = clock.Add(time.Millisecond)
			synthetic++
		}
		e.ts = clock
		if !rn.sfnAgrees(task, e, timed) {
			// Another history of this execution, read before, holds
			// another event of this id: two readings of one history.
			in.addProblem(Problem{File: in.Path, Line: line, Task: task, Message: fmt.Sprintf(
				"event %d differs from the event %d another history of this execution (the same executionArn) holds: two readings of one history, neither is taken", e.id, e.id)})
			return true
		}
		evs = append(evs, e)
		return true
	})
	if len(evs) == 0 {
		in.addProblem(Problem{File: in.Path, Line: d.lineOf(h), Task: task, Message: "the history has no readable events"})
		return synthetic
	}
	if !rn.opt.AsOf.IsZero() {
		// The history as written at --as-of: whether a task closed is
		// decided on what was known then.
		for i, e := range evs {
			if e.ts.After(rn.opt.AsOf) {
				evs = evs[:i]
				break
			}
		}
	}
	s := &sfnReader{rn: rn, d: d, conv: conv, task: task, byID: map[int64]*sfnEvent{}, attempts: map[int64]*sfnAttempt{}}
	s.check(evs)
	s.index(evs)
	for _, e := range evs {
		s.emit(e)
	}
	return synthetic
}

func parseSFNEvent(r gjson.Result) (*sfnEvent, string) {
	if !r.IsObject() {
		return nil, "event is not a JSON object"
	}
	e := &sfnEvent{r: r, typ: r.Get("type").String()}
	if e.typ == "" {
		return nil, "event has no type"
	}
	id, err := strconv.ParseInt(idText(r.Get("id")), 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Sprintf("%s event without a positive numeric id: its place in the history cannot be checked", clip(e.typ, 60))
	}
	e.id = id
	if known := claudeVariant(e.typ, sfnNames); known != "" {
		// A misspelt TaskScheduled would otherwise be skipped as a type
		// of no meaning here: its delivery, if it was one, lost.
		return nil, fmt.Sprintf("event %d: type %q differs from %s only in letter case or separators: a misspelt %s or another type, it cannot be told", id, clip(e.typ, 60), known, known)
	}
	e.prev, _ = strconv.ParseInt(idText(r.Get("previousEventId")), 10, 64)
	e.details = r.Get(strings.ToLower(e.typ[:1]) + e.typ[1:] + "EventDetails")
	return e, ""
}

// sfnTypes are the event types of the Step Functions API (HistoryEvent
// type), against which a type in another letter case is told apart.
var sfnTypes = map[string]bool{}

// sfnNames are sfnTypes with their folded forms (init).
var sfnNames knownNames

func init() {
	for _, t := range strings.Fields(`ActivityFailed ActivityScheduled ActivityScheduleFailed ActivityStarted
		ActivitySucceeded ActivityTimedOut ChoiceStateEntered ChoiceStateExited ExecutionAborted ExecutionFailed
		ExecutionStarted ExecutionSucceeded ExecutionTimedOut FailStateEntered LambdaFunctionFailed
		LambdaFunctionScheduled LambdaFunctionScheduleFailed LambdaFunctionStarted LambdaFunctionStartFailed
		LambdaFunctionSucceeded LambdaFunctionTimedOut MapIterationAborted MapIterationFailed MapIterationStarted
		MapIterationSucceeded MapStateAborted MapStateEntered MapStateExited MapStateFailed MapStateStarted
		MapStateSucceeded ParallelStateAborted ParallelStateEntered ParallelStateExited ParallelStateFailed
		ParallelStateStarted ParallelStateSucceeded PassStateEntered PassStateExited SucceedStateEntered
		SucceedStateExited TaskFailed TaskScheduled TaskStarted TaskStartFailed TaskStateAborted TaskStateEntered
		TaskStateExited TaskSubmitFailed TaskSubmitted TaskSucceeded TaskTimedOut WaitStateAborted
		WaitStateEntered WaitStateExited MapRunAborted MapRunFailed MapRunStarted MapRunSucceeded
		ExecutionRedriven MapRunRedriven EvaluationFailed`) {
		sfnTypes[t] = true
	}
	sfnNames = newKnownNames(sfnTypes)
}

// sfnAgrees records what an event of an execution says (its type,
// previous event, time and details, whitespace aside) and reports whether
// every history of that execution read before that holds this event id
// says the same. Overlapping histories of one execution (two pages, a
// history fetched twice) are read once where they agree.
func (rn *run) sfnAgrees(task string, e *sfnEvent, timed bool) bool {
	ts := "-"
	if timed {
		ts = strconv.FormatInt(e.ts.UnixNano(), 10)
	}
	details := ""
	if e.details.Exists() {
		details = e.details.Get("@ugly").Raw
	}
	id := "sfn-event:" + task + "\x00" + strconv.FormatInt(e.id, 10)
	first := rn.once(id)
	fresh := rn.once(id + "\x00" + e.typ + "\x00" + strconv.FormatInt(e.prev, 10) + "\x00" + ts + "\x00" + details)
	return first || !fresh
}

type sfnReader struct {
	rn       *run
	d        *document
	conv     *conventions
	task     string
	byID     map[int64]*sfnEvent
	attempts map[int64]*sfnAttempt // by scheduled event id
}

func (s *sfnReader) problem(line int, msg string) {
	s.d.in.addProblem(Problem{File: s.d.in.Path, Line: line, Task: s.task, Message: msg})
}

// check reports events missing at the start or in between.
func (s *sfnReader) check(evs []*sfnEvent) {
	var prev int64
	for i, e := range evs {
		switch {
		case i == 0 && (e.typ != "ExecutionStarted" || e.id > 1):
			s.problem(e.line, fmt.Sprintf("the history starts with %s (event %d), not ExecutionStarted: earlier events are missing", clip(e.typ, 60), e.id))
		case prev > 0 && e.id == prev+2:
			s.problem(e.line, fmt.Sprintf("event %d is missing", prev+1))
		case prev > 0 && e.id > prev+1:
			s.problem(e.line, fmt.Sprintf("events %d to %d are missing", prev+1, e.id-1))
		case prev > 0 && e.id <= prev:
			s.problem(e.line, fmt.Sprintf("event %d follows event %d: the history is out of order or repeats events", e.id, prev))
		}
		prev = e.id
	}
}

// scheduledOf follows previousEventId back to the Scheduled event of a
// family (a Started, Submitted or close event's attempt).
func (s *sfnReader) scheduledOf(e *sfnEvent, family string) *sfnAttempt {
	for p, n := e.prev, 0; p > 0 && n < 16; n++ {
		pe := s.byID[p]
		if pe == nil || pe.id >= e.id {
			return nil
		}
		if f, phase := sfnSplit(pe.typ); f == family && phase == "Scheduled" {
			return s.attempts[pe.id]
		}
		p = pe.prev
	}
	return nil
}

// index decides, over the whole history, what each attempt did.
func (s *sfnReader) index(evs []*sfnEvent) {
	for _, e := range evs {
		if s.byID[e.id] == nil {
			s.byID[e.id] = e
		}
	}
	for _, e := range evs {
		family, phase := sfnSplit(e.typ)
		switch {
		case phase == "Scheduled":
			if s.attempts[e.id] == nil {
				s.attempts[e.id] = &sfnAttempt{scheduled: e, family: family, callID: fmt.Sprintf("sfn:%s#%d", s.task, e.id)}
			}
		case phase != "":
			a := s.scheduledOf(e, family)
			if a == nil {
				continue
			}
			switch phase {
			case "Started", "Submitted":
				a.started = true
			default:
				if a.closed == nil {
					a.closed = e
				}
			}
		}
	}
}

// once: a piece of evidence of this execution is new in this Read.
func (s *sfnReader) once(piece ...any) bool {
	return s.rn.once("sfn:" + s.task + "|" + fmt.Sprint(piece...))
}

func (s *sfnReader) emit(e *sfnEvent) {
	switch e.typ {
	case "ExecutionStarted":
		if s.once("started", e.id) {
			fields := map[string]any{"relation": "root", "event_id": e.id}
			if arn := e.details.Get("stateMachineArn").String(); arn != "" {
				fields["state_machine"] = arn
			}
			s.conv.lifecycle(s.task, e.ts, e.line, "task_started", fields)
		}
		return
	case "ExecutionRedriven":
		if s.once("started", e.id) {
			fields := map[string]any{"relation": "root", "event_id": e.id, "redrive": true}
			if n := e.details.Get("redriveCount"); n.Exists() {
				fields["redrive_count"] = n.Int()
			}
			s.conv.lifecycle(s.task, e.ts, e.line, "task_started", fields)
		}
		return
	case "ExecutionSucceeded":
		s.ended(e, "completed")
		return
	case "ExecutionFailed", "ExecutionTimedOut":
		s.ended(e, "failed")
		return
	case "ExecutionAborted":
		s.ended(e, "cancelled")
		return
	}
	family, phase := sfnSplit(e.typ)
	switch phase {
	case "":
		return
	case "Scheduled":
		s.scheduled(e, family)
		return
	}
	a := s.scheduledOf(e, family)
	if a == nil || !a.delivery || !s.once("close", e.id) {
		return
	}
	detail := sfnDetail(e)
	switch phase {
	case "Submitted":
		s.say(a, e, "outgoing_item_seen", map[string]any{}, detail)
	case "Succeeded", "Failed", "SubmitFailed":
		if a.closed == e {
			// The conventions decide what the task's result means (a
			// rule's result: response).
			s.conv.Result(a.callID, toolResult{TS: e.ts, Error: phase != "Succeeded", Line: e.line})
		}
	case "TimedOut":
		if a.closed == e {
			s.say(a, e, "timeout", map[string]any{}, detail)
			delete(s.conv.pending, a.callID)
		}
	}
}

// say emits evidence about an attempt, for each intent it declared.
func (s *sfnReader) say(a *sfnAttempt, e *sfnEvent, typ string, fields map[string]any, detail string) {
	if detail != "" {
		fields["detail"] = detail
	}
	fields["event_id"] = e.id
	intents := s.conv.callIntents(a.callID)
	if len(intents) == 0 {
		s.conv.event(s.task, e.ts, e.line, typ, fields)
		return
	}
	for _, in := range intents {
		f := map[string]any{"intent": in}
		for k, v := range fields {
			f[k] = v
		}
		s.conv.event(s.task, e.ts, e.line, typ, f)
	}
}

// sfnDetail is an event's error and cause, briefly.
func sfnDetail(e *sfnEvent) string {
	parts := []string{}
	for _, k := range []string{"error", "cause"} {
		if v := e.details.Get(k); v.Exists() && v.Type != gjson.Null {
			parts = append(parts, argString(v))
		}
	}
	return clip(strings.Join(parts, ": "), 200)
}

func (s *sfnReader) ended(e *sfnEvent, status string) {
	if !s.once("ended", e.id) {
		return
	}
	s.conv.lifecycle(s.task, e.ts, e.line, "task_ended", map[string]any{"status": status, "event_id": e.id, "sfn_close": e.typ})
}

// sfnCallName names a task state's call as the conventions see it.
func sfnCallName(family string, det gjson.Result) string {
	res := det.Get("resource").String()
	switch family {
	case "Activity":
		return "activity:" + res
	case "LambdaFunction":
		return "lambda:" + res
	}
	if rt := det.Get("resourceType").String(); rt != "" {
		return rt + ":" + res
	}
	return res
}

// sfnParameters is the task's input as JSON object text: real histories
// carry it as a JSON-encoded string, LocalStack snapshots as the object.
func sfnParameters(family string, det gjson.Result) string {
	p := det.Get("parameters")
	if family != "Task" {
		p = det.Get("input")
	}
	if p.Type == gjson.String {
		if v := strings.TrimSpace(p.Str); validJSONString(v) && gjson.Parse(v).IsObject() {
			return v
		}
		return object("input", p.Str)
	}
	if p.IsObject() {
		return p.Raw
	}
	return "{}"
}

func (s *sfnReader) scheduled(e *sfnEvent, family string) {
	a := s.attempts[e.id]
	if a == nil || a.scheduled != e {
		return
	}
	if !a.started && a.closed != nil {
		if _, phase := sfnSplit(a.closed.typ); phase == "StartFailed" || phase == "ScheduleFailed" {
			return // it never started: nothing crossed
		}
	}
	if !s.once("call", e.id) {
		// Read from another history of this execution, which agrees with
		// this one up to here: this history's close event concludes it.
		a.delivery = s.rn.seen[s.deliveryKey(e.id)]
		return
	}
	if !e.details.IsObject() || e.details.Get("resource").String() == "" {
		// What it ran cannot be told: it may have been a delivery.
		s.problem(e.line, fmt.Sprintf("%s event %d without its details (resource): what the task ran cannot be told", clip(e.typ, 60), e.id))
		return
	}
	if prev := s.byID[e.prev]; prev != nil {
		// A retry: the previous event is the failure of an earlier
		// attempt of a delivery.
		if f, phase := sfnSplit(prev.typ); f == family && (phase == "Failed" || phase == "TimedOut") {
			if pa := s.scheduledOf(prev, f); pa != nil && pa.delivery {
				// At the failure's time: the attempt ended there, and a
				// crossing that shared the interruption's time would be
				// taken to come before it.
				s.conv.lifecycle(s.task, prev.ts, prev.line, "interrupted", map[string]any{"reason": "retry", "event_id": prev.id,
					"detail": fmt.Sprintf("the task state is retried after event %d", prev.id)})
			}
		}
	}
	args := sfnParameters(family, e.details)
	if reps, _ := repeatedKeys(args, 1); len(reps) > 0 {
		// JSON text inside a string (the API's parameters, an input):
		// the document's scan does not see into it, and the conventions
		// would read the first value of the repeated key.
		where := "parameters."
		if family != "Task" {
			where = "input."
		}
		s.problem(e.line, repeatMessage(where+reps[0].path, "task's "+strings.TrimSuffix(where, ".")))
		return
	}
	name := sfnCallName(family, e.details)
	if strings.HasPrefix(name, "apigateway:invoke") || strings.HasPrefix(name, "http:invoke") {
		args = sfnInvokeURL(args)
	}
	before := *s.conv.count
	s.conv.Call(ToolCall{Task: s.task, TS: e.ts, ID: a.callID, Name: name, Args: args, Line: e.line})
	a.delivery = *s.conv.count > before
	if a.delivery {
		s.rn.seen[s.deliveryKey(e.id)] = true
	}
}

func (s *sfnReader) deliveryKey(id int64) string {
	return "sfn:" + s.task + "|delivery" + strconv.FormatInt(id, 10)
}

// sfnInvokeURL gives an API Gateway task's parameters the URL it calls,
// as InvokeUrl (a name API Gateway tasks do not take; the first of the
// object, so it is the one read): https://<ApiEndpoint>/<Stage><Path>.
// Without an ApiEndpoint the parameters stay as they are (the delivery
// has no destination: no key).
func sfnInvokeURL(args string) string {
	p := gjson.Parse(args)
	host := strings.TrimSpace(p.Get("ApiEndpoint").String())
	if host == "" || !p.IsObject() {
		return args
	}
	u := host
	if !strings.Contains(host, "://") {
		u = "https://" + host
	}
	u = strings.TrimSuffix(u, "/")
	if st := strings.Trim(p.Get("Stage").String(), "/"); st != "" {
		u += "/" + st
	}
	if path := p.Get("Path").String(); path != "" {
		u += "/" + strings.TrimPrefix(path, "/")
	}
	rest := strings.TrimSpace(args)[1:]
	if strings.TrimSpace(rest) != "}" {
		rest = "," + rest
	}
	return `{"InvokeUrl":` + strconv.Quote(u) + rest
}

// callIntents are the intents a call declared (its pending parts).
func (c *conventions) callIntents(id string) []string {
	p := c.pending[id]
	if p == nil {
		return nil
	}
	var out []string
	for _, part := range p.parts {
		out = append(out, part.intents...)
	}
	sort.Strings(out)
	return out
}

// sfnTime reads epoch seconds (a number with a fraction, read as decimal
// text so that milliseconds stay exact) or RFC 3339.
func sfnTime(r gjson.Result) (time.Time, bool) {
	if r.Type == gjson.Number {
		sec, frac, _ := strings.Cut(r.Raw, ".")
		n, err := strconv.ParseInt(sec, 10, 64)
		if err == nil && n > 0 && n <= maxUnixSeconds && len(frac) <= 9 && (frac == "" || allDecimal(frac)) {
			ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
			return time.Unix(n, ns).UTC(), true
		}
	}
	t, ok := parseTime(r)
	return t, ok && t.Year() >= 1 && t.Year() <= 9999
}

func allDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
