package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
	"github.com/effectlint/effectlint/transcripts"
)

// Request is one question to the gate: may Task proceed at Checkpoint
// over the histories at Paths?
type Request struct {
	Task       string
	Checkpoint string // Resume (the default, the strictest), Picker or Send
	// Intent names the task's intent when it has no history yet, or
	// another key than its own; empty: every intent the task holds or
	// inherits (at Resume), or its latest.
	Intent analyzer.IntentSpec
	Paths  []string
	// AsOf, when set, replays the histories up to that time (overrides
	// WithAsOf).
	AsOf time.Time
	// Asking is the tool call id of the call asking (a Claude Code
	// PreToolUse hook's tool_use_id): that call, written to its transcript
	// before the hook runs, is not read as one that may have run while it
	// has no result (transcripts.Options.Asking).
	Asking string
}

// Decision is the gate's answer: the report the CLI renders, the facts it
// rests on, and, when something failed, the error behind the stop.
type Decision struct {
	*report.CheckReport
	// Facts are the facts judged; nil when reading failed.
	Facts *analyzer.Facts
	// Err is set when the decision is a stop because the check could not
	// be made (callers of the CLI see exit 2).
	Err error
}

// Allowed reports whether the task may proceed: only a decision that was
// made, and said allow.
func (d Decision) Allowed() bool {
	return d.Err == nil && d.CheckReport != nil && d.CheckReport.Decision == "allow"
}

// stage names where a check failed, for the reason's message and for the
// fault injection of the tests.
type stage string

const (
	stageRequest  stage = "request"
	stageRead     stage = "read"
	stageFacts    stage = "facts"
	stageCompile  stage = "compile"
	stageEvaluate stage = "evaluate"
	stageReport   stage = "report"
)

// failAt, when set (by tests), makes the check fail at that stage.
var failAt func(stage) error

func inject(s stage) error {
	if failAt != nil {
		return failAt(s)
	}
	return nil
}

// Check answers a request. Every failure is a stop with Err set.
func (g *Gate) Check(ctx context.Context, req Request) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = g.failed(req, d.Facts, stageEvaluate, fmt.Errorf("internal error: %v", r))
		}
	}()
	if req.Checkpoint == "" {
		req.Checkpoint = Resume
	}
	if _, err := effect.ParseCheckpoint(req.Checkpoint); err != nil {
		return g.failed(req, nil, stageRequest, err)
	}
	if req.Task == "" {
		return g.failed(req, nil, stageRequest, errors.New("no task: the check needs the task that asks"))
	}
	if err := inject(stageRead); err != nil {
		return g.failed(req, nil, stageRead, err)
	}
	// What check cannot read may be a history: it fails closed on it.
	facts, err := g.facts(req.Paths, read{specFieldsOnly: g.userLen == 0, strict: true, asOf: req.AsOf, asking: transcripts.AskingCall{Task: req.Task, ID: req.Asking}})
	if err != nil {
		return g.failed(req, nil, stageRead, err)
	}
	if err := inject(stageFacts); err != nil {
		return g.failed(req, facts, stageFacts, err)
	}
	queries := facts.AskAll(req.Task, req.Checkpoint, req.Intent)
	facts.Query = queries[0]
	eng, err := g.engine()
	if err == nil {
		err = inject(stageCompile)
	}
	if err == nil {
		err = g.need(eng, "stop")
	}
	if err != nil {
		return g.failed(req, facts, stageCompile, err)
	}
	if err := inject(stageEvaluate); err != nil {
		return g.failed(req, facts, stageEvaluate, err)
	}
	ectx, cancel := g.evalContext(ctx)
	defer cancel()
	gd, err := eng.CheckEach(ectx, facts, queries)
	if err != nil {
		if errors.Is(err, policy.ErrTimeout) {
			err = &TimeoutError{Limit: g.cfg.timeout, Err: err}
		}
		return g.failed(req, facts, stageEvaluate, err)
	}
	if err := inject(stageReport); err != nil {
		return g.failed(req, facts, stageReport, err)
	}
	return Decision{CheckReport: report.BuildCheck(facts, gd), Facts: facts}
}

// TimeoutError is an evaluation that did not finish within the limit.
type TimeoutError struct {
	Limit time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("policy evaluation did not finish within the time limit %v", e.Limit)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// failed is the stop decision of a check that could not be made.
func (g *Gate) failed(req Request, facts *analyzer.Facts, at stage, err error) Decision {
	d := stopFor(req, at, err)
	if facts != nil {
		d.Inputs = facts.Inputs
	}
	d.Facts = facts
	return d
}

// Failed is the stop decision of a check its caller could not even ask
// (the request could not be read): the same decision, with the same
// GATE_ERROR reason, as a check that failed inside Check. err must not be
// nil.
func Failed(req Request, err error) Decision {
	if err == nil {
		err = errors.New("no reason given")
	}
	return stopFor(req, stageRequest, err)
}

func stopFor(req Request, at stage, err error) Decision {
	cp := req.Checkpoint
	if cp == "" {
		cp = Resume
	}
	c := &report.CheckReport{Version: report.Version, Decision: "stop", Task: req.Task, Checkpoint: cp,
		Reasons: []report.CheckReason{{Rule: ReasonError, Message: fmt.Sprintf("the check could not be made (%s): %v", at, err),
			Evidence: []analyzer.Pointer{}}}, Inputs: []transcripts.Input{}}
	return Decision{CheckReport: c, Err: err}
}
