package transcripts

import (
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// Files Claude Code writes beside its sessions that are no transcript of
// any task. Each is recognized for what it is, so it is listed with a
// notice and never read as a history; being known, it is no unreadable
// input either (a gate does not stop on it, as it does on a file no
// reader recognizes):
//
//   - <session>/subagents/agent-<id>.meta.json: the subagent's metadata
//     (agentType, description, toolUseId: the parent's Agent/Task call
//     that started it). The session reader uses it to link the subagent
//     to that call (subagentMetas).
//   - hook payload logs: what the CLI passes a hook on standard input
//     (session_id, transcript_path, hook_event_name, tool_input, …), one
//     event a line, as a logging hook appends it. Every line must be one:
//     a line that is not is a problem of the file (it may be a history's).

// formatSubagentMeta marks a subagent's .meta.json.
const formatSubagentMeta = "claude-code-subagent-meta"

// subagentMeta: the shape of a subagent's .meta.json.
func subagentMeta(doc gjson.Result) bool {
	return doc.IsObject() && doc.Get("toolUseId").Type == gjson.String && doc.Get("toolUseId").Str != "" &&
		doc.Get("agentType").Exists()
}

func subagentMetaNotice(doc gjson.Result) string {
	return fmt.Sprintf("Claude Code subagent metadata (the subagent started by call %s), not a transcript: not read; the session's reader links the subagent to that call",
		clip(doc.Get("toolUseId").Str, 80))
}

const hookPayloadsNotice = "Claude Code hook payloads (what the CLI passes a hook, one event a line), not a transcript: not read"

// hookPayload: a line of a hook payload log.
func hookPayload(r gjson.Result) bool {
	return r.IsObject() && r.Get("hook_event_name").Type == gjson.String && r.Get("session_id").Exists()
}

// readHookPayloads checks that every line of a hook payload log is a hook
// payload, then lists the file with its notice. No event is read from it.
func (rn *run) readHookPayloads(src io.Reader, in *Input) {
	in.Format = FormatUnknown
	bad := 0
	jsonLines(src, in, rn.opt.MaxLineBytes, "session_id", func(l rawLine, r gjson.Result) {
		if hookPayload(r) {
			return
		}
		bad++
		in.addProblem(Problem{File: in.Path, Line: l.num,
			Message: "a line of a file of Claude Code hook payloads that is no hook payload (no hook_event_name and session_id): what it records cannot be told"})
	})
	if bad == 0 && len(in.Problems) == 0 {
		in.Notices = append(in.Notices, hookPayloadsNotice)
	}
}
