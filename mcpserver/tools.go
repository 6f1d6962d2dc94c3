package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/internal/ops"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/report"
)

// The tools' names.
const (
	ToolCheck   = "check"
	ToolClaim   = "claim"
	ToolCross   = "cross"
	ToolSettle  = "settle"
	ToolKey     = "key"
	ToolExplain = "explain"
)

// Tools are the tools' names, in the order tools/list gives them.
var Tools = []string{ToolCheck, ToolClaim, ToolCross, ToolSettle, ToolKey, ToolExplain}

// CheckInput asks the gate (SPEC §5): may Task proceed at Checkpoint now?
type CheckInput struct {
	Task          string   `json:"task" jsonschema:"the task that asks: your session or worker id, the same one its history records"`
	Checkpoint    string   `json:"checkpoint,omitempty" jsonschema:"where the task stands: resume (before going on after a restart or in a new session; the default, the strictest), picker (before opening a file picker or attaching), send (right before the irreversible action)"`
	Key           string   `json:"key,omitempty" jsonschema:"the idempotency key, as the key tool gives it; or name the intent with destination or title and file or sha256"`
	Destination   string   `json:"destination,omitempty" jsonschema:"the destination as PROVIDER/ID, e.g. slack/C024BE91L (a stable identity)"`
	Title         string   `json:"title,omitempty" jsonschema:"the destination's display title; alone a weak destination (two channels can share a title), with destination the channel's title too"`
	File          string   `json:"file,omitempty" jsonschema:"the content to deliver, a file path whose bytes are hashed (absolute recommended; a relative path resolves against the server's working directory)"`
	SHA256        string   `json:"sha256,omitempty" jsonschema:"the content's SHA-256, 64 hex digits, instead of file"`
	Authorization string   `json:"authorization,omitempty" jsonschema:"the id of a person's authorization of one more delivery, when this delivery is that redelivery"`
	Paths         []string `json:"paths,omitempty" jsonschema:"more histories to read (transcript files or folders) besides the server's --history ones (absolute recommended)"`
}

// ClaimInput asks the ledger for a key scope's lease (SPEC §9).
type ClaimInput struct {
	Task          string   `json:"task" jsonschema:"the claiming task: your session or worker id"`
	Key           string   `json:"key,omitempty" jsonschema:"the idempotency key, as the key tool gives it; or name the intent with destination or title and file or sha256"`
	Destination   string   `json:"destination,omitempty" jsonschema:"the destination as PROVIDER/ID, e.g. slack/C024BE91L"`
	Title         string   `json:"title,omitempty" jsonschema:"the destination's display title (alone a weak destination)"`
	File          string   `json:"file,omitempty" jsonschema:"the content to deliver, a file path whose bytes are hashed (absolute recommended)"`
	SHA256        string   `json:"sha256,omitempty" jsonschema:"the content's SHA-256, 64 hex digits, instead of file"`
	Authorization string   `json:"authorization,omitempty" jsonschema:"claim the scope a person's authorization opened (a redelivery); default the original scope"`
	Lease         string   `json:"lease,omitempty" jsonschema:"how long the claim holds unless renewed, a Go duration such as 30s or 5m (default 5m, at most 24h)"`
	ToolUseID     string   `json:"tool_use_id,omitempty" jsonschema:"the id of the tool call that will deliver, kept with the claim in the ledger's journal so a transcript that names it can be tied to this key"`
	Paths         []string `json:"paths,omitempty" jsonschema:"more histories for the gate, which runs first over them, the server's --history ones and the ledger's journal (absolute recommended)"`
}

// CrossInput announces a crossing under a token.
type CrossInput struct {
	Key           string `json:"key" jsonschema:"the key scope's key, as claim answered it"`
	Token         int64  `json:"token" jsonschema:"the fencing token claim granted"`
	Checkpoint    string `json:"checkpoint,omitempty" jsonschema:"where the crossing happens: send (the default) or picker"`
	Authorization string `json:"authorization,omitempty" jsonschema:"the authorization whose scope it is; default the original scope"`
}

// SettleInput records what happened under a token.
type SettleInput struct {
	Key           string `json:"key" jsonschema:"the key scope's key, as claim answered it"`
	Token         int64  `json:"token" jsonschema:"the fencing token claim granted"`
	Outcome       string `json:"outcome" jsonschema:"confirmed (the delivery was seen to arrive), unknown (it may have gone out: you cannot tell), not_crossed (you never acted: releases the scope, refused after cross)"`
	Authorization string `json:"authorization,omitempty" jsonschema:"the authorization whose scope it is; default the original scope"`
}

// KeyInput names a destination and content.
type KeyInput struct {
	Destination string `json:"destination,omitempty" jsonschema:"the destination as PROVIDER/ID, e.g. slack/C024BE91L"`
	Title       string `json:"title,omitempty" jsonschema:"the destination's display title: alone a weak destination, with destination ignored by the key"`
	File        string `json:"file,omitempty" jsonschema:"the content, a file path whose bytes are hashed (absolute recommended)"`
	SHA256      string `json:"sha256,omitempty" jsonschema:"the content's SHA-256, 64 hex digits, instead of file"`
}

// KeyOutput is a key, or why there is none.
type KeyOutput struct {
	Key             string       `json:"key" jsonschema:"the canonical idempotency key (empty when it could not be computed)"`
	ContentSHA256   string       `json:"content_sha256" jsonschema:"the content's SHA-256"`
	WeakDestination bool         `json:"weak_destination" jsonschema:"true when the destination is known by its title alone: two channels can share a title"`
	Reasons         []ops.Reason `json:"reasons" jsonschema:"why no key could be computed (empty when there is one)"`
}

// ExplainInput asks why: a key's scopes, or a task's decision.
type ExplainInput struct {
	Task          string   `json:"task,omitempty" jsonschema:"explain the gate's decision for this task (or give key)"`
	Checkpoint    string   `json:"checkpoint,omitempty" jsonschema:"with task: resume (default), picker or send"`
	Key           string   `json:"key,omitempty" jsonschema:"explain the state of this key's scopes (or give task)"`
	Scope         string   `json:"scope,omitempty" jsonschema:"with key: only this scope (original, or an authorization id)"`
	Destination   string   `json:"destination,omitempty" jsonschema:"with task: the intent's destination as PROVIDER/ID, for a task with no history yet"`
	Title         string   `json:"title,omitempty" jsonschema:"with task: the destination's display title"`
	File          string   `json:"file,omitempty" jsonschema:"with task: the content file to hash"`
	SHA256        string   `json:"sha256,omitempty" jsonschema:"with task: the content's SHA-256"`
	Authorization string   `json:"authorization,omitempty" jsonschema:"with task: the authorization id the intent delivers under"`
	Paths         []string `json:"paths,omitempty" jsonschema:"more histories to read besides the server's --history ones (absolute recommended)"`
}

// ExplainOutput is an explanation, or why there is none.
type ExplainOutput struct {
	Explained bool           `json:"explained" jsonschema:"true when the explanation was made; it is never a permission: ask check or claim before crossing"`
	Text      string         `json:"text" jsonschema:"the explanation as effectlint explain prints it: rules with their file:line and every fact with its file:line"`
	Gate      *ExplainedGate `json:"gate" jsonschema:"with task: the gate's decision explained"`
	Scopes    []ExplainedKey `json:"scopes" jsonschema:"with key: each scope's state and findings"`
	Reasons   []ops.Reason   `json:"reasons" jsonschema:"why no explanation could be made (empty when explained)"`
}

// ExplainedGate is the decision an explanation is about.
type ExplainedGate struct {
	Task       string       `json:"task"`
	Checkpoint string       `json:"checkpoint"`
	Decision   string       `json:"decision" jsonschema:"what the gate decides over these histories now (allow or stop): informational, ask check or claim before crossing"`
	Key        *string      `json:"key"`
	Scope      *string      `json:"scope"`
	State      *string      `json:"state"`
	Executor   *string      `json:"executor"`
	Reasons    []ops.Reason `json:"reasons"`
}

// ExplainedKey is one key scope an explanation is about.
type ExplainedKey struct {
	Key      string   `json:"key"`
	Scope    string   `json:"scope"`
	State    string   `json:"state" jsonschema:"sent_verified, send_status_unknown, in_flight, not_sent or open (SPEC §4)"`
	Tasks    []string `json:"tasks" jsonschema:"the tasks whose intent is in this scope"`
	Findings []string `json:"findings" jsonschema:"the rules of the findings on this scope"`
}

func (s *Server) addTools() {
	f := false
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}
	writes := func(title string) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: false, IdempotentHint: false, DestructiveHint: &f, OpenWorldHint: &f}
	}
	titled := func(a *mcp.ToolAnnotations, title string) *mcp.ToolAnnotations { c := *a; c.Title = title; return &c }

	checkpoints := []any{gate.Resume, gate.Picker, gate.Send}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolCheck,
		Title: "Check the delivery gate",
		Description: `Ask whether a task may cross the delivery boundary now (SPEC §5): the gate reads the histories (the server's --history paths, the call's paths and the ledger's journal) and answers decision "allow" or "stop" with reasons and their evidence (file:line).

Ask at checkpoint resume before going on after an interruption, picker before opening a file picker, send right before the irreversible action. A task with no history yet names its intent: key, or destination (or title) with file or sha256.

Proceed only on decision "allow". "stop" means do not deliver: the reasons say why (KEY_CONSUMED: it was or may have been delivered already; HISTORY_UNREADABLE; NOT_ELECTED: another task is the executor; GATE_ERROR: the check could not be made). Every error is a stop, never an allow. A check does not reserve anything: with a ledger, claim instead.`,
		Annotations:  titled(readOnly, "Check the delivery gate"),
		InputSchema:  schema[CheckInput](enum("checkpoint", checkpoints...)),
		OutputSchema: schema[report.CheckReport](checkDescriptions),
	}, s.check)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolClaim,
		Title: "Claim a key scope in the ledger",
		Description: `Claim a key scope in the key ledger before delivering (SPEC §9): on success granted true with a fencing token and a lease; pass the token to cross right before acting, then to settle.

The gate runs first over the histories (the server's --history paths and the call's paths, with the ledger's journal) at checkpoint picker; a stop there is a refusal. Then, atomically: a consumed scope refuses (KEY_CONSUMED), another task's live claim refuses (CLAIMED, naming holder and expiry), your own live claim is renewed (same token), an expired claim is replaced (next token), a free scope is granted.

Proceed only on granted true. Every error (no ledger configured, a ledger that does not answer, an invalid request) is granted false with a reason: do not deliver. Give tool_use_id, the id of the call that will deliver: the journal keeps it with the claim. Use provider_token as the Idempotency-Key with providers that accept one.`,
		Annotations: writes("Claim a key scope in the ledger"),
		InputSchema: schema[ClaimInput](),
		OutputSchema: schema[ops.Answer](enum("operation", ToolClaim), arrays("reasons"),
			enum("state", "", string(ledger.Free), string(ledger.Claimed), string(ledger.Crossing), string(ledger.SentVerified), string(ledger.SendStatusUnknown))),
	}, s.claim)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolCross,
		Title: "Announce the crossing (right before acting)",
		Description: `Announce, right before the irreversible action, that the holder of the token crosses now (SPEC §9). It requires a live lease under that token and moves the scope to crossing: from this write on the scope is consumed, whatever happens.

Act only on granted true. A stale token refuses (FENCED: another worker holds the scope now), an expired lease refuses (EXPIRED: claim again), and every error is granted false with a reason. After acting, settle.`,
		Annotations: writes("Announce the crossing"),
		InputSchema: schema[CrossInput](enum("checkpoint", gate.Picker, gate.Send)),
		OutputSchema: schema[ops.Answer](enum("operation", ToolCross), arrays("reasons"),
			enum("state", "", string(ledger.Free), string(ledger.Claimed), string(ledger.Crossing), string(ledger.SentVerified), string(ledger.SendStatusUnknown))),
	}, s.cross)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolSettle,
		Title: "Record the outcome of a claim",
		Description: `Record what happened under a token (SPEC §9): confirmed (the delivery was seen to arrive) makes the scope sent_verified, accepted even after the lease expired; unknown (it may have gone out, you cannot tell) makes it send_status_unknown; not_crossed releases the scope, only from a live claim that never crossed (after cross it is refused and the scope stays consumed: evidence beats a label).

Say unknown whenever you are not sure: a consumed scope is never delivered again without a person's authorization. Every error is granted false with a reason.`,
		Annotations: writes("Record the outcome of a claim"),
		InputSchema: schema[SettleInput](enum("outcome", string(ledger.Confirmed), string(ledger.Unknown), string(ledger.NotCrossed))),
		OutputSchema: schema[ops.Answer](enum("operation", ToolSettle), arrays("reasons"),
			enum("state", "", string(ledger.Free), string(ledger.Claimed), string(ledger.Crossing), string(ledger.SentVerified), string(ledger.SendStatusUnknown))),
	}, s.settle)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         ToolKey,
		Title:        "Compute an idempotency key",
		Description:  `Compute the canonical idempotency key of a delivery (SPEC §2): a destination (destination PROVIDER/ID, stable; or title alone, weak: two channels can share a title) and content (file, whose bytes are hashed, or sha256). The same delivery has the same key whoever computes it; pass it to check, claim, cross, settle and explain.`,
		Annotations:  titled(readOnly, "Compute an idempotency key"),
		InputSchema:  schema[KeyInput](),
		OutputSchema: schema[KeyOutput](arrays("reasons")),
	}, s.key)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolExplain,
		Title: "Explain a key's state or a task's decision",
		Description: `Explain, over the histories (the server's --history paths, the call's paths and the ledger's journal), why a key's scopes have their state (give key, optionally scope) or why the gate decides as it does for a task (give task, optionally checkpoint and, for a task with no history yet, its intent): the rule definitions that fired and every fact they rest on, with file:line.

An explanation is never a permission: before crossing, ask check or claim.`,
		Annotations:  titled(readOnly, "Explain a key's state or a task's decision"),
		InputSchema:  schema[ExplainInput](enum("checkpoint", checkpoints...)),
		OutputSchema: schema[ExplainOutput](arrays("scopes", "reasons")),
	}, s.explain)
}

// schema infers T's schema and applies the tweaks.
func schema[T any](tweaks ...func(*jsonschema.Schema)) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	for _, t := range tweaks {
		t(sc)
	}
	return sc
}

// enum limits a property to values.
func enum(prop string, values ...any) func(*jsonschema.Schema) {
	return func(sc *jsonschema.Schema) {
		p := sc.Properties[prop]
		if p == nil {
			panic("mcpserver: no property " + prop)
		}
		p.Enum = values
	}
}

// checkDescriptions describes the check report's fields (report's types
// carry no schema tags) and limits its decision.
func checkDescriptions(sc *jsonschema.Schema) {
	for prop, d := range map[string]string{
		"version":    "the report's version, effectlint.report/v1",
		"decision":   `"allow" or "stop": proceed only on allow; every error is a stop`,
		"task":       "the task that asked",
		"checkpoint": "the checkpoint asked at",
		"key":        "the key scope's key (null when the question has none)",
		"scope":      "the key scope: original, or an authorization id",
		"state":      "the key scope's state in the evidence: sent_verified, send_status_unknown, in_flight, not_sent or open",
		"executor":   "the task elected to deliver, when several running tasks match",
		"reasons":    "the decision's reasons, each with its rule, message and evidence (file:line)",
		"inputs":     "the histories read, each with its format, events and problems",
	} {
		sc.Properties[prop].Description = d
	}
	sc.Properties["decision"].Enum = []any{"allow", "stop"}
	// Every decision has a reason, a stop above all.
	r := sc.Properties["reasons"]
	r.Types, r.Type, r.MinItems = nil, "array", jsonschema.Ptr(1)
}

// arrays says that the properties are always arrays (Go's schemas allow
// null for every slice; these are never nil).
func arrays(props ...string) func(*jsonschema.Schema) {
	return func(sc *jsonschema.Schema) {
		for _, prop := range props {
			p := sc.Properties[prop]
			if p == nil {
				panic("mcpserver: no property " + prop)
			}
			p.Types, p.Type = nil, "array"
		}
	}
}

// histories are the paths a call reads: the server's, then the call's.
// Standard input is the protocol's stream, so "-" is refused.
func (s *Server) histories(extra []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range append(append([]string{}, s.cfg.Histories...), extra...) {
		switch {
		case p == "-":
			return nil, errors.New(`the path "-" (standard input) cannot be read here: standard input carries the protocol; name files or folders`)
		case p == "":
			return nil, errors.New("an empty path names no history")
		case seen[p]:
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

func (s *Server) check(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, *report.CheckReport, error) {
	req := gate.Request{Task: in.Task, Checkpoint: in.Checkpoint}
	d := func() gate.Decision {
		spec, err := ops.Intent{Key: in.Key, Destination: in.Destination, Title: in.Title, File: in.File, SHA256: in.SHA256, Authorization: in.Authorization}.Spec()
		if err != nil {
			return gate.Failed(req, err)
		}
		paths, err := s.histories(in.Paths)
		if err != nil {
			return gate.Failed(req, err)
		}
		if len(paths) == 0 && s.cfg.Ledger == "" {
			return gate.Failed(req, errors.New("no history to read: give paths, or start the server with --history or --ledger"))
		}
		req.Intent, req.Paths = spec, paths
		return s.gate.Check(ctx, req)
	}()
	return checkResult(d)
}

// checkResult is a decision as the tool returns it: a check that could
// not be made is an error result, with its stop decision.
func checkResult(d gate.Decision) (*mcp.CallToolResult, *report.CheckReport, error) {
	rep, err := report.Excerpted(d.CheckReport)
	if err != nil {
		rep = gate.Failed(gate.Request{Task: d.Task, Checkpoint: d.Checkpoint}, err).CheckReport
	}
	return &mcp.CallToolResult{IsError: d.Err != nil || err != nil}, rep, nil
}

// answerResult is a ledger operation's answer as the tools return it.
func answerResult(a ops.Answer, failed bool) (*mcp.CallToolResult, *ops.Answer, error) {
	out, err := report.Excerpted(&a)
	if err != nil {
		r := ops.Refusal(a.Operation, "", "", a.Ledger, ops.LedgerError, "the answer could not be encoded: "+err.Error())
		out, failed = &r, true
	}
	return &mcp.CallToolResult{IsError: failed}, out, nil
}

// openFailed says that the ledger could not be opened: the operation was
// not made.
func openFailed(op string, err error) string {
	return fmt.Sprintf("the ledger could not be opened, so no %s was made: %v", op, err)
}

func scopeOf(authorization string) string {
	if authorization == "" {
		return ledger.OriginalScope
	}
	return authorization
}

func (s *Server) claim(ctx context.Context, _ *mcp.CallToolRequest, in ClaimInput) (*mcp.CallToolResult, *ops.Answer, error) {
	const op = ToolClaim
	scope := scopeOf(in.Authorization)
	refuse := func(key, rule, msg string) (*mcp.CallToolResult, *ops.Answer, error) {
		return answerResult(ops.Refusal(op, key, scope, s.cfg.Ledger, rule, msg), true)
	}
	if s.cfg.Ledger == "" {
		return refuse("", ops.NoLedger, errNoLedger.Error())
	}
	intent := ops.Intent{Key: in.Key, Destination: in.Destination, Title: in.Title, File: in.File, SHA256: in.SHA256}
	key, err := intent.ComputeKey()
	if errors.Is(err, ops.ErrNoIntent) {
		return refuse("", ops.NoKey, "name the key: key, or destination (PROVIDER/ID) or title with file or sha256")
	}
	if err != nil {
		return refuse("", ops.NoKey, "the key cannot be computed: "+err.Error())
	}
	var lease time.Duration
	if in.Lease != "" {
		if lease, err = time.ParseDuration(in.Lease); err != nil {
			return refuse(key, ops.InvalidRequest, fmt.Sprintf("lease %q is not a Go duration such as 30s or 5m", in.Lease))
		}
		if lease <= 0 {
			return refuse(key, ops.InvalidRequest, fmt.Sprintf("lease must be positive, not %s", in.Lease))
		}
	}
	req, err := ledger.NormalizeClaim(ledger.ClaimRequest{Task: in.Task, Key: key, Scope: scope, Title: intent.TitleBesidesKey(), Lease: lease, Ref: in.ToolUseID})
	if err != nil {
		return refuse(key, ops.InvalidRequest, "claim: "+err.Error())
	}
	paths, err := s.histories(in.Paths)
	if err != nil {
		return refuse(key, ops.InvalidRequest, err.Error())
	}
	st, err := s.ledger(ctx)
	if err != nil {
		return refuse(key, ops.LedgerError, openFailed(op, err))
	}
	a, err := ops.Claim(ctx, st, s.gate, req, intent, paths)
	var gf *ops.GateFailed
	var sf *ops.StoreFailed
	switch {
	case errors.As(err, &gf):
		r := ops.Refusal(op, key, scope, st.Where(), gate.ReasonError, gf.Decision.Reasons[0].Message)
		r.Gate = &ops.GateDetail{Decision: gf.Decision.Decision}
		return answerResult(r, true)
	case errors.As(err, &sf):
		return refuse(key, ops.FailureRule(sf.Err), ops.FailureMessage(st.Where(), op, sf.Err))
	case err != nil:
		return refuse(key, ops.LedgerError, err.Error())
	}
	return answerResult(a, false)
}

func (s *Server) cross(ctx context.Context, _ *mcp.CallToolRequest, in CrossInput) (*mcp.CallToolResult, *ops.Answer, error) {
	req, err := ledger.NormalizeCross(ledger.CrossRequest{Key: in.Key, Scope: scopeOf(in.Authorization), Token: in.Token, Checkpoint: in.Checkpoint})
	return s.operate(ctx, ToolCross, in.Key, scopeOf(in.Authorization), err, func(st ledger.Store) (ledger.Result, error) { return st.Cross(ctx, req) })
}

func (s *Server) settle(ctx context.Context, _ *mcp.CallToolRequest, in SettleInput) (*mcp.CallToolResult, *ops.Answer, error) {
	o, err := ledger.ParseOutcome(in.Outcome)
	req := ledger.SettleRequest{Key: in.Key, Scope: scopeOf(in.Authorization), Token: in.Token, Outcome: o}
	if err == nil {
		req, err = ledger.NormalizeSettle(req)
	}
	return s.operate(ctx, ToolSettle, in.Key, scopeOf(in.Authorization), err, func(st ledger.Store) (ledger.Result, error) { return st.Settle(ctx, req) })
}

// operate runs one ledger operation under a token: invalid (the request's
// error) or failing, it is a refusal.
func (s *Server) operate(ctx context.Context, op, key, scope string, invalid error, do func(ledger.Store) (ledger.Result, error)) (*mcp.CallToolResult, *ops.Answer, error) {
	refuse := func(where, rule, msg string) (*mcp.CallToolResult, *ops.Answer, error) {
		return answerResult(ops.Refusal(op, key, scope, where, rule, msg), true)
	}
	if s.cfg.Ledger == "" {
		return refuse("", ops.NoLedger, errNoLedger.Error())
	}
	if invalid != nil {
		return refuse(s.cfg.Ledger, ops.InvalidRequest, op+": "+invalid.Error())
	}
	st, err := s.ledger(ctx)
	if err != nil {
		return refuse(s.cfg.Ledger, ops.LedgerError, openFailed(op, err))
	}
	r, err := do(st)
	if err != nil {
		return refuse(st.Where(), ops.FailureRule(err), ops.FailureMessage(st.Where(), op, err))
	}
	return answerResult(ops.AnswerOf(op, st, r), false)
}

func (s *Server) key(_ context.Context, _ *mcp.CallToolRequest, in KeyInput) (*mcp.CallToolResult, *KeyOutput, error) {
	out := &KeyOutput{Reasons: []ops.Reason{}}
	spec, err := ops.Intent{Destination: in.Destination, Title: in.Title, File: in.File, SHA256: in.SHA256}.Spec()
	if err == nil {
		var k analyzer.Key
		if k, err = spec.Compute(); err == nil {
			out.Key, out.ContentSHA256, out.WeakDestination = k.String(), k.SHA256, k.Destination.Weak()
			out, err = report.Excerpted(out)
			if err == nil {
				return nil, out, nil
			}
		}
	}
	return keyRefusal(err.Error() + ": give destination PROVIDER/ID or title, and file or sha256")
}

func keyRefusal(msg string) (*mcp.CallToolResult, *KeyOutput, error) {
	return &mcp.CallToolResult{IsError: true}, &KeyOutput{Reasons: []ops.Reason{{Rule: ops.NoKey, Message: msg, Evidence: []analyzer.Pointer{}}}}, nil
}

func (s *Server) explain(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, *ExplainOutput, error) {
	out, err := func() (*ExplainOutput, error) {
		if (in.Key == "") == (in.Task == "") {
			return nil, errors.New("give either key or task")
		}
		if in.Key != "" && (in.Checkpoint != "" || in.Destination != "" || in.Title != "" || in.File != "" || in.SHA256 != "" || in.Authorization != "") {
			return nil, errors.New("checkpoint and the intent (destination, title, file, sha256, authorization) go with task, not key")
		}
		if in.Task != "" && in.Scope != "" {
			return nil, errors.New("scope goes with key, not task")
		}
		spec, err := ops.Intent{Destination: in.Destination, Title: in.Title, File: in.File, SHA256: in.SHA256, Authorization: in.Authorization}.Spec()
		if err != nil {
			return nil, err
		}
		paths, err := s.histories(in.Paths)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 && s.cfg.Ledger == "" {
			return nil, errors.New("no history to read: give paths, or start the server with --history or --ledger")
		}
		x, err := s.explainGate.Explain(ctx, gate.ExplainRequest{Key: in.Key, Scope: in.Scope, Task: in.Task, Checkpoint: in.Checkpoint, Intent: spec, Paths: paths})
		if err != nil {
			return nil, err
		}
		var text bytes.Buffer
		if err := x.WriteText(&text); err != nil {
			return nil, err
		}
		out := &ExplainOutput{Explained: true, Text: text.String(), Scopes: []ExplainedKey{}, Reasons: []ops.Reason{}}
		if x.Gate != nil {
			q, g := x.Facts.Query, x.Gate.Gate
			e := &ExplainedGate{Task: q.Task, Checkpoint: q.Checkpoint, Decision: g.Decision, State: g.State, Executor: g.Executor, Reasons: []ops.Reason{}}
			if q.Key != "" {
				e.Key, e.Scope = &q.Key, &q.Scope
			}
			for _, r := range g.Reasons {
				e.Reasons = append(e.Reasons, reasonOf(r.Rule, r.Message, r.Evidence))
			}
			out.Gate = e
		}
		for _, sc := range x.Scopes {
			k := ExplainedKey{Key: sc.Scope.Key, Scope: sc.Scope.Scope, State: sc.State.State, Tasks: append([]string{}, sc.Scope.Tasks...), Findings: []string{}}
			for _, f := range sc.Findings {
				k.Findings = append(k.Findings, f.Rule)
			}
			out.Scopes = append(out.Scopes, k)
		}
		return report.Excerpted(out)
	}()
	if err != nil {
		return explainRefusal(err.Error())
	}
	return nil, out, nil
}

func explainRefusal(msg string) (*mcp.CallToolResult, *ExplainOutput, error) {
	return &mcp.CallToolResult{IsError: true}, &ExplainOutput{Scopes: []ExplainedKey{},
		Reasons: []ops.Reason{{Rule: gate.ReasonError, Message: "the explanation could not be made: " + msg, Evidence: []analyzer.Pointer{}}}}, nil
}

func reasonOf(rule, msg string, ev []analyzer.Pointer) ops.Reason {
	if ev == nil {
		ev = []analyzer.Pointer{}
	}
	return ops.Reason{Rule: rule, Message: msg, Evidence: ev}
}
