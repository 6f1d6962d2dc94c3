package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

// ExplainRequest asks why: either why the scopes of Key (or only Scope)
// have their state, or why the gate decides as it does for Task at
// Checkpoint (with Intent, as in Request).
type ExplainRequest struct {
	Key, Scope string

	Task       string
	Checkpoint string // default Resume
	Intent     analyzer.IntentSpec

	Paths []string
}

// Explanation is what Explain found: the gate's decision with the rule
// definitions that produced it, or each key scope's state with the rules
// that decided it and its findings. It is no decision: an explanation
// that says allow lets nobody cross (ask Check).
type Explanation struct {
	Facts *analyzer.Facts
	// Gate explains a task's decision (ExplainRequest.Task).
	Gate *policy.GateExplanation
	// Scopes explain a key's scopes (ExplainRequest.Key), by scope name.
	Scopes []report.ScopeExplanation
	rules  []policy.RuleInfo
}

// WriteText writes the explanation as `effectlint explain` prints it:
// every fact with its file:line.
func (x *Explanation) WriteText(w io.Writer) error {
	if x.Gate != nil {
		return report.ExplainGate(w, x.Facts, x.Gate)
	}
	return report.ExplainKey(w, x.Facts, x.Scopes, x.rules)
}

// Explain reads the histories afresh and explains (`effectlint explain`).
// Unlike Check it returns its errors: an explanation that could not be
// made is none. A Gate for explanations is usually configured with
// WithPoliciesOfEitherKind.
func (g *Gate) Explain(ctx context.Context, req ExplainRequest) (*Explanation, error) {
	if (req.Key == "") == (req.Task == "") {
		return nil, errors.New("explain either a key or a task")
	}
	if req.Checkpoint == "" {
		req.Checkpoint = Resume
	}
	if _, err := effect.ParseCheckpoint(req.Checkpoint); err != nil {
		return nil, err
	}
	if req.Key != "" {
		if _, err := effect.ParseKey(req.Key); err != nil {
			return nil, fmt.Errorf("key: %v", err)
		}
	}
	facts, err := g.Facts(req.Paths)
	if err != nil {
		return nil, err
	}
	eng, err := g.engine()
	if err != nil {
		return nil, err
	}
	ctx, cancel := g.evalContext(ctx)
	defer cancel()
	timedOut := func(err error) error {
		if errors.Is(err, policy.ErrTimeout) {
			return &TimeoutError{Limit: g.cfg.timeout, Err: err}
		}
		return err
	}
	if req.Task != "" {
		facts.Query = facts.Ask(req.Task, req.Checkpoint, req.Intent)
		x, err := eng.ExplainGate(ctx, facts)
		if err != nil {
			return nil, timedOut(err)
		}
		return &Explanation{Facts: facts, Gate: x}, nil
	}
	var scopes []*analyzer.Scope
	var known []string
	for _, sc := range facts.Scopes {
		if sc.Key == req.Key && (req.Scope == "" || sc.Scope == req.Scope) {
			scopes = append(scopes, sc)
		}
		if sc.Key == req.Key {
			known = append(known, sc.Scope)
		}
	}
	if len(scopes) == 0 {
		if len(known) > 0 {
			return nil, fmt.Errorf("key %s has no scope %q in the inputs (scopes: %s)", req.Key, req.Scope, strings.Join(known, ", "))
		}
		return nil, fmt.Errorf("no key scope of %s in the inputs (%d key scope(s) there; `effectlint analyze` lists them)", req.Key, len(facts.Scopes))
	}
	a, err := eng.Analyze(ctx, facts)
	if err != nil {
		return nil, timedOut(err)
	}
	var out []report.ScopeExplanation
	for _, sc := range scopes {
		st, err := eng.ExplainState(ctx, facts, sc.ID)
		if err != nil {
			return nil, timedOut(err)
		}
		x := report.ScopeExplanation{Scope: sc, State: st}
		for _, fd := range a.Findings {
			if fd.Key != nil && *fd.Key == sc.Key && fd.Scope != nil && *fd.Scope == sc.Scope {
				x.Findings = append(x.Findings, fd)
			}
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scope.Scope < out[j].Scope.Scope })
	return &Explanation{Facts: facts, Scopes: out, rules: eng.Rules()}, nil
}
