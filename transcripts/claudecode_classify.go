package transcripts

import (
	"time"

	"github.com/tidwall/gjson"
)

// claudeToolCall is the call a Claude Code tool_use is, for the
// conventions: the reader's and ClassifyClaudeCodeCall's one way to make it.
func claudeToolCall(l claudeLine, id string, seq int, name string, input gjson.Result) ToolCall {
	return ToolCall{Task: l.task(), TS: l.ts, ID: id, Seq: seq, Name: name, Args: input.Raw, Line: l.num, Cwd: l.cwd}
}

// ClaudeCodeCall is one Claude Code tool call, as a PreToolUse hook is
// given it: session_id, agent_id (in a subagent), tool_use_id, tool_name,
// tool_input and cwd.
type ClaudeCodeCall struct {
	Session   string
	Agent     string // the subagent's id; "" in the session itself
	ToolUseID string
	Name      string
	Input     []byte // tool_input: a JSON object
	Cwd       string // relative paths in the input resolve against it
	TS        time.Time
}

// CallIntent is one delivery a call intends: a destination and content,
// as the intent event the reader emits for it says them.
type CallIntent struct {
	Intent      string         // the intent's id ("call:<tool_use_id>", "#2"… for a call's further deliveries)
	Destination map[string]any // provider and id
	Content     map[string]any // sha256, or path (resolved against Cwd)
	Evidence    string         // its crossing: request_sent, send_fired or picker_accepted
}

// CallClassification is what the Claude Code reader makes of one call
// before its result is known.
type CallClassification struct {
	// Task is the call's task: the session, or "<session>/agent-<agent>".
	Task string
	// Delivery: the call is delivery-shaped; run, it is a crossing.
	Delivery bool
	// Intents are its keyed deliveries. A delivery whose destination or
	// content cannot be found has none: it stays an unkeyed crossing.
	Intents []CallIntent
	// Events are the events the reader emits for the call when it has no
	// result (File and Line are zero).
	Events []Event
}

// ClassifyClaudeCodeCall classifies one Claude Code tool call with the
// conventions of the Claude Code reader (built-in, and profile's when
// profile is not nil), by the very code the reader applies to a tool_use
// line: what it returns is what reading that call in a session would
// yield, before its result. For a gate that sees a call before it runs
// (a PreToolUse hook): whether it is delivery-shaped, and the intent
// (destination, content path or digest) to ask about.
func ClassifyClaudeCodeCall(call ClaudeCodeCall, profile *Profile) CallClassification {
	var evs []Event
	rn := &run{opt: Options{Profile: profile}, emit: func(e Event) { evs = append(evs, e) }, seen: map[string]bool{},
		pending: map[string]*pendingCall{}, page: map[string]string{}}
	in := &Input{Format: FormatClaudeCode}
	conv := rn.conventions(in)
	l := claudeLine{session: call.Session, agent: call.Agent, cwd: call.Cwd, ts: call.TS}
	seq := 0
	if call.ToolUseID != "" {
		seq = 1 // the first call of its task under that id, as the reader counts
	}
	conv.Call(claudeToolCall(l, call.ToolUseID, seq, call.Name, gjson.ParseBytes(call.Input)))
	out := CallClassification{Task: l.task(), Events: evs}
	intents := map[string]int{}
	for _, e := range evs {
		switch e.Type {
		case "intent":
			d, _ := e.Fields["destination"].(map[string]any)
			c, _ := e.Fields["content"].(map[string]any)
			intents[e.Str("intent")] = len(out.Intents)
			out.Intents = append(out.Intents, CallIntent{Intent: e.Str("intent"), Destination: d, Content: c})
		case "request_sent", "send_fired", "picker_accepted":
			out.Delivery = true
			if i, ok := intents[e.Str("intent")]; ok {
				out.Intents[i].Evidence = e.Type
			}
		}
	}
	return out
}
