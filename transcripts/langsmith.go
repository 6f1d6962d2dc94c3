package transcripts

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// FormatLangSmith names LangSmith run exports.
const FormatLangSmith = "langsmith"

// LangSmith runs: a run object as the API and SDK give it (id, name,
// run_type, start_time, end_time, inputs, outputs, error, status,
// parent_run_id, trace_id, extra.metadata, child_runs), a list of runs,
// or {"runs": [...]}; child_runs are read as runs of their own.
//
// Evidence: a run with run_type "tool" is one tool call, named by the
// run's name, with its inputs as arguments (an inputs object holding only
// "input", a string of JSON, is that JSON), judged by the conventions, at
// its start_time; its end is its result, an error when error is set, its
// status is "error", or its outputs say so (toolresult.go). A tool run
// with no end_time is a call without a result (an open crossing).
//
// Tasks: the run's thread (extra.metadata thread_id, session_id or
// conversation_id, as LangSmith groups runs into threads), else its trace
// (trace_id), else its root run's id, else the file. A trace task starts
// at its earliest run and ends with its root run (failed when that run
// failed); a thread task is never ended here (the next trace may continue
// it). LangSmith's own session_id is the tracing project, not a task.
// Times without an offset (the API's "2026-11-30T08:10:00.123456") are
// UTC. A run read twice (by id) is counted once.
//
// Problems, not guesses: a run_type that differs from a known one only in
// letter case or separators ("Tool"); a run whose parent run is not in the
// input (a partial export: the runs it lacks may have delivered anything);
// one run id with two contents.

type lsRun struct {
	r                gjson.Result
	id, parent       string
	trace, thread    string
	typ, name        string
	start, end       time.Time
	hasStart, hasEnd bool
	failed           bool
	line, endLine    int
}

func langSmithRun(r gjson.Result) bool {
	return r.IsObject() && r.Get("run_type").Type == gjson.String && r.Get("id").Type == gjson.String &&
		(r.Get("start_time").Exists() || r.Get("trace_id").Exists() || r.Get("dotted_order").Exists())
}

func langSmithDocument(doc gjson.Result) bool {
	return langSmithRun(doc) || (doc.IsArray() && langSmithRun(doc.Get("0"))) || langSmithRun(doc.Get("runs.0"))
}

// langSmithTime reads RFC 3339, an offset-less ISO time (UTC), or Unix
// time.
func langSmithTime(r gjson.Result) (time.Time, bool) {
	if t, ok := parseTime(r); ok {
		return t, t.Year() >= 1 && t.Year() <= 9999
	}
	if r.Type == gjson.String {
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
			if t, err := time.Parse(layout, strings.TrimSpace(r.Str)); err == nil {
				return t.UTC(), true
			}
		}
	}
	return time.Time{}, false
}

func (rn *run) readLangSmith(d *document) {
	in := d.in
	var raws []gjson.Result
	var walk func(r gjson.Result, depth int)
	walk = func(r gjson.Result, depth int) {
		if d.partial(r) {
			return
		}
		raws = append(raws, r)
		if depth < MaxValueDepth {
			r.Get("child_runs").ForEach(func(_, c gjson.Result) bool { walk(c, depth+1); return true })
		}
	}
	switch {
	case d.root.IsArray():
		d.root.ForEach(func(_, r gjson.Result) bool { walk(r, 0); return true })
	case d.root.Get("runs").IsArray():
		d.root.Get("runs").ForEach(func(_, r gjson.Result) bool { walk(r, 0); return true })
	default:
		walk(d.root, 0)
	}
	repeats := findRepeats(d)
	byID := map[string]*lsRun{}
	var runs []*lsRun
	for _, r := range raws {
		in.Records++
		line := d.lineOf(r)
		if rep, ok := repeats.in(r); ok {
			in.addProblem(Problem{File: in.Path, Line: line, Message: repeatMessage(rep.path, "run")})
			continue
		}
		if !r.IsObject() || r.Get("id").String() == "" {
			in.addProblem(Problem{File: in.Path, Line: line, Message: "run is not a JSON object with an id"})
			continue
		}
		x := &lsRun{r: r, line: line, id: r.Get("id").String(), parent: r.Get("parent_run_id").String(),
			trace: r.Get("trace_id").String(), typ: r.Get("run_type").String(), name: r.Get("name").String()}
		x.thread = firstString(r.Get("extra.metadata.thread_id"), r.Get("extra.metadata.session_id"), r.Get("extra.metadata.conversation_id"))
		x.start, x.hasStart = langSmithTime(r.Get("start_time"))
		x.end, x.hasEnd = langSmithTime(r.Get("end_time"))
		x.endLine = line
		if e := r.Get("end_time"); e.Exists() {
			x.endLine = d.lineOf(e)
		}
		errv := r.Get("error")
		x.failed = truthy(errv) || strings.EqualFold(r.Get("status").String(), "error")
		if known := lsRunTypeVariant(x.typ); known != "" {
			// "Tool" for "tool": dropping it would lose a delivery,
			// reading it would guess (as a native "Send_Fired" is).
			in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("run %s: run_type %q differs from the known run type %q only in letter case or separators: what the run did cannot be told",
				clip(x.id, 60), clip(x.typ, 40), known)})
			continue
		}
		if prev, dup := byID[x.id]; dup {
			if prev.r.Raw != r.Raw {
				in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("run %s appears twice with different content: it has two readings", clip(x.id, 60))})
			}
			continue
		}
		// One id in two inputs must say the same: a run read twice (two
		// exports) counts once, one id with two contents is a problem of
		// both readings' runs (a sixth review today: the second input's
		// delivery to another channel was dropped as a copy, and a check
		// for it allowed).
		if first, differs := readAgain(rn.langsmithRuns, x.id, jsonFingerprint(r.Raw), in.Path); differs && first.path != in.Path {
			in.addProblem(Problem{File: in.Path, Line: line, Message: fmt.Sprintf("run %s differs from the run of that id in %s: it has two readings", clip(x.id, 60), first.path)})
			continue
		}
		byID[x.id] = x
		runs = append(runs, x)
	}
	repeats.rest(d)
	// A run whose parent run is not in the input: a partial export (a
	// filter, a cut), so runs of its trace may be missing, deliveries
	// among them. The input is not whole: a problem of no task, since
	// the missing runs may be any task's (as a cut document is).
	for _, x := range runs {
		if x.parent != "" && byID[x.parent] == nil {
			in.addProblem(Problem{File: in.Path, Line: x.line, Message: fmt.Sprintf("run %s names parent run %s, which is not in the input: a partial export, runs of its trace (and what they did) may be missing",
				clip(x.id, 60), clip(x.parent, 60))})
		}
	}
	// A child inherits its parent's trace and thread (child_runs often
	// leave them out).
	var root func(x *lsRun, n int) *lsRun
	root = func(x *lsRun, n int) *lsRun {
		if p := byID[x.parent]; p != nil && n < 64 && p != x {
			return root(p, n+1)
		}
		return x
	}
	taskOf := map[*lsRun]string{}
	type lsTask struct {
		id    string
		runs  []*lsRun
		ender *lsRun
	}
	tasks := map[string]*lsTask{}
	var order []string
	for _, x := range runs {
		top := root(x, 0)
		id := firstNonEmpty(x.thread, top.thread)
		thread := id != ""
		if id == "" {
			id = firstNonEmpty(x.trace, top.trace)
		}
		if id == "" && top.parent == "" {
			id = top.id
		}
		if id == "" {
			id = "langsmith:" + in.Path
		}
		taskOf[x] = id
		t := tasks[id]
		if t == nil {
			t = &lsTask{id: id}
			tasks[id] = t
			order = append(order, id)
		}
		t.runs = append(t.runs, x)
		if !thread && x.parent == "" && (x.trace == "" || x.trace == x.id) && t.ender == nil {
			t.ender = x
		}
	}
	conv := rn.conventions(in)
	for _, id := range order {
		t := tasks[id]
		sort.SliceStable(t.runs, func(i, j int) bool { return t.runs[i].start.Before(t.runs[j].start) })
		var first *lsRun
		for _, x := range t.runs {
			if x.hasStart {
				first = x
				break
			}
		}
		if first == nil {
			in.addProblem(Problem{File: in.Path, Line: t.runs[0].line, Task: id, Message: "no run of this task has a readable start_time"})
			continue
		}
		if rn.once("task:" + id) {
			conv.lifecycle(id, first.start, first.line, "task_started", map[string]any{"relation": "root"})
		}
		for _, x := range t.runs {
			if !rn.once("langsmith-run:" + x.id) {
				continue
			}
			if x.typ == "tool" {
				rn.langSmithCall(conv, d, id, x)
			}
		}
		if e := t.ender; e != nil && e.hasEnd && rn.once("langsmith-ended:"+id) {
			status := "completed"
			if e.failed {
				status = "failed"
			}
			conv.lifecycle(id, e.end, e.endLine, "task_ended", map[string]any{"status": status})
		}
	}
}

func (rn *run) langSmithCall(conv *conventions, d *document, task string, x *lsRun) {
	if strings.TrimSpace(x.name) == "" {
		d.in.addProblem(Problem{File: d.in.Path, Line: x.line, Task: task, Message: "tool run without a name: what it did cannot be told"})
		return
	}
	if !x.hasStart {
		d.in.addProblem(Problem{File: d.in.Path, Line: x.line, Task: task,
			Message: fmt.Sprintf("tool run %q without a readable start_time", clip(x.name, 60))})
		return
	}
	args := "{}"
	inputs := x.r.Get("inputs")
	switch {
	case inputs.IsObject() && inputs.Get("input").Type == gjson.String && len(inputs.Map()) == 1:
		if v := strings.TrimSpace(inputs.Get("input").Str); validJSONString(v) && gjson.Parse(v).IsObject() {
			args = v
		} else {
			args = inputs.Raw
		}
	case inputs.IsObject():
		args = inputs.Raw
	}
	if p, repeated := argumentsRepeat(args); repeated {
		d.in.addProblem(Problem{File: d.in.Path, Line: x.line, Task: task, Message: repeatMessage(p, "call's arguments")})
		return
	}
	id := "langsmith:" + x.id
	conv.Call(ToolCall{Task: task, TS: x.start, ID: id, Name: x.name, Args: args, Line: x.line})
	if !x.hasEnd {
		return
	}
	failed := x.failed
	if out := x.r.Get("outputs"); out.Exists() && !failed {
		o := out.Get("output")
		if !o.Exists() {
			o = out
		}
		failed = outputSaysError(o)
	}
	conv.Result(id, toolResult{TS: x.end, Error: failed, Line: x.endLine})
}

// lsRunTypes are LangSmith's run types.
var lsRunTypes = []string{"tool", "chain", "llm", "retriever", "embedding", "prompt", "parser"}

// lsRunTypeVariant is the known run type typ differs from only in letter
// case, separators or spaces, or "" (typ is known, or another word).
func lsRunTypeVariant(typ string) string {
	norm := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, strings.ToLower(typ))
	for _, k := range lsRunTypes {
		if norm == k && typ != k {
			return k
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
