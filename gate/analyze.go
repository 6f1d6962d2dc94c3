package gate

import (
	"context"
	"errors"

	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

// AnalyzeRequest asks what the histories at Paths prove (SPEC §4, §6).
type AnalyzeRequest struct {
	Paths []string
	// FailOn is the lowest severity that fails the run: critical, high
	// (the default), medium, low, info or none.
	FailOn string
}

// Analyze reads the histories and judges every key scope and finding: the
// report the CLI renders. Unlike Check it returns its errors: a review
// that could not be made is no verdict at all.
func (g *Gate) Analyze(ctx context.Context, req AnalyzeRequest) (*report.Report, error) {
	if req.FailOn == "" {
		req.FailOn = "high"
	}
	if req.FailOn != "none" && policy.SeverityRank(req.FailOn) == 0 {
		return nil, errors.New("fail-on must be critical, high, medium, low, info or none, not " + req.FailOn)
	}
	// Only users' rules read facts' extra fields; no report shows them.
	facts, err := g.facts(req.Paths, read{specFieldsOnly: g.userLen == 0})
	if err != nil {
		return nil, err
	}
	eng, err := g.engine()
	if err != nil {
		return nil, err
	}
	if err := g.need(eng, "finding"); err != nil {
		return nil, err
	}
	// The time limit bounds each evaluation (a group of key scopes, users'
	// rules), not the sum: histories grow by groups.
	a, err := eng.Analyze(policy.EachEvaluationWithin(ctx, g.cfg.timeout), facts)
	if err != nil {
		if errors.Is(err, policy.ErrTimeout) {
			err = &TimeoutError{Limit: g.cfg.timeout, Err: err}
		}
		return nil, err
	}
	// The facts are this call's own: the report may release them.
	rep, err := report.BuildReleasing(facts, a, eng.Rules(), req.FailOn)
	if err != nil {
		return nil, err
	}
	rep.Paths = req.Paths
	return rep, nil
}
