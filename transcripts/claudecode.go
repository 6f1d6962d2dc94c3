package transcripts

import (
	"fmt"
	"io"
	"math"
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
	sessions := 0
	unknown := map[string]int{}
	jsonLines(src, in, rn.opt.MaxLineBytes, "sessionId", func(l rawLine, r gjson.Result) {
		if p, repeated := repeatedKeyProblem(in.Path, l.num, l.bytes, r.Get("sessionId").String(),
			"sessionId", "agentId", "isSidechain", "type", "data.type", "data.agentId"); repeated {
			in.addProblem(p) // SPEC §3: two readings, neither is taken
			return
		}
		typ := r.Get("type").String()
		if !claudeCodeTypes[typ] {
			unknown[clip(typ, 40)]++
		}
		ts, ok := parseTime(r.Get("timestamp"))
		session := r.Get("sessionId")
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
		sessions++
		line := claudeLine{session: session.Str, ts: ts, num: l.num, cwd: r.Get("cwd").String()}
		if r.Get("isSidechain").Bool() {
			line.agent = r.Get("agentId").String()
			if line.agent == "" {
				line.agent = "sidechain"
			}
		}
		if r.Get("type").String() == "progress" && r.Get("data.type").String() == "agent_progress" {
			// A copy of a subagent line, embedded in the parent's progress.
			msg := r.Get("data.message")
			if t, ok := parseTime(msg.Get("timestamp")); ok {
				line.ts = t
			}
			line.agent = r.Get("data.agentId").String()
			if line.agent == "" {
				return
			}
			rn.claudeRecord(conv, line, msg)
			return
		}
		rn.claudeRecord(conv, line, r)
	})
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

// claudeEvidenceTypes are the record types that may carry evidence (tool
// calls, results, interruptions, compaction).
var claudeEvidenceTypes = map[string]bool{"user": true, "assistant": true, "progress": true, "system": true}

type claudeLine struct {
	session, agent, cwd string
	ts                  time.Time
	num                 int
}

func (l claudeLine) task() string {
	if l.agent == "" {
		return l.session
	}
	return l.session + "/agent-" + l.agent
}

// once reports whether key is seen for the first time in this run.
func (rn *run) once(key string) bool {
	if rn.seen[key] {
		return false
	}
	rn.seen[key] = true
	return true
}

func (rn *run) claudeRecord(conv *conventions, l claudeLine, r gjson.Result) {
	if u := r.Get("uuid").String(); u != "" && !rn.once("uuid:"+u) {
		return
	}
	task := l.task()
	if rn.once("task:" + task) {
		fields := map[string]any{"relation": "root"}
		if l.agent != "" {
			fields = map[string]any{"relation": "delegated", "parent": l.session}
		}
		conv.lifecycle(task, l.ts, l.num, "task_started", fields)
	}
	switch r.Get("type").String() {
	case "assistant":
		r.Get("message.content").ForEach(func(_, item gjson.Result) bool {
			if item.Get("type").String() == "tool_use" {
				id := item.Get("id").String()
				if id == "" || rn.once("tool_use:"+id) {
					conv.Call(ToolCall{Task: task, TS: l.ts, ID: id, Name: item.Get("name").String(),
						Args: item.Get("input").Raw, Line: l.num, Cwd: l.cwd})
				}
			}
			return true
		})
	case "user":
		content := r.Get("message.content")
		if content.Type == gjson.String {
			rn.claudeText(conv, l, task, content.Str)
			return
		}
		content.ForEach(func(_, item gjson.Result) bool {
			switch item.Get("type").String() {
			case "tool_result":
				id := item.Get("tool_use_id").String()
				if id != "" && rn.once("result:"+id) {
					conv.Result(id, toolResult{TS: l.ts, Error: item.Get("is_error").Bool(), Line: l.num})
				}
			case "text":
				rn.claudeText(conv, l, task, item.Get("text").String())
			}
			return true
		})
	case "system":
		if r.Get("subtype").String() == "compact_boundary" {
			conv.lifecycle(task, l.ts, l.num, "interrupted", map[string]any{"reason": "context_reset"})
		}
	}
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
