package transcripts

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Claude Code sessions (~/.claude/projects/<project>/<session>.jsonl).
//
// A session is a task. Subagents are delegated child tasks
// "<session>/agent-<id>": their lines sit in <session>/subagents/agent-*.jsonl
// (isSidechain, agentId), inline in older sessions (isSidechain, no agentId:
// "<session>/agent-sidechain"), and again as copies inside the parent's
// `progress` lines (data.type agent_progress). Resumed sessions copy earlier
// lines too. Calls, results and lines are therefore counted once per run, by
// tool_use id and by uuid, whichever file comes first in path order.
// "[Request interrupted by user…]" is an interruption; a compact_boundary
// is a context reconstruction (interruption, reason context_reset).

func (rn *run) readClaudeCode(src io.Reader, in *Input) {
	conv := rn.conventions(in)
	// A call's evidence waits for its result: a call a PreToolUse hook
	// denied never ran (SPEC §10). Calls whose result is not in this
	// input are emitted at its end, as calls that may have run.
	conv.hold = true
	defer conv.flush()
	var orphans []orphanCopy
	defer func() { rn.orphanProblems(in, orphans) }()
	sessions := 0
	unknown := map[string]int{}
	claimed := false // by the profile's source too
	jsonLines(src, in, rn.opt.MaxLineBytes, "sessionId", func(l rawLine, r gjson.Result) {
		t := claudeTopOf(r)
		if p, repeated := repeatedKeyProblem(in.Path, l.num, l.bytes, t.sessionID.String(),
			"sessionId", "agentId", "isSidechain", "type", "data.type", "data.agentId"); repeated {
			in.addProblem(p) // SPEC §3: two readings, neither is taken
			return
		}
		if s := profileSource(rn.opt.Profile); s != nil && s.Records == "" && !claimed && rn.opt.InputFormat == "" && r.Get(s.Detect).Exists() {
			claimed = true
			in.Notices = append(in.Notices, fmt.Sprintf("the profile's source (detect %q) also claims this file; read as a Claude Code session (--input-format profile reads it as the profile's format)", clip(s.Detect, 80)))
		}
		typ := t.typ.String()
		if known := claudeVariant(typ, claudeCodeNames); known != "" {
			// SPEC §3, as for native types: a misspelt known type or
			// another type, it cannot be told; read as unknown, the
			// evidence it carries would be lost.
			in.addProblem(Problem{File: in.Path, Line: l.num, Task: t.sessionID.String(),
				Message: fmt.Sprintf("type %q differs from %s only in letter case or separators: a misspelt %s or another type, it cannot be told", clip(typ, 60), known, known)})
			return
		}
		if !claudeCodeTypes[typ] {
			unknown[clip(typ, 40)]++
		}
		ts, ok := parseTime(t.timestamp)
		session := t.sessionID
		if !claudeEvidenceTypes[typ] {
			return // snapshots, summaries and queue records carry no evidence
		}
		switch {
		case session.Type != gjson.String || session.Str == "":
			// A message line that names no session: whatever it did
			// belongs to an unknown task.
			in.addProblem(Problem{File: in.Path, Line: l.num,
				Message: typ + " line without a sessionId: its task cannot be told"})
			return
		case !ok:
			in.addProblem(Problem{File: in.Path, Line: l.num, Task: session.Str,
				Message: typ + " line without a readable timestamp (RFC 3339 or a Unix time): it cannot be placed in time"})
			return
		}
		if !rn.opt.AsOf.IsZero() && ts.After(rn.opt.AsOf) {
			return // not written yet at --as-of: no result seen after it decides a call
		}
		sessions++
		line := claudeLine{session: session.Str, ts: ts, num: l.num, cwd: t.cwd.String()}
		if t.isSidechain.Bool() {
			line.agent = t.agentID.String()
			if line.agent == "" {
				line.agent = "sidechain"
			}
		}
		if typ == "progress" && t.data.Get("type").String() == "agent_progress" {
			// A copy of a subagent line, embedded in the parent's progress.
			msg := claudeTopOf(t.data.Get("message"))
			if ts, ok := parseTime(msg.timestamp); ok {
				line.ts = ts
			}
			line.agent = t.data.Get("agentId").String()
			if line.agent != "" {
				// The subagent a Task/Agent call started is named by its
				// progress (parentToolUseID): it is known, result or not.
				if p := t.parentToolUseID.String(); p != "" && rn.once("agent-named:"+p) {
					rn.seen["agent-of:"+p+"\x00"+line.agent] = true
				}
			}
			if line.agent == "" {
				// Whose line this copies cannot be told: a problem of
				// this line, unless it is a copy of a line read anyway
				// (decided at the end of the input).
				orphans = append(orphans, orphanCopy{line: l.num, uuid: msg.uuid.String(), fp: lineFingerprint(&msg)})
				return
			}
			rn.claudeRecord(conv, line, &msg)
			return
		}
		rn.claudeRecord(conv, line, &t)
	})
	rn.agentsWithoutResult(conv, in)
	if len(unknown) > 0 {
		var kinds []string
		for k, n := range unknown {
			kinds = append(kinds, fmt.Sprintf("%q (%d)", k, n))
		}
		sort.Strings(kinds)
		in.Notices = append(in.Notices, "record types not read: "+listed(kinds, 8))
	}
	if sessions == 0 && in.Records > 0 && len(in.Problems) == 0 {
		// Like an empty log: what a crash right after the session began
		// leaves (a file-history-snapshot, say); no crossing in it can be
		// ruled out, and no task can be named.
		in.addProblem(Problem{File: in.Path, Line: 1,
			Message: "no message line of any session (sessionId and timestamp): the session may have been cut off right after it began"})
	}
}

// orphanCopy is a progress copy of a subagent line without its agent id.
type orphanCopy struct {
	line     int
	uuid, fp string
}

// orphanProblems: a copy whose line was read (by uuid, anywhere earlier in
// the run or later in this input) is a duplicate; any other is a problem
// of its line, of no task (it may be any subagent's). A copy whose
// original sits in a file read later (the subagent's own file sorts after
// the session's) is still a problem: it cannot be proven a duplicate when
// its input is read. Fail closed.
func (rn *run) orphanProblems(in *Input, orphans []orphanCopy) {
	for _, o := range orphans {
		if o.uuid != "" && rn.seen["line:"+o.uuid+"\x00"+o.fp] {
			continue
		}
		in.addProblem(Problem{File: in.Path, Line: o.line,
			Message: "progress copy of a subagent line without data.agentId: whose line it is cannot be told, and it is no copy of a line read"})
	}
}

// claudeEvidenceTypes are the record types that may carry evidence (tool
// calls, results, interruptions, compaction).
var claudeEvidenceTypes = map[string]bool{"user": true, "assistant": true, "progress": true, "system": true}

type claudeLine struct {
	session, agent, cwd string
	ts                  time.Time
	num                 int
}

func (l claudeLine) task() string { return ClaudeCodeTask(l.session, l.agent) }

// ClaudeCodeTask is the task id the Claude Code reader gives a session, or
// a subagent inside it (agent non-empty): a hook asks the gate about the
// same task the transcript records.
func ClaudeCodeTask(session, agent string) string {
	if agent == "" {
		return session
	}
	return session + "/agent-" + agent
}

// once reports whether key is seen for the first time in this run.
func (rn *run) once(key string) bool {
	if rn.seen[key] {
		return false
	}
	rn.seen[key] = true
	return true
}

// Copies. Resumed and forked sessions copy earlier lines verbatim (same
// uuid, same content, the new session's id), and progress lines copy
// subagent lines: a line is a copy, read once per run, when a line of its
// uuid with the same content (its type, subtype and message content) was
// read. A line that shares a uuid but says something else is another line;
// a tool_use that shares its id with an earlier call but is another call
// (another line, another name or input) is another call, never dropped: a
// provider or a proxy may reuse ids, and two sessions may share them.
// Such a call's intent is "call:<id>~<n>" (the n-th call of its task
// under that id). A result answers the latest call of its id: a copied result
// line still answers a call that waits for a result under its id.

// lineFingerprint is what two lines must share to be copies of each other.
func lineFingerprint(t *claudeTop) string {
	return canonicalDigest(t.content(), t.typ.String(), t.subtype.String())
}

// claudeContentTypes are the content item types of Claude Code messages.
var claudeContentTypes = map[string]bool{"text": true, "tool_use": true, "tool_result": true, "thinking": true,
	"redacted_thinking": true, "image": true, "document": true, "server_tool_use": true,
	"web_search_tool_result": true, "web_fetch_tool_result": true, "tool_reference": true,
	"mcp_tool_use": true, "mcp_tool_result": true, "container_upload": true, "search_result": true}

// claudeVariant returns the type of known that typ differs from only in
// letter case or separators ("Assistant", "Tool_use", "tool-use",
// "toolUse"); "" when there is none or typ is known itself.
func claudeVariant(typ string, known knownNames) string { return known.variant(typ) }

// The Claude Code record and content types with their folded forms.
var (
	claudeCodeNames    = newKnownNames(claudeCodeTypes)
	claudeContentNames = newKnownNames(claudeContentTypes)
)

func (rn *run) claudeRecord(conv *conventions, l claudeLine, t *claudeTop) {
	conv.wrote(l.task(), l.num)
	if l.agent == "" && rn.copiedFrom(l.session, t) != "" {
		rn.claudeCopy(conv, l, t) // a fork's copy of its parent's line: read as the parent's
		return
	}
	u := t.uuid.String()
	if u != "" {
		rn.seen["uuid:"+u] = true
		if !rn.once("line:" + u + "\x00" + lineFingerprint(t)) {
			rn.claudeCopy(conv, l, t) // read already
			return
		}
	}
	task := l.task()
	if rn.once("task:" + task) {
		fields := map[string]any{"relation": "root"}
		if p := rn.forks.resumes[l.session]; p != "" && l.agent == "" {
			fields = map[string]any{"relation": "resumed", "resumes": p}
		}
		if l.agent != "" {
			fields = map[string]any{"relation": "delegated", "parent": l.session}
		}
		conv.lifecycle(task, l.ts, l.num, "task_started", fields)
	}
	content := t.content()
	content.ForEach(func(_, item gjson.Result) bool {
		if it := item.Get("type"); it.Type == gjson.String {
			if known := claudeVariant(it.Str, claudeContentNames); known != "" {
				conv.in.addProblem(Problem{File: conv.in.Path, Line: l.num, Task: task,
					Message: fmt.Sprintf("content item type %q differs from %s only in letter case or separators: a misspelt %s or another type, it cannot be told", clip(it.Str, 60), known, known)})
			}
		}
		return true
	})
	switch t.typ.String() {
	case "assistant":
		content.ForEach(func(_, item gjson.Result) bool {
			if item.Get("type").String() == "tool_use" {
				id := item.Get("id").String()
				name := item.Get("name").String()
				input := item.Get("input")
				seq := 0
				if id != "" {
					if !rn.once("call:" + id + "\x00" + u + "\x00" + canonicalDigest(input, name)) {
						return true // this call, copied in a line that is no copy
					}
					for seq = 1; !rn.once(fmt.Sprintf("tool_use:%s\x00%s#%d", task, id, seq)); seq++ {
					}
				}
				if name == "Task" || name == "Agent" {
					rn.seen["agent-call:"+id] = true
					if id != "" {
						conv.agentCalls = append(conv.agentCalls, agentCall{id: id, task: task, line: l.num, ts: l.ts, session: l.session})
						// The subagent's .meta.json names the call that
						// started it: the call spawned that child.
						metas, ok := conv.metas[l.session]
						if !ok {
							metas = subagentMetas(conv.in.Path, l.session)
							conv.metas[l.session] = metas
						}
						if agent := metas[id]; agent != "" {
							if child := l.session + "/agent-" + agent; child != task && rn.once("spawned:"+child) {
								conv.lifecycle(task, l.ts, l.num, "task_spawned", map[string]any{"child": child})
							}
						}
					}
				}
				conv.Call(claudeToolCall(l, id, seq, name, input))
			}
			return true
		})
	case "user":
		if content.Type == gjson.String {
			rn.claudeText(conv, l, task, content.Str)
			return
		}
		rn.claudeSpawned(conv, l, task, t, content)
		content.ForEach(func(_, item gjson.Result) bool {
			switch item.Get("type").String() {
			case "tool_result":
				rn.claudeResult(conv, l, item, t.toolUseResult)
			case "text":
				rn.claudeText(conv, l, task, item.Get("text").String())
			}
			return true
		})
	case "system":
		if t.subtype.String() == "compact_boundary" {
			conv.lifecycle(task, l.ts, l.num, "interrupted", map[string]any{"reason": "context_reset"})
		}
	}
}

// claudeCopy reads a copy of a line: its results still answer a call
// that waits under their id (one that reused the id since); nothing else
// in it is read again.
func (rn *run) claudeCopy(conv *conventions, l claudeLine, t *claudeTop) {
	if t.typ.String() != "user" {
		return
	}
	t.content().ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() == "tool_result" {
			if id := item.Get("tool_use_id").String(); id != "" && conv.pending[id] != nil {
				rn.claudeResult(conv, l, item, t.toolUseResult)
			}
		}
		return true
	})
}

// claudeResult: a tool_result answers the latest call of its id; tur is
// its line's toolUseResult (claudeDenied reads it).
func (rn *run) claudeResult(conv *conventions, l claudeLine, item, tur gjson.Result) {
	id := item.Get("tool_use_id").String()
	if id == "" {
		return
	}
	res := toolResult{TS: l.ts, Error: item.Get("is_error").Bool(), Line: l.num,
		Output: claudeText(item.Get("content"))}
	// A judged call (a delivery, a check) that has its result, and no later
	// call of its id waiting, is answered again only by a copy of that
	// result: another one is a second reading of what the call did (a
	// fourth review today: a stop, then an allow, for one check; the first
	// was taken silently and the allow's approach lost). Only judged
	// calls' results are fingerprinted: the others carry no evidence.
	if conv.pending[id] != nil {
		rn.judgedResults[id] = jsonFingerprint(item.Raw)
	} else if first, ok := rn.judgedResults[id]; ok && first != jsonFingerprint(item.Raw) {
		conv.in.addProblem(Problem{File: conv.in.Path, Line: l.num, Task: l.task(),
			Message: fmt.Sprintf("a second, different result for call %s, which had its result: which one tells what it did cannot be told", clip(id, 80))})
		return
	}
	rn.seen["answered:"+id] = true
	name := ""
	if p := conv.pending[id]; p != nil {
		name = p.name
	}
	res.Denied, res.DeniedByGate = claudeDenied(name, res, tur)
	conv.Result(id, res)
}

// agentCall is a Task/Agent call: it starts a subagent.
type agentCall struct {
	id, task, session string
	line              int
	ts                time.Time
}

// agentsWithoutResult: a Task/Agent call whose result is in no line read
// (a session cut while its subagent ran) started a subagent that may have
// delivered. When the subagent is named anyway (by its progress lines'
// parentToolUseID, or by its subagents/agent-X.meta.json next to the
// session, which names the call as toolUseId) it is a spawned child:
// its own file known to the run, or a referenced task without history.
// Otherwise it is a problem of the session: a history that cannot be
// named (incomplete, fail closed).
func (rn *run) agentsWithoutResult(conv *conventions, in *Input) {
	var metas map[string]string // toolUseId → agentId
	for _, a := range conv.agentCalls {
		if rn.seen["answered:"+a.id] {
			continue
		}
		agent := ""
		for k := range rn.seen {
			if strings.HasPrefix(k, "agent-of:"+a.id+"\x00") && rn.seen[k] {
				if x := strings.TrimPrefix(k, "agent-of:"+a.id+"\x00"); agent == "" || x < agent {
					agent = x
				}
			}
		}
		if agent == "" {
			if metas == nil {
				metas = subagentMetas(in.Path, a.session)
			}
			agent = metas[a.id]
		}
		if agent != "" {
			child := a.session + "/agent-" + agent
			if child != a.task && rn.once("spawned:"+child) {
				conv.lifecycle(a.task, a.ts, a.line, "task_spawned", map[string]any{"child": child})
			}
			continue
		}
		in.addProblem(Problem{File: in.Path, Line: a.line, Task: a.task,
			Message: fmt.Sprintf("a subagent started by call %s has no result in this history and nothing names it: its history cannot be named, and it may have delivered", clip(a.id, 80))})
	}
}

// subagentMetas reads <session>/subagents/agent-*.meta.json next to a
// session file: the Task/Agent call (toolUseId) each subagent answers.
func subagentMetas(path, session string) map[string]string {
	out := map[string]string{}
	if path == "" || path == "-" || session == "" {
		return out
	}
	dir := filepath.Join(filepath.Dir(path), session, "subagents")
	if filepath.Base(filepath.Dir(path)) == "subagents" && filepath.Base(filepath.Dir(filepath.Dir(path))) == session {
		dir = filepath.Dir(path) // a subagent's own Agent calls: its siblings' metadata
	}
	files, _ := filepath.Glob(filepath.Join(dir, "agent-*.meta.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		id := gjson.GetBytes(b, "toolUseId").String()
		agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "agent-"), ".meta.json")
		if id != "" && agent != "" {
			out[id] = agent
		}
	}
	return out
}

var agentIDText = regexp.MustCompile(`(?m)^agentId: ([A-Za-z0-9_-]+)`)

// claudeSpawned: the result of a Task/Agent call names the subagent it
// ran (toolUseResult.agentId; the line's agentId in the 2.0.x layout; the
// text "agentId: X" of the result). That subagent is a referenced task: if
// its history is not among the inputs, the analyzer marks it referenced
// but without history (incomplete, fail closed).
func (rn *run) claudeSpawned(conv *conventions, l claudeLine, task string, t *claudeTop, content gjson.Result) {
	var ids []string
	if a := t.toolUseResult.Get("agentId"); a.Type == gjson.String && a.Str != "" {
		ids = append(ids, a.Str)
	}
	if a := t.agentID; a.Type == gjson.String && a.Str != "" && !t.isSidechain.Bool() {
		ids = append(ids, a.Str)
	}
	content.ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() == "tool_result" && rn.seen["agent-call:"+item.Get("tool_use_id").String()] {
			for _, m := range agentIDText.FindAllStringSubmatch(claudeText(item.Get("content")), -1) {
				ids = append(ids, m[1])
			}
		}
		return true
	})
	for _, id := range ids {
		child := l.session + "/agent-" + id
		if child != task && rn.once("spawned:"+child) {
			conv.lifecycle(task, l.ts, l.num, "task_spawned", map[string]any{"child": child})
		}
	}
}

// claudeText is the text of a tool_result's content: a string, or the
// text of its parts.
func claudeText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var parts []string
	content.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

func (rn *run) claudeText(conv *conventions, l claudeLine, task, text string) {
	if strings.HasPrefix(strings.TrimSpace(text), "[Request interrupted by user") {
		conv.lifecycle(task, l.ts, l.num, "interrupted", map[string]any{"reason": "user"})
	}
}

// parseTime reads an RFC 3339 string or a Unix time number (seconds,
// milliseconds, microseconds or nanoseconds, told apart by magnitude).
func parseTime(r gjson.Result) (time.Time, bool) {
	switch r.Type {
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, r.Str); err == nil {
			return t, true
		}
		if n := gjson.Parse(r.Str); n.Type == gjson.Number {
			return unixTime(n.Float())
		}
	case gjson.Number:
		return unixTime(r.Float())
	}
	return time.Time{}, false
}

func unixTime(f float64) (time.Time, bool) {
	switch {
	case f <= 0 || f >= math.MaxInt64:
		// Beyond int64 nanoseconds (the year 2262) is no time a log
		// wrote; int64(f) would wrap around to 1677.
		return time.Time{}, false
	case f < 1e11:
		return time.Unix(0, int64(f*1e9)).UTC(), true
	case f < 1e14:
		return time.UnixMilli(int64(f)).UTC(), true
	case f < 1e17:
		return time.UnixMicro(int64(f)).UTC(), true
	}
	return time.Unix(0, int64(f)).UTC(), true
}
