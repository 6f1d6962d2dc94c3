package transcripts

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// NativeTypes lists the event types SPEC §3 defines, sorted.
func NativeTypes() []string {
	out := make([]string, 0, len(knownTypes))
	for t := range knownTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// knownTypes lists the event types of SPEC §3 with the check of their extra
// fields. A check returns "" when the event is well formed.
var knownTypes = map[string]func(r gjson.Result) string{
	"task_started": func(r gjson.Result) string {
		rel := r.Get("relation")
		if rel.Exists() && !oneOf(rel, "root", "child", "sibling", "delegated", "resumed") {
			return "relation must be root, child, sibling, delegated or resumed"
		}
		if rel.String() == "resumed" && !isString(r.Get("resumes")) {
			return "relation resumed needs resumes (the id of the resumed task)"
		}
		return optionalStrings(r, "parent", "resumes")
	},
	"task_spawned": func(r gjson.Result) string { return requiredString(r, "child") },
	"task_ended": func(r gjson.Result) string {
		if !oneOf(r.Get("status"), "completed", "failed", "cancelled") {
			return "status must be completed, failed or cancelled"
		}
		return ""
	},
	"interrupted": func(r gjson.Result) string { return optionalStrings(r, "reason") },
	"intent": func(r gjson.Result) string {
		if msg := optionalStrings(r, "intent", "authorization", "key"); msg != "" {
			return msg
		}
		if r.Get("key").Exists() {
			return ""
		}
		return checkDestinationContent(r)
	},
	"authorization": func(r gjson.Result) string {
		// by and reason are not optional (SPEC §3): a record is a person's
		// knowing decision, and one without them would open a scope all
		// the same (an adversarial review: a task wrote its own record).
		for _, name := range []string{"authorization", "by", "reason"} {
			if msg := requiredString(r, name); msg != "" {
				return msg
			}
		}
		for _, name := range []string{"by", "reason"} {
			if strings.TrimFunc(r.Get(name).Str, func(c rune) bool { return unicode.IsSpace(c) || unicode.Is(unicode.Cf, c) }) == "" {
				return name + " must say something (it is only white space)"
			}
		}
		if msg := optionalStrings(r, "key"); msg != "" {
			return msg
		}
		if r.Get("key").Exists() {
			return ""
		}
		return checkDestinationContent(r)
	},
	"gate_check": func(r gjson.Result) string {
		if !oneOf(r.Get("checkpoint"), "resume", "picker", "send") {
			return "checkpoint must be resume, picker or send"
		}
		if !oneOf(r.Get("decision"), "allow", "stop") {
			return "decision must be allow or stop"
		}
		return ""
	},
	"picker_opened":    evidence,
	"picker_dismissed": evidence,
	"picker_accepted":  func(r gjson.Result) string { return optionalStrings(r, "intent", "file") },
	"send_fired":       evidence,
	"request_sent":     func(r gjson.Result) string { return optionalStrings(r, "intent", "idempotency_token") },
	"response": func(r gjson.Result) string {
		ok := r.Get("ok")
		if ok.Type != gjson.True && ok.Type != gjson.False {
			return "ok must be true or false"
		}
		if st := r.Get("status"); st.Exists() && st.Type != gjson.Number {
			return "status must be a number"
		}
		return evidence(r)
	},
	"outgoing_item_seen": detail,
	"ui_changed":         detail,
	"timeout":            detail,
	"response_lost":      detail,
	"failure_shown":      detail,
	"readback": func(r gjson.Result) string {
		if !oneOf(r.Get("result"), "confirmed", "mismatch", "unavailable") {
			return "result must be confirmed, mismatch or unavailable"
		}
		return evidence(r)
	},
	"status": func(r gjson.Result) string {
		if !oneOf(r.Get("label"), "not_sent", "sent_verified", "send_status_unknown") {
			return "label must be not_sent, sent_verified or send_status_unknown"
		}
		return evidence(r)
	},
}

// variantTypes are the known types with their folded forms (sendfired).
var variantTypes = func() knownNames {
	known := map[string]bool{}
	for t := range knownTypes {
		known[t] = true
	}
	return newKnownNames(known)
}()

// fieldVariant returns the field of native events (ts, task, type or a
// field SPEC §3 names) that key differs from only in letter case or
// separators ("Type", "Idempotency-Token"), "" when there is none or key is
// that field itself. Two spellings of one field have two readings (the
// reader takes the exact one, a writer may have meant the other), so such
// a line is a problem (SPEC §3).
func fieldVariant(key string) string { return fieldVariantOf([]byte(key)) }

// fieldVariantOf is fieldVariant without a string: the fast path calls it
// for every key of every line.
func fieldVariantOf(key []byte) string {
	return variantOf(variantFields, key)
}

// variantFields are the fields of native events with their folded forms.
var variantFields = newKnownNames(specFields, map[string]bool{"ts": true, "task": true, "type": true})

// typeVariant returns the known type that typ differs from only in letter
// case or separators (Send_Fired, send-fired, sendFired, " send_fired"),
// "" when there is none or typ is that type itself. SPEC §3 makes such a
// line a problem: read as an unknown type it would quietly drop a
// crossing the writer may have meant.
func typeVariant(typ string) string {
	return variantTypes.variant(typ)
}

func evidence(r gjson.Result) string { return optionalStrings(r, "intent") }
func detail(r gjson.Result) string   { return optionalStrings(r, "intent", "detail") }

func checkDestinationContent(r gjson.Result) string {
	d := r.Get("destination")
	if !d.IsObject() {
		return "needs destination {provider, id, title} or key"
	}
	if msg := optionalStrings(d, "provider", "id", "title"); msg != "" {
		return "destination: " + msg
	}
	if !(isString(d.Get("provider")) && isString(d.Get("id"))) && !isString(d.Get("title")) {
		return "destination needs provider and id, or a title"
	}
	c := r.Get("content")
	if !c.IsObject() {
		return "needs content {sha256 or path}"
	}
	if msg := optionalStrings(c, "sha256", "path", "name"); msg != "" {
		return "content: " + msg
	}
	if !isString(c.Get("sha256")) && !isString(c.Get("path")) {
		return "content needs sha256 or path"
	}
	return ""
}

func isString(r gjson.Result) bool { return r.Type == gjson.String && r.Str != "" }

func oneOf(r gjson.Result, values ...string) bool {
	if r.Type != gjson.String {
		return false
	}
	for _, v := range values {
		if r.Str == v {
			return true
		}
	}
	return false
}

func requiredString(r gjson.Result, name string) string {
	if !isString(r.Get(name)) {
		return name + " must be a non-empty string"
	}
	return ""
}

func optionalStrings(r gjson.Result, names ...string) string {
	for _, n := range names {
		if v := r.Get(n); v.Exists() && !isString(v) {
			return n + " must be a non-empty string"
		}
	}
	return ""
}

// jsonLines reads a JSON Lines stream and calls handle for every line that
// is a JSON object. It never stops at a bad line: each one becomes a
// Problem (attributed to the task named by taskField when it survived) and
// reading goes on.
func jsonLines(src io.Reader, in *Input, maxLine int, taskField string, handle func(l rawLine, r gjson.Result)) {
	lr := newLineReader(src, maxLine)
	for {
		l, err := lr.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			// Lines after a read error are lost, and they may belong to any
			// task in this file: a file-level problem (no task).
			in.addProblem(Problem{File: in.Path, Line: lr.line + 1,
				Message: "input ends early: " + err.Error()})
			return
		}
		if blankLine(l) {
			continue
		}
		in.Records++
		if msg, task := checkJSONLine(l, taskField); msg != "" {
			in.addProblem(Problem{File: in.Path, Line: l.num, Task: task, Message: msg})
			continue
		}
		handle(l, gjson.ParseBytes(l.bytes))
	}
}

// checkJSONLine says what is wrong with a line, if anything, and the task
// it belongs to when that can still be read.
func checkJSONLine(l rawLine, taskField string) (msg, task string) {
	b := l.bytes
	switch {
	case l.tooLong:
		return fmt.Sprintf("line is longer than the limit of %d bytes; skipped", len(b)), salvageTask(b, taskField)
	case !utf8.Valid(b):
		return "line is not valid UTF-8", salvageTask(b, taskField)
	case !validJSON(b) && l.unterminated:
		// A cut last line means the file was cut: later lines of any task
		// in this file may be missing, so the problem names no task.
		return "truncated last line (no newline and not valid JSON): the file may have been cut", ""
	case !validJSON(b):
		return "not valid JSON", salvageTask(b, taskField)
	case !gjson.ParseBytes(b).IsObject():
		return "not a JSON object", ""
	}
	return "", ""
}

// readNative reads one effectlint/v1 JSON Lines stream. Each line goes
// to the fast path (nativefast.go) first; the lines it does not take are
// read as every JSON Lines format reads them (jsonLines).
// keep, when not nil, says which fields other than ts, task and type to
// decode into Event.Fields (Options.SpecFieldsOnly).
func readNative(src io.Reader, in *Input, maxLine int, keep func(string) bool, emit func(Event)) {
	var nr nativeRead
	nr.lines(newLineReader(src, maxLine), in, keep, emit, nil)
	nr.notices(in)
}

// nativeRead is what reading a native log keeps from line to line besides
// the Input: the unknown types seen, for one notice each at the end. It is
// all the state there is (the fast path's buffers and interned strings
// change no result), so the cache of parsed facts can store it and go on
// reading an appended file after its last cached line (filecache.go).
type nativeRead struct {
	unknown      map[string]int
	unknownOrder []string
}

func (nr *nativeRead) clone() nativeRead {
	c := nativeRead{unknown: make(map[string]int, len(nr.unknown)), unknownOrder: slices.Clone(nr.unknownOrder)}
	for k, v := range nr.unknown {
		c.unknown[k] = v
	}
	return c
}

// lines reads lines from lr until its end. before, when set, is called
// before a line with no newline (the last one) is read: the state then is
// that of the prefix of the file that ends with a newline.
func (nr *nativeRead) lines(lr *lineReader, in *Input, keep func(string) bool, emit func(Event), before func(l rawLine)) {
	if nr.unknown == nil {
		nr.unknown = map[string]int{}
	}
	accept := func(ev *Event, problem *Problem) {
		if problem != nil {
			in.addProblem(*problem)
		}
		if ev == nil {
			return
		}
		clipFields(ev.Fields)
		if knownTypes[ev.Type] == nil {
			if nr.unknown[ev.Type] == 0 {
				nr.unknownOrder = append(nr.unknownOrder, ev.Type)
			}
			nr.unknown[ev.Type]++
		}
		in.Events++
		emit(*ev)
	}
	nf := newNativeFast()
	nf.keep = keep
	for {
		l, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// As in jsonLines: the lines after a read error may be any
			// task's.
			in.addProblem(Problem{File: in.Path, Line: lr.line + 1,
				Message: "input ends early: " + err.Error()})
			break
		}
		if l.unterminated && before != nil {
			before(l)
		}
		if blankLine(l) {
			continue
		}
		in.Records++
		if ev, problem, ok := nf.line(in.Path, l); ok {
			accept(ev, problem)
			continue
		}
		if msg, task := checkJSONLine(l, "task"); msg != "" {
			in.addProblem(Problem{File: in.Path, Line: l.num, Task: task, Message: msg})
			continue
		}
		// The fast path takes no line with a repeated key: only this one
		// has to look for them.
		if p, repeated := repeatedKeyProblem(in.Path, l.num, l.bytes, salvageTask(l.bytes, "task"), "task"); repeated {
			in.addProblem(p)
			continue
		}
		accept(parseNativeLine(in.Path, l.num, gjson.ParseBytes(l.bytes), keep))
	}
}

// notices says which event types were not known, once each.
func (nr *nativeRead) notices(in *Input) {
	for _, t := range nr.unknownOrder {
		in.Notices = append(in.Notices, fmt.Sprintf("unknown event type %q on %d line(s): kept as facts, not interpreted", clip(t, 60), nr.unknown[t]))
	}
}

// parseNativeLine turns one JSON object into an event. A line that cannot
// be placed in time or attributed to a task yields no event; a line whose
// type-specific fields are wrong yields both the event (its evidence still
// counts) and a problem (its task's history is then incomplete). keep, when
// not nil, says which other fields to decode into Fields (the type checks
// read the line itself, so they see every field).
func parseNativeLine(file string, num int, r gjson.Result, keep func(string) bool) (*Event, *Problem) {
	fail := func(task, msg string) (*Event, *Problem) {
		return nil, &Problem{File: file, Line: num, Task: task, Message: msg}
	}
	task := r.Get("task")
	if !isString(task) {
		return fail("", "missing task (a non-empty string)")
	}
	typ := r.Get("type")
	if !isString(typ) {
		return fail(task.Str, "missing type (a non-empty string)")
	}
	if known := typeVariant(typ.Str); known != "" {
		return fail(task.Str, fmt.Sprintf("type %q differs from %s only in letter case or separators: a misspelt %s or another type, it cannot be told", clip(typ.Str, 60), known, known))
	}
	if known := variantTypes.near(typ.Str); known != "" {
		return fail(task.Str, fmt.Sprintf("type %q is a letter or two from %s: a misspelt or disguised %s or another type, it cannot be told", clip(typ.Str, 60), known, known))
	}
	tsRaw := r.Get("ts")
	if tsRaw.Type != gjson.String {
		return fail(task.Str, "missing ts (an RFC 3339 time with offset)")
	}
	ts, err := time.Parse(time.RFC3339Nano, tsRaw.Str)
	if err != nil {
		return fail(task.Str, fmt.Sprintf("ts %q is not an RFC 3339 time with offset", clip(tsRaw.Str, 60)))
	}
	var variant *Problem
	r.ForEach(func(k, _ gjson.Result) bool {
		if f := fieldVariant(k.Str); f != "" {
			_, variant = fail(task.Str, fmt.Sprintf("field %q differs from %s only in letter case or separators: two spellings of one field, it cannot be told which is meant", clip(k.Str, 60), f))
			return false
		}
		return true
	})
	if variant != nil {
		return nil, variant
	}
	ev := &Event{File: file, Line: num, TS: ts, Task: task.Str, Type: typ.Str, Source: FormatNative, Fields: map[string]any{}}
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "ts", "task", "type":
		default:
			if keep == nil || keep(k.Str) {
				ev.Fields[k.Str] = decode(v, 1)
			}
		}
		return true
	})
	if check := knownTypes[typ.Str]; check != nil {
		if msg := check(r); msg != "" {
			return ev, &Problem{File: file, Line: num, Task: task.Str, Message: typ.Str + ": " + msg}
		}
	}
	return ev, nil
}

// salvageTask recovers the task id of a broken line when its `task` field is
// still intact, so that the problem marks that task's history incomplete
// rather than every task's.
func salvageTask(b []byte, field string) string {
	if len(b) > 1<<20 {
		b = b[:1<<20]
	}
	t := gjson.GetBytes(b, field)
	if t.Type == gjson.String && t.Str != "" && len(t.Str) <= 200 && utf8.ValidString(t.Str) {
		return t.Str
	}
	return ""
}

// clip cuts transcript text quoted in a message to about n bytes, at a
// character boundary: messages show excerpts, never whole hostile lines.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// listed joins at most max items of a list for a message, saying how many
// more there are.
func listed(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(" and %d more", len(items)-max)
}

// decode converts a JSON value for Event.Fields. Numbers stay json.Number
// (their exact text). A number beyond float64 range (1e999999 is valid
// JSON) would be +Inf, which neither encoding/json nor OPA accepts, so it
// is kept as its text, a string: nothing is lost and nothing fails. For
// the same reason a container nested deeper than MaxValueDepth (depth
// counts from 1 for a top-level field's value) is kept as its JSON text.
func decode(r gjson.Result, depth int) any {
	switch {
	case r.Type == gjson.String:
		return r.Str
	case r.Type == gjson.Number:
		if _, err := strconv.ParseFloat(r.Raw, 64); err != nil {
			return r.Raw
		}
		return json.Number(r.Raw)
	case r.Type == gjson.True:
		return true
	case r.Type == gjson.False:
		return false
	case (r.IsArray() || r.IsObject()) && depth > MaxValueDepth:
		return r.Raw
	case r.IsArray():
		out := []any{}
		r.ForEach(func(_, v gjson.Result) bool {
			out = append(out, decode(v, depth+1))
			return true
		})
		return out
	case r.IsObject():
		out := map[string]any{}
		r.ForEach(func(k, v gjson.Result) bool {
			out[k.Str] = decode(v, depth+1)
			return true
		})
		return out
	}
	return nil
}
