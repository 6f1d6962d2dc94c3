package transcripts

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// A user profile's source: any JSON Lines file (one record a line) or JSON
// document (records at Source.Records) whose records carry tool calls at
// the profile's gjson paths. Every record with a tool name is a call;
// every record with a result call id is a result.

func (rn *run) readProfileLines(src io.Reader, in *Input) {
	conv := rn.conventions(in)
	s := rn.opt.Profile.Source
	idle, read := 0, 0
	jsonLines(src, in, rn.opt.MaxLineBytes, s.Task, func(l rawLine, r gjson.Result) {
		if p, repeated := repeatedKeyProblem(in.Path, l.num, l.bytes, r.Get(s.Task).String(), s.Task); repeated {
			in.addProblem(p) // SPEC §3: two readings, neither is taken
			return
		}
		if rn.profileRecord(conv, in, s, r, l.num) {
			read++
		} else {
			idle++
		}
	})
	idleNotice(in, s, idle, read)
}

// idleNotice says so when no record held a call or a result: a log of
// other records only, or a profile whose paths miss the format.
func idleNotice(in *Input, s *Source, idle, read int) {
	if idle > 0 && read == 0 {
		in.Notices = append(in.Notices, fmt.Sprintf("none of %d record(s) has a tool name at %q or a result call id at %q: nothing read (does the profile fit this format?)",
			idle, clip(s.Tool, 80), clip(s.ResultCallID, 80)))
	}
}

func (rn *run) readProfileDocument(d *document) {
	conv := rn.conventions(d.in)
	s := rn.opt.Profile.Source
	recs := d.root.Get(s.Records)
	if !recs.IsArray() {
		d.in.addProblem(Problem{File: d.in.Path, Line: 1,
			Message: fmt.Sprintf("no record array at %q (the profile's source.records)", clip(s.Records, 80))})
		return
	}
	idle, read := 0, 0
	repeats := findRepeats(d)
	recs.ForEach(func(_, r gjson.Result) bool {
		if d.partial(r) {
			return false // cut by a break in the document
		}
		d.in.Records++
		if rep, ok := repeats.in(r); ok {
			// rep.path is from the document's root: records[3].session.
			task, rel := r.Get(s.Task).String(), rep.path
			if i := strings.Index(rel, "]."); i >= 0 {
				rel = rel[i+2:]
			}
			if pathUnder(rel, []string{s.Task}) {
				task = ""
			}
			d.in.addProblem(Problem{File: d.in.Path, Line: d.lineOf(r), Task: task, Message: repeatMessage(rep.path, "record")})
			return true
		}
		if rn.profileRecord(conv, d.in, s, r, d.lineOf(r)) {
			read++
		} else {
			idle++
		}
		return true
	})
	repeats.rest(d)
	idleNotice(d.in, s, idle, read)
}

// profileRecord reads one record; false when it is neither a call nor a
// result.
func (rn *run) profileRecord(conv *conventions, in *Input, s *Source, r gjson.Result, line int) bool {
	tool := r.Get(s.Tool).String()
	resultOf := ""
	if s.ResultCallID != "" {
		resultOf = r.Get(s.ResultCallID).String()
	}
	if tool == "" && resultOf == "" {
		return false
	}
	problem := func(msg string) {
		in.addProblem(Problem{File: in.Path, Line: line, Task: r.Get(s.Task).String(), Message: msg})
	}
	task := r.Get(s.Task).String()
	if task == "" {
		problem(fmt.Sprintf("record has no task at %q", clip(s.Task, 80)))
		return true
	}
	ts, ok := parseTime(r.Get(s.Time))
	if !ok {
		problem(fmt.Sprintf("record has no time at %q (RFC 3339 or a Unix time)", clip(s.Time, 80)))
		return true
	}
	if rn.once("task:" + task) {
		conv.lifecycle(task, ts, line, "task_started", map[string]any{"relation": "root"})
	}
	if tool != "" {
		args := r.Get(s.Args)
		argText := args.Raw
		if args.Type == gjson.String {
			argText = args.Str // arguments recorded as a JSON string
		}
		id := ""
		if s.CallID != "" {
			id = r.Get(s.CallID).String()
		}
		if id != "" && !rn.once("profile-call:"+task+"/"+id) {
			// The same call recorded again (a log that repeats its
			// history, a record written twice): one call, as for every
			// other format with call ids.
			return true
		}
		if id == "" {
			id = fmt.Sprintf("%s:%d", in.Path, line)
		}
		// Call ids of a user's format need only be unique within a task.
		id = task + "/" + id
		conv.Call(ToolCall{Task: task, TS: ts, ID: id, Name: tool, Args: argText, Line: line, Cwd: r.Get(s.Cwd).String()})
		if resultOf == "" && (present(r, s.Result) || present(r, s.Error)) {
			conv.Result(id, toolResult{TS: ts, Error: failed(r, s.Error), Line: line})
		}
		return true
	}
	conv.Result(task+"/"+resultOf, toolResult{TS: ts, Error: failed(r, s.Error), Line: line})
	return true
}

func present(r gjson.Result, path string) bool { return path != "" && r.Get(path).Exists() }

// failed: the error path holds something other than false, null or "".
func failed(r gjson.Result, path string) bool {
	if path == "" {
		return false
	}
	v := r.Get(path)
	switch v.Type {
	case gjson.Null, gjson.False:
		return false
	case gjson.String:
		return v.Str != ""
	}
	return v.Exists()
}
