// Package hook puts the gate where agents act: a Claude Code hook command
// (SPEC §10) that answers PreToolUse for delivery-shaped tool calls with
// the gate's decision — and, with a key ledger, claims and crosses in the
// same step — and settles the claim on PostToolUse / PostToolUseFailure.
//
// It fails closed: unreadable input, any error, a panic, or running out of
// its own deadline denies the call. Claude Code lets a call through when a
// hook exits 1, times out or fails to start, so the hook never exits 1,
// answers well before Claude Code's timeout, and denies with the JSON form
// (permissionDecision "deny"), which Claude Code hands to the model
// verbatim. An allow gives no decision at all: a hook's JSON "allow" would
// override the user's own permission prompt.
package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/transcripts"
)

// DefaultDeadline is the hook's own time limit. Claude Code's default
// hook timeout is 60 s and PrintSettings asks for 30 s: a gate that has
// not decided in 10 s denies, well before Claude Code would give up on it
// and let the call through.
const DefaultDeadline = 10 * time.Second

// MaxPayload bounds the JSON read from standard input.
const MaxPayload = 16 << 20

// Call is a tool call as the Claude Code reader's conventions classify it.
type Call struct {
	// Delivery: the call is delivery-shaped (it may cross the boundary).
	Delivery bool
	// Intents are what it would deliver: each a destination and content,
	// as the reader derives them (paths resolved against cwd); a command
	// line may deliver several (`a && b`). An empty one, or none, when
	// the conventions find no destination or content: the gate then stops
	// (NO_KEY), since the call may deliver anything.
	Intents []analyzer.IntentSpec
	// Why says what the classification found, for the denial's text.
	Why string
}

// Classifier classifies one tool call (name, input JSON, working folder).
type Classifier func(tool string, input []byte, cwd string) (Call, error)

// ClaudeCode is the hook. Gate is asked at send; Ledger, when set, is
// claimed and crossed in the same step as an allow, and settled after.
type ClaudeCode struct {
	Gate     *gate.Gate
	Ledger   ledger.Store
	Classify Classifier
	// Histories are read besides the session's project folder.
	Histories []string
	// Lease of a claim made at PreToolUse (ledger.DefaultLease when 0).
	Lease time.Duration
	// Deadline bounds one Handle (DefaultDeadline when 0).
	Deadline time.Duration
}

// Payload is the part of Claude Code's hook input the hook reads.
type Payload struct {
	Event          string
	SessionID      string
	TranscriptPath string
	Cwd            string
	Tool           string
	Input          []byte
	ToolUseID      string
	AgentID        string
}

// ParsePayload reads one hook event.
func ParsePayload(b []byte) (Payload, error) {
	if len(b) == 0 {
		return Payload{}, errors.New("no hook event on standard input")
	}
	if !gjson.ValidBytes(b) {
		return Payload{}, errors.New("the hook event on standard input is not valid JSON")
	}
	r := gjson.ParseBytes(b)
	if !r.IsObject() {
		return Payload{}, errors.New("the hook event on standard input is not a JSON object")
	}
	for _, f := range []string{"hook_event_name", "tool_name", "session_id", "transcript_path", "cwd", "tool_use_id", "agent_id"} {
		if v := r.Get(f); v.Exists() && v.Type != gjson.String && v.Type != gjson.Null {
			return Payload{}, fmt.Errorf("the hook event's %s is not a string", f)
		}
	}
	p := Payload{Event: r.Get("hook_event_name").String(), SessionID: r.Get("session_id").String(),
		TranscriptPath: r.Get("transcript_path").String(), Cwd: r.Get("cwd").String(),
		Tool: r.Get("tool_name").String(), ToolUseID: r.Get("tool_use_id").String(), AgentID: r.Get("agent_id").String()}
	if in := r.Get("tool_input"); in.Exists() {
		p.Input = []byte(in.Raw)
	}
	if p.Event == "" {
		return p, errors.New("the hook event names no hook_event_name")
	}
	return p, nil
}

// Task is the task the call belongs to, named as the Claude Code reader
// names it: the subagent inside its session (its session_id is the
// parent's), else the session.
func (p Payload) Task() string {
	if p.SessionID == "" {
		return "" // a subagent's task is named within its session
	}
	return transcripts.ClaudeCodeTask(p.SessionID, p.AgentID)
}

// Response is the hook's answer. Output is written to standard output
// (nil: nothing); the exit code is 0, or 2 when even the JSON could not
// be made (stderr then carries Message, which Claude Code hands the model).
type Response struct {
	Output  []byte
	Exit    int
	Message string
	// Decision is "deny", "allow" (no output: the user's own permission
	// rules apply), "settled", or "" (not a delivery: untouched).
	Decision string
}

// Deny is the response that blocks a PreToolUse call.
func Deny(reason string) Response {
	reason = "effectlint: " + strings.TrimPrefix(reason, "effectlint: ")
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	if err != nil {
		return Response{Exit: 2, Message: reason, Decision: "deny"}
	}
	return Response{Output: append(out, '\n'), Decision: "deny"}
}

// Handle answers one hook event. It never panics and never returns a
// response that lets a delivery-shaped PreToolUse call through on error:
// a failure, a panic or the deadline is a denial.
func (h *ClaudeCode) Handle(ctx context.Context, raw []byte) (resp Response) {
	deadline := h.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	done := make(chan Response, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Deny(fmt.Sprintf("internal error (denied to be safe): %v", r))
			}
		}()
		done <- h.handle(ctx, raw)
	}()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		// The gate may still be working; its answer is not awaited. A
		// claim it makes after this point is never crossed: the lease
		// runs out and frees the scope.
		return TimedOut(raw, deadline)
	}
}

// TimedOut is the answer of a hook that ran out of its deadline: a
// PreToolUse (or an event it cannot read) is denied; a later event can
// block nothing and says so on stderr.
func TimedOut(raw []byte, deadline time.Duration) Response {
	if p, err := ParsePayload(raw); err == nil && p.Event != "PreToolUse" {
		return Response{Exit: 2, Message: fmt.Sprintf("effectlint: no answer within %s", deadline)}
	}
	return Deny(fmt.Sprintf("no decision within the hook's deadline of %s: denied to be safe (raise --deadline, and the hook's timeout above it)", deadline))
}

func (h *ClaudeCode) handle(ctx context.Context, raw []byte) Response {
	p, err := ParsePayload(raw)
	if err != nil {
		// Unreadable input: whatever the call is, it is denied.
		return Deny(err.Error())
	}
	switch {
	case p.Event == "PreToolUse":
		return h.pre(ctx, p)
	case p.Event == "PostToolUse", p.Event == "PostToolUseFailure":
		return h.post(ctx, p)
	case strings.EqualFold(p.Event, "PreToolUse"), strings.EqualFold(p.Event, "PostToolUse"), strings.EqualFold(p.Event, "PostToolUseFailure"):
		// Not a spelling Claude Code sends: a reader that disagrees with
		// the sender must not pick the convenient reading.
		return Deny(fmt.Sprintf("the hook event's name %q is not one Claude Code sends", p.Event))
	}
	return Response{} // other events: untouched
}

func (h *ClaudeCode) pre(ctx context.Context, p Payload) Response {
	if p.Tool == "" {
		return Deny("the PreToolUse event names no tool_name")
	}
	call, err := h.Classify(p.Tool, p.Input, p.Cwd)
	if err != nil {
		return Deny(fmt.Sprintf("cannot classify the %s call: %v", p.Tool, err))
	}
	if !call.Delivery {
		return Response{}
	}
	task := p.Task()
	if task == "" {
		return Deny(fmt.Sprintf("the %s call is delivery-shaped and the event names no session_id: no task to ask the gate for", p.Tool))
	}
	// The histories are the session's project folder plus every --history
	// (SPEC §10): without transcript_path the project folder, where the
	// sibling sessions are, cannot be read, whatever else is given (a
	// sixth review today: with a --history and no transcript_path, a
	// sibling's upload went unseen and the call was allowed).
	if p.TranscriptPath == "" {
		return Deny(fmt.Sprintf("the %s call is delivery-shaped and the event names no transcript_path: the session's project folder cannot be read", p.Tool))
	}
	if !filepath.IsAbs(p.TranscriptPath) {
		// Claude Code sends it absolute; a relative one would be read
		// against the hook's own directory, another folder (a review).
		return Deny(fmt.Sprintf("the %s call is delivery-shaped and transcript_path is not absolute: which project folder it names cannot be told", p.Tool))
	}
	project := filepath.Dir(p.TranscriptPath)
	if st, err := os.Stat(project); err != nil || !st.IsDir() {
		return Deny(fmt.Sprintf("the session's project folder %s (beside transcript_path) is not a folder that can be read", project))
	}
	paths := append(append([]string(nil), h.Histories...), project)
	intents := call.Intents
	if len(intents) == 0 {
		// Delivery-shaped, and nothing says what it delivers: asking the
		// gate without an intent would judge the session's earlier
		// intents instead. It may deliver anything: deny.
		why := call.Why
		if why == "" {
			why = "no destination and content can be derived from it"
		}
		return Deny(fmt.Sprintf("STOP NO_KEY: the %s call may deliver something (%s), and what cannot be keyed cannot be checked. Do not retry this delivery another way; ask the user.", p.Tool, why))
	}
	// Every intent first, then the ledger: nothing is claimed for a call
	// the gate stops for any of its deliveries.
	var decisions []*gate.Decision
	for _, in := range intents {
		req := gate.Request{Task: task, Checkpoint: gate.Send, Intent: in, Paths: paths, Asking: p.ToolUseID}
		d := h.Gate.Check(ctx, req)
		if d.Decision != "allow" && midLine(p.TranscriptPath) {
			// Claude Code may be writing this session's transcript as it
			// asks (the file just made, or a line not ended yet): read
			// once more after a moment. The decision is the second
			// read's, which fails closed as the first did.
			select {
			case <-time.After(transcriptSettle):
				d = h.Gate.Check(ctx, req)
			case <-ctx.Done():
			}
		}
		if d.Err != nil || d.Decision != "allow" {
			return Deny(denial(p, call, d))
		}
		if h.Ledger != nil && (d.Key == nil || *d.Key == "") {
			return Deny(fmt.Sprintf("the %s call has no key to claim", p.Tool))
		}
		decisions = append(decisions, &d)
	}
	if h.Ledger == nil {
		return Response{Decision: "allow"}
	}
	for i, d := range decisions {
		if r, ok := h.claimAndCross(ctx, p, task, intents[i], *d); !ok {
			return r
		}
	}
	return Response{Decision: "allow"}
}

// claimAndCross claims the scope a decision names and crosses it: the
// ledger's atomic step that closes the race between two sessions the gate
// allowed at once. ok is false with the denial to give.
func (h *ClaudeCode) claimAndCross(ctx context.Context, p Payload, task string, in analyzer.IntentSpec, d gate.Decision) (Response, bool) {
	scope := ledger.OriginalScope
	if d.Scope != nil && *d.Scope != "" {
		scope = *d.Scope
	}
	title := ""
	if in.Destination.Provider != "" {
		title = in.Destination.Title // not in the key; may name the same destination
	}
	g, err := h.Ledger.Claim(ctx, ledger.ClaimRequest{Task: task, Key: *d.Key, Scope: scope, Title: title, Lease: h.Lease, Ref: p.ToolUseID})
	if err != nil {
		return Deny(fmt.Sprintf("the key ledger could not be claimed (%v): denied to be safe", err)), false
	}
	if !g.Granted {
		return Deny(refusal("claim", *d.Key, g)), false
	}
	if ctx.Err() != nil {
		// Out of time before the crossing: release the claim rather than
		// leave a crossing nobody made.
		rel, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, _ = h.Ledger.Settle(rel, ledger.SettleRequest{Key: *d.Key, Scope: scope, Token: g.Token, Outcome: ledger.NotCrossed})
		return Deny("no decision within the hook's deadline: denied to be safe"), false
	}
	c, err := h.Ledger.Cross(ctx, ledger.CrossRequest{Key: *d.Key, Scope: scope, Token: g.Token, Checkpoint: gate.Send})
	if err != nil {
		return Deny(fmt.Sprintf("the key ledger could not record the crossing (%v): denied to be safe", err)), false
	}
	if !c.Granted {
		return Deny(refusal("cross", *d.Key, c)), false
	}
	return Response{}, true
}

// post settles the claim PreToolUse made for this call: confirmed when the
// tool succeeded, unknown when it failed (it may have crossed all the
// same). Nothing is blocked any more; a failure is reported on stderr
// (exit 2 hands it to the model) and the scope stays consumed.
func (h *ClaudeCode) post(ctx context.Context, p Payload) Response {
	if h.Ledger == nil || p.ToolUseID == "" {
		return Response{}
	}
	// Only a delivery-shaped call was claimed: the others (every Read, ls,
	// Edit a session makes) need not search the journal.
	if call, err := h.Classify(p.Tool, p.Input, p.Cwd); err == nil && !call.Delivery {
		return Response{}
	}
	claims, err := ledger.ClaimsOfRef(ctx, h.Ledger, p.ToolUseID)
	if err != nil {
		return Response{Exit: 2, Message: fmt.Sprintf("effectlint: the key ledger could not be read to settle %s: %v (the scope stays consumed)", p.ToolUseID, err)}
	}
	if len(claims) == 0 {
		return Response{} // not a call the hook claimed
	}
	outcome := ledger.Confirmed
	if p.Event == "PostToolUseFailure" {
		outcome = ledger.Unknown
	}
	for _, claim := range claims {
		r, err := h.Ledger.Settle(ctx, ledger.SettleRequest{Key: claim.Key, Scope: claim.Scope, Token: claim.Token, Outcome: outcome})
		if err != nil {
			return Response{Exit: 2, Message: fmt.Sprintf("effectlint: could not settle %s: %v (the scope stays consumed)", p.ToolUseID, err)}
		}
		if !r.Granted {
			return Response{Exit: 2, Message: "effectlint: " + refusal("settle", claim.Key, r)}
		}
	}
	return Response{Decision: "settled"}
}

// denial words a stop for the model: the first reason, its evidence, and
// the rest by rule.
func denial(p Payload, call Call, d gate.Decision) string {
	if d.Err != nil {
		return fmt.Sprintf("STOP GATE_ERROR: the gate could not decide on this %s call (%v): denied to be safe", p.Tool, d.Err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "STOP")
	for i, r := range d.Reasons {
		if i == 0 {
			fmt.Fprintf(&b, " %s: %s", r.Rule, r.Message)
			for j, e := range r.Evidence {
				if j == 3 {
					fmt.Fprintf(&b, " …")
					break
				}
				fmt.Fprintf(&b, " [%s:%d]", e.File, e.Line)
			}
			continue
		}
		fmt.Fprintf(&b, "; also %s", r.Rule)
	}
	if d.Key != nil && *d.Key != "" {
		fmt.Fprintf(&b, " (key %s)", *d.Key)
	} else if call.Why != "" {
		fmt.Fprintf(&b, " (%s)", call.Why)
	}
	b.WriteString(". Do not retry this delivery another way; ask the user.")
	return b.String()
}

func refusal(op, key string, r ledger.Result) string {
	rule, msg := "REFUSED", ""
	if len(r.Reasons) > 0 {
		rule, msg = r.Reasons[0].Rule, r.Reasons[0].Message
	}
	return fmt.Sprintf("STOP %s: the key ledger refused the %s: %s (key %s, scope %s). Do not retry this delivery another way; ask the user.", rule, op, msg, key, r.Scope)
}

// transcriptSettle is how long the hook waits for Claude Code to end the
// line it is writing (CI saw the second session's check stop on its own
// transcript's first line, read while it was being written).
const transcriptSettle = 200 * time.Millisecond

// midLine: the file is empty or does not end with a newline, as a JSON
// Lines file being written is between writes.
func midLine(path string) bool {
	if path == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if st.Size() == 0 {
		return true
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], st.Size()-1); err != nil {
		return false
	}
	return b[0] != '\n'
}
