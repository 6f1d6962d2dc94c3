package transcripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// FormatInspect names Inspect AI evaluation logs.
const FormatInspect = "inspect-ai"

// Inspect AI evaluation logs: the JSON log ({"version", "eval", "samples":
// [...]}), one sample as JSON (a member of a .eval archive, unpacked), and
// .eval archives (a zip of header.json and samples/*.json; inspect_eval.go).
//
// A sample (an epoch of it) is a task, named by its uuid, else
// "<eval_id or run_id or file>/<sample id>/epoch-<epoch>"; it starts at its
// first event (or its started_at) and ends after its last one, failed when
// the sample has an error or hit a limit. The log records no delegation:
// agent handoffs and subtasks are the sample's own.
//
// Evidence, from the sample's events when it has any: a tool event is one
// tool call (function, arguments) at its timestamp, judged by the same
// conventions as other agents' tool calls; it is answered when it is no
// longer pending, at completed: an error (a ToolCallError, failed: true, or
// a result that says error by toolresult.go's convention) is a response not
// ok. A tool error of type "approval" (an approver rejected the call) or
// "parsing" (its arguments could not be parsed), spelled so, means the
// tool never ran: no crossing; with a result (or a tool message with
// content: the tool ran after all) it is a contradiction, a problem, and
// the call counts as crossed. A pending tool event is a call without a
// result. Tool events nested in
// subtask events (older logs) or in tool events (an agent run as a tool)
// are read as the sample's, to a bound. A case variant of an event type
// ("Tool") is a problem; so is a sample read twice with different content.
//
// Without events (older or redacted logs), the sample's messages: an
// assistant message's tool_calls are the calls, tool messages (tool_call_id,
// error) their results. Messages carry no times: they get the sample's
// start (or the eval's created time, else the Unix epoch) plus one
// millisecond each, with a notice. A tool message whose call is not in the
// sample ran with arguments no input shows: a problem of the sample (unless
// its error says it never ran).
//
// A log that holds no samples although its eval had some (written with
// --no-log-samples, or cut) cannot show what they did: a problem of no
// task. So is a sample the log lists (dataset sample_ids, an archive's
// summaries) that it does not hold, or fewer samples than its results
// count (total_samples: every sample of every epoch).

// inspectDocument: an eval log (eval object and a samples list or a log
// version), or one sample (id, epoch and messages or events).
func inspectDocument(doc gjson.Result) bool {
	if !doc.IsObject() {
		return false
	}
	if doc.Get("eval").IsObject() && (doc.Get("eval.task").Exists() || doc.Get("eval.run_id").Exists() || doc.Get("eval.eval_id").Exists()) &&
		(doc.Get("samples").IsArray() || doc.Get("version").Type == gjson.Number) {
		return true
	}
	return inspectSampleShaped(doc)
}

func inspectSampleShaped(doc gjson.Result) bool {
	return doc.Get("id").Exists() && doc.Get("epoch").Type == gjson.Number &&
		(doc.Get("events").IsArray() || doc.Get("messages").IsArray()) && doc.Get("input").Exists()
}

// inspectEval is what the log says about its eval.
type inspectEval struct {
	base    string    // task id prefix
	created time.Time // a base for synthetic times
	hasTime bool
	member  string // the archive member a sample was read from, "" for a JSON log
}

func inspectEvalOf(header gjson.Result, path string) inspectEval {
	ev := inspectEval{base: firstString(header.Get("eval.eval_id"), header.Get("eval.run_id"))}
	if strings.TrimSpace(ev.base) == "" {
		ev.base = path
	}
	for _, k := range []string{"eval.created", "stats.started_at"} {
		if t, ok := langSmithTime(header.Get(k)); ok {
			ev.created, ev.hasTime = t, true
			break
		}
	}
	return ev
}

func (rn *run) readInspect(d *document) {
	conv := rn.conventions(d.in)
	conv.hold = true // a call an approver rejected never ran: its events wait for its result
	defer conv.flush()
	repeats := findRepeats(d)
	defer repeats.rest(d) // a repeat outside every sample (two samples lists) is the document's
	if inspectSampleShaped(d.root) {
		rn.inspectSample(conv, d, repeats, d.root, inspectEval{base: d.in.Path})
		return
	}
	if !inspectDocument(d.root) {
		// Forced on another document: say so, as the other readers do.
		d.in.addProblem(Problem{File: d.in.Path, Line: 1, Message: "not an Inspect AI log: no eval with samples, nor a sample"})
		return
	}
	ev := inspectEvalOf(d.root, d.in.Path)
	samples := d.root.Get("samples")
	if !samples.IsArray() || len(samples.Array()) == 0 {
		rn.inspectNoSamples(d.in, d.root, 1)
		return
	}
	held := inspectHeld{}
	samples.ForEach(func(_, s gjson.Result) bool {
		if d.partial(s) {
			return false
		}
		held.add(s)
		rn.inspectSample(conv, d, repeats, s, ev)
		return true
	})
	held.missing(d.in, d.root, gjson.Result{}, d.in.Path, 1)
}

// inspectHeld are the samples a log holds: ids, and ids with epochs.
type inspectHeld map[string]bool

func (h inspectHeld) add(smp gjson.Result) {
	id := idText(smp.Get("id"))
	h["id:"+id] = true
	h[fmt.Sprintf("epoch:%s/%d", id, smp.Get("epoch").Int())] = true
}

// missing: a sample the log lists (its dataset's sample_ids, an entry of
// its summaries) whose history it does not hold may have crossed: a
// problem, as a referenced task with no history is (SPEC §4). A log
// still running is said to be (its samples may not be written yet), and
// still fails closed.
func (h inspectHeld) missing(in *Input, header, summaries gjson.Result, where string, line int) {
	var lost []string
	seen := map[string]bool{}
	note := func(k, what string) {
		if !h[k] && !seen[k] && len(lost) < 5 {
			lost = append(lost, what)
		}
		seen[k] = true
	}
	header.Get("eval.dataset.sample_ids").ForEach(func(_, v gjson.Result) bool {
		if id := idText(v); id != "" {
			note("id:"+id, strconv.Quote(clip(id, 40)))
		}
		return true
	})
	summaries.ForEach(func(_, v gjson.Result) bool {
		if id := idText(v.Get("id")); id != "" {
			e := v.Get("epoch")
			switch {
			case seen["id:"+id] && !h["id:"+id]:
				// named missing already, with all its epochs
			case e.Type == gjson.Number:
				note(fmt.Sprintf("epoch:%s/%d", id, e.Int()), fmt.Sprintf("%s epoch %d", strconv.Quote(clip(id, 40)), e.Int()))
			default:
				note("id:"+id, strconv.Quote(clip(id, 40)))
			}
		}
		return true
	})
	why := "what it did cannot be seen, and it may have delivered"
	if st := header.Get("status").String(); st == "started" {
		why = "the eval was still running (status started): it may be running, and delivering, now"
	}
	if len(lost) > 0 {
		in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("%s lists sample(s) %s whose history it does not hold: %s",
			clip(where, 80), strings.Join(lost, ", "), why)})
		return
	}
	// The results count every sample of every epoch (total_samples).
	n := 0
	for k := range h {
		if strings.HasPrefix(k, "epoch:") {
			n++
		}
	}
	if total := header.Get("results.total_samples").Int(); int64(n) < total {
		in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("%s holds %d of its eval's %d sample(s) (results.total_samples): what the others did cannot be seen, and they may have delivered",
			clip(where, 80), n, total)})
	}
}

// inspectNoSamples: a log without samples whose eval ran some.
func (rn *run) inspectNoSamples(in *Input, header gjson.Result, line int) {
	n := header.Get("eval.dataset.samples").Int()
	if c := header.Get("results.completed_samples").Int(); c > n {
		n = c
	}
	if n > 0 {
		in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("the log holds none of its eval's %d sample(s) (written without samples, or cut): what they did cannot be seen", n)})
		return
	}
	in.Notices = append(in.Notices, "an Inspect AI log with no samples")
}

// inspectCall is a tool call of a sample.
type inspectCall struct {
	id   string
	line int
}

type inspectSampleReader struct {
	rn     *run
	conv   *conventions
	d      *document
	ev     inspectEval
	task   string
	calls  map[string]string // tool call id → conventions id
	seq    int
	last   time.Time
	hasAny bool
	// attachments: the sample's condensed content ("attachment://<id>"
	// in arguments stands for attachments[id]).
	attachments    gjson.Result
	attachmentByID map[string]gjson.Result // attachment's map, built on first use
}

func (s *inspectSampleReader) problem(line int, msg string) {
	if s.ev.member != "" {
		msg = s.ev.member + ": " + msg
	}
	s.d.in.addProblem(Problem{File: s.d.in.Path, Line: line, Task: s.task, Message: msg})
}

func (rn *run) inspectSample(conv *conventions, d *document, repeats *docRepeats, smp gjson.Result, ev inspectEval) {
	in := d.in
	in.Records++
	line := d.lineOf(smp)
	if !smp.IsObject() {
		in.addProblem(Problem{File: in.Path, Line: line, Message: "sample is not a JSON object"})
		return
	}
	task := smp.Get("uuid").String()
	if strings.TrimSpace(task) == "" {
		task = fmt.Sprintf("%s/%s/epoch-%d", ev.base, clip(idText(smp.Get("id")), 80), smp.Get("epoch").Int())
	}
	s := &inspectSampleReader{rn: rn, conv: conv, d: d, ev: ev, task: task, calls: map[string]string{}, attachments: smp.Get("attachments")}
	if rep, ok := repeats.in(smp); ok {
		s.problem(line, repeatMessage(rep.path, "sample"))
		return
	}
	start, hasStart := langSmithTime(smp.Get("started_at"))
	events := smp.Get("events")
	// Tool events are the record of what ran; a sample whose events hold
	// none (condensed or left out) is read from its messages.
	useEvents := events.IsArray() && (inspectHasToolEvent(events, 0) || !smp.Get("messages.0").Exists())
	if !hasStart && useEvents {
		events.ForEach(func(_, e gjson.Result) bool {
			start, hasStart = langSmithTime(e.Get("timestamp"))
			return !hasStart
		})
	}
	synthetic := false
	if !hasStart {
		start, synthetic = ev.created, true
		if !ev.hasTime {
			start = time.Unix(0, 0).UTC()
		}
	}
	s.last = start
	digest := "inspect-sample-digest:" + task + "|" + inspectSampleDigest(smp)
	if !rn.once("inspect-sample:" + task) {
		// The same sample read before (a log and its archive, say): a
		// copy is read once; other content is two readings of it.
		if !rn.seen[digest] {
			s.problem(line, fmt.Sprintf("sample %s appears twice with different content: it has two readings", clip(task, 80)))
		}
		return
	}
	rn.seen[digest] = true
	conv.lifecycle(task, start, line, "task_started", map[string]any{"relation": "root"})
	if useEvents {
		s.events(events, 0)
	} else {
		synthetic = true
		s.messages(smp.Get("messages"))
	}
	if synthetic && s.hasAny {
		in.Notices = append(in.Notices, fmt.Sprintf("sample %s has no event times: its tool calls are placed at %s plus 1 ms each, which keeps their order only",
			clip(task, 80), start.Format(time.RFC3339)))
	}
	end := s.last
	if t, ok := langSmithTime(smp.Get("completed_at")); ok && t.After(end) {
		end = t
	}
	status := "completed"
	if truthy(smp.Get("error")) || truthy(smp.Get("limit")) {
		status = "failed"
	}
	conv.flush() // the sample's calls are settled before it ends
	conv.lifecycle(task, end, line, "task_ended", map[string]any{"status": status})
}

// inspectSampleDigest is what a sample says that its reading rests on:
// its events and messages (insignificant whitespace aside), whether it
// failed. Two copies of one sample (a JSON log and its .eval) agree.
func inspectSampleDigest(smp gjson.Result) string {
	var b bytes.Buffer
	for _, k := range []string{"events", "messages"} {
		v := smp.Get(k)
		if err := json.Compact(&b, []byte(v.Raw)); err != nil {
			b.WriteString(v.Raw)
		}
		b.WriteByte(0)
	}
	fmt.Fprintf(&b, "%v|%v", truthy(smp.Get("error")), truthy(smp.Get("limit")))
	return sha256Hex(b.String())
}

// at is a record's time: its own, else the last time plus 1 ms.
func (s *inspectSampleReader) at(r gjson.Result, keys ...string) time.Time {
	for _, k := range keys {
		if t, ok := langSmithTime(r.Get(k)); ok {
			if t.After(s.last) {
				s.last = t
			}
			return t
		}
	}
	s.last = s.last.Add(time.Millisecond)
	return s.last
}

// neverRan: a tool error that says the tool was not run. Only Inspect's
// own spelling is that type: "Approval" is some other error, after which
// the tool may have run.
func neverRan(errv gjson.Result) bool {
	switch errv.Get("type").String() {
	case "approval", "parsing":
		return true
	}
	return false
}

// inspectMaxDepth bounds the nesting of events the reader walks (subtasks,
// agents used as tools); deeper events are a problem, not a silent cut.
const inspectMaxDepth = 16

// inspectEventTypes are the event types Inspect writes; a case variant of
// one ("Tool") is not that type, and not another either: a problem.
var inspectEventTypes = map[string]bool{"sample_init": true, "sample_limit": true, "sandbox": true, "state": true, "store": true,
	"model": true, "tool": true, "approval": true, "input": true, "score": true, "score_edit": true, "error": true, "logger": true,
	"info": true, "step": true, "subtask": true, "span_begin": true, "span_end": true, "compaction": true}

// caseVariant: name differs from a known one in letter case only.
func caseVariant(name string, known map[string]bool) bool {
	if known[name] {
		return false
	}
	return known[strings.ToLower(name)]
}

func (s *inspectSampleReader) events(list gjson.Result, depth int) {
	list.ForEach(func(_, e gjson.Result) bool {
		if s.d.partial(e) {
			return false
		}
		typ := e.Get("event").String()
		switch {
		case typ == "tool":
			s.toolEvent(e, depth)
		case typ == "subtask":
			s.at(e, "timestamp")
			s.nested(e, depth)
		case caseVariant(typ, inspectEventTypes):
			s.problem(s.d.lineOf(e), fmt.Sprintf("event type %q differs from Inspect's %q in letter case only: what it records cannot be told", clip(typ, 40), strings.ToLower(typ)))
			s.at(e, "timestamp")
		default:
			s.at(e, "timestamp")
		}
		return true
	})
}

// nested reads the events an event holds (a subtask's, or an agent's run
// as a tool) as the sample's, to a bound.
func (s *inspectSampleReader) nested(e gjson.Result, depth int) {
	evs := e.Get("events")
	if !evs.IsArray() || !evs.Get("0").Exists() {
		return
	}
	if depth+1 >= inspectMaxDepth {
		s.problem(s.d.lineOf(evs), fmt.Sprintf("events nested deeper than %d levels are not read: what they did cannot be seen", inspectMaxDepth))
		return
	}
	s.events(evs, depth+1)
}

// ranResult: a result that shows the tool ran (any content at all).
func ranResult(r gjson.Result) bool {
	switch r.Type {
	case gjson.Null:
		return false
	case gjson.String:
		return strings.TrimSpace(r.Str) != ""
	case gjson.JSON:
		return r.IsObject() && r.Raw != "{}" && len(r.Map()) > 0 || r.IsArray() && len(r.Array()) > 0
	}
	return r.Exists()
}

func (s *inspectSampleReader) toolEvent(e gjson.Result, depth int) {
	line := s.d.lineOf(e)
	name := e.Get("function").String()
	ts := s.at(e, "timestamp")
	s.hasAny = true
	if strings.TrimSpace(name) == "" {
		s.problem(line, "tool event without a function: what it did cannot be told")
		return
	}
	args := e.Get("arguments")
	argText := "{}"
	if args.IsObject() {
		argText = args.Raw
	}
	if p, repeated := argumentsRepeat(argText); repeated {
		s.problem(line, repeatMessage(p, "call's arguments"))
		return
	}
	argText = inspectShellArgs(name, s.resolveAttachments(argText))
	id := s.callID(e.Get("id").String(), line)
	s.conv.Call(ToolCall{Task: s.task, TS: ts, ID: id, Name: name, Args: argText, Line: line})
	// An agent run as a tool records its own tool events inside this one.
	s.nested(e, depth)
	if e.Get("pending").Bool() {
		return // still running when the log was written: no result
	}
	end, endLine := ts, line
	for _, k := range []string{"error", "completed"} {
		if v := e.Get(k); v.Exists() && v.Type != gjson.Null {
			endLine = s.d.lineOf(v) // where the outcome is written
		}
	}
	if t, ok := langSmithTime(e.Get("completed")); ok {
		end = t
		if t.After(s.last) {
			s.last = t
		}
	}
	errv := e.Get("error")
	res := toolResult{TS: end, Line: endLine, Output: argString(e.Get("result"))}
	switch {
	case truthy(errv) && neverRan(errv) && ranResult(e.Get("result")):
		// The error says the tool never ran, its result that it did:
		// two readings. Read as ran (crossed, unconfirmed), and say so.
		s.problem(endLine, fmt.Sprintf("tool call %s: its error (%s) says the tool never ran, but it has a result: it may have run, and delivered",
			clip(name, 60), errv.Get("type").String()))
		res.Error = true
	case truthy(errv) && neverRan(errv):
		res.Denied = true
	case truthy(errv), e.Get("failed").Bool():
		res.Error = true
	default:
		res.Error = outputSaysError(e.Get("result"))
	}
	s.conv.Result(id, res)
}

// callID names a call in this run: the sample and the log's call id (ids
// such as "bash_1" repeat across samples), or its place.
func (s *inspectSampleReader) callID(id string, line int) string {
	s.seq++
	if strings.TrimSpace(id) == "" {
		return fmt.Sprintf("inspect:%s#%d@%d", s.task, s.seq, line)
	}
	key := "inspect:" + s.task + "/" + id
	if _, seen := s.calls[id]; seen {
		key = fmt.Sprintf("%s#%d", key, s.seq) // a reused id: another call
	}
	s.calls[id] = key
	return key
}

func (s *inspectSampleReader) messages(list gjson.Result) {
	list.ForEach(func(_, m gjson.Result) bool {
		if s.d.partial(m) {
			return false
		}
		line := s.d.lineOf(m)
		switch m.Get("role").String() {
		case "assistant":
			m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				ts := s.at(tc, "timestamp")
				s.hasAny = true
				name := tc.Get("function").String()
				tline := s.d.lineOf(tc)
				if strings.TrimSpace(name) == "" {
					s.problem(tline, "tool call without a function: what it did cannot be told")
					return true
				}
				args := tc.Get("arguments")
				argText := "{}"
				if args.IsObject() {
					argText = args.Raw
				} else if args.Type == gjson.String {
					argText = args.Str
				}
				if p, repeated := argumentsRepeat(argText); repeated {
					s.problem(tline, repeatMessage(p, "call's arguments"))
					return true
				}
				argText = inspectShellArgs(name, s.resolveAttachments(argText))
				id := s.callID(tc.Get("id").String(), tline)
				s.conv.Call(ToolCall{Task: s.task, TS: ts, ID: id, Name: name, Args: argText, Line: tline})
				return true
			})
		case "tool":
			ts := s.at(m, "timestamp")
			s.hasAny = true
			callID := m.Get("tool_call_id").String()
			errv := m.Get("error")
			key, ok := s.calls[callID]
			if !ok || callID == "" {
				if truthy(errv) && neverRan(errv) {
					return true // it never ran: nothing to miss
				}
				s.problem(line, fmt.Sprintf("result of tool call %q (%s), whose call is not in the log: the call ran, and may have delivered, with arguments no input shows",
					clip(callID, 60), clip(m.Get("function").String(), 60)))
				return true
			}
			res := toolResult{TS: ts, Line: line}
			switch {
			case truthy(errv) && neverRan(errv) && ranResult(m.Get("content")):
				s.problem(line, fmt.Sprintf("result of tool call %q (%s): its error (%s) says the tool never ran, but it has content: it may have run, and delivered",
					clip(callID, 60), clip(m.Get("function").String(), 60), errv.Get("type").String()))
				res.Error = true
			case truthy(errv) && neverRan(errv):
				res.Denied = true
			case truthy(errv):
				res.Error = true
			default:
				res.Error = outputSaysError(m.Get("content"))
			}
			s.conv.Result(key, res)
		default:
			if r := m.Get("role").String(); caseVariant(r, inspectRoles) {
				s.problem(line, fmt.Sprintf("message role %q differs from %q in letter case only: what it records cannot be told", clip(r, 40), strings.ToLower(r)))
			}
			s.at(m, "timestamp")
		}
		return true
	})
}

var inspectRoles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// inspectShellArgs gives Inspect's bash tool, whose command line is its
// cmd argument, the command argument the conventions' shell rules read:
// a curl upload in a bash call is a delivery like any agent's.
func inspectShellArgs(name, args string) string {
	if name != "bash" || !gjson.Get(args, "cmd").Exists() || gjson.Get(args, "command").Exists() {
		return args
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	m["command"] = m["cmd"]
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return string(b)
}

func inspectHasToolEvent(list gjson.Result, depth int) bool {
	found := false
	list.ForEach(func(_, e gjson.Result) bool {
		switch e.Get("event").String() {
		case "tool":
			found = true
		case "subtask":
			found = depth < inspectMaxDepth && inspectHasToolEvent(e.Get("events"), depth+1)
		default:
			// A case variant ("Tool") is read from the events, where it
			// is a problem, not passed over for the messages.
			found = caseVariant(e.Get("event").String(), inspectEventTypes)
		}
		return !found
	})
	return found
}

// resolveAttachments puts back the content Inspect condensed out of a
// call's arguments ("attachment://<id>" for a long string, kept in the
// sample's attachments). An argument whose attachment is not in the log
// is left out: its content is unknown, so the delivery stays without a
// key (fail closed) instead of being keyed by the reference.
func (s *inspectSampleReader) resolveAttachments(args string) string {
	if !strings.Contains(args, "attachment://") {
		return args
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	for k, v := range m {
		str, ok := v.(string)
		if !ok {
			continue
		}
		id, ok := strings.CutPrefix(str, "attachment://")
		if !ok {
			continue
		}
		if a := s.attachment(id); a.Type == gjson.String {
			m[k] = a.Str
		} else {
			delete(m, k)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return string(b)
}

// attachment is the sample's attachment id, as attachments.Get finds it.
// A plain id (letters, digits, - and _: the digests Inspect writes) is
// looked up in a map of the attachments built once per sample: each Get
// scanned the attachments from the start, for every reference of every
// call (calls × attachments: 40,000 of each took 18 s, issue 15, the
// 49th review). Any other id, or attachments that are not an object, go
// through gjson's path as before.
func (s *inspectSampleReader) attachment(id string) gjson.Result {
	if !plainID(id) || !s.attachments.IsObject() {
		return s.attachments.Get(gjsonKey(id))
	}
	if s.attachmentByID == nil {
		s.attachmentByID = map[string]gjson.Result{}
		s.attachments.ForEach(func(k, v gjson.Result) bool {
			if _, ok := s.attachmentByID[k.Str]; !ok { // the first, as Get
				s.attachmentByID[k.Str] = v
			}
			return true
		})
	}
	return s.attachmentByID[id]
}

func plainID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return id != ""
}

// gjsonKey escapes a map key for a gjson path.
func gjsonKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		switch r {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
