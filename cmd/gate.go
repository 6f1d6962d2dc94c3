package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/transcripts"
)

// newGate turns the input and policy flags into a gate: flags → options.
// Every flag error is a usage error (exit 2) before anything is read.
func newGate(env Env, c *commonFlags, p *policyFlags, more ...gate.Option) (*gate.Gate, error) {
	opts := []gate.Option{gate.WithStdin(env.Stdin), gate.WithInputFormat(c.inputFormat)}
	if env.rules != "" {
		opts = append(opts, gate.WithRules(env.rules))
	}
	if c.maxLineBytes < 0 {
		return nil, fail(ExitError, "--max-line-bytes must not be negative (0: the default), not %d", c.maxLineBytes)
	}
	if c.maxProblems < 0 {
		return nil, fail(ExitError, "--max-problems must be 0 (list all) or more, not %d", c.maxProblems)
	}
	opts = append(opts, gate.WithLimits(c.maxLineBytes, c.maxProblems))
	if c.asOf != "" {
		asOf, err := time.Parse(time.RFC3339Nano, c.asOf)
		if err != nil {
			return nil, fail(ExitError, "--as-of %q is not an RFC 3339 time with offset", c.asOf)
		}
		opts = append(opts, gate.WithAsOf(asOf))
	}
	maps, err := c.parsePathMaps()
	if err != nil {
		return nil, err
	}
	opts = append(opts, gate.WithPathMaps(maps...))
	ignore, err := c.ignoreFunc()
	if err != nil {
		return nil, err
	}
	if ignore != nil {
		opts = append(opts, gate.WithIgnore(ignore))
	}
	if c.profile != "" {
		prof, err := transcripts.LoadProfile(c.profile)
		if err != nil {
			return nil, fail(ExitError, "%v", err)
		}
		opts = append(opts, gate.WithProfile(prof))
	}
	if c.requireChecks {
		opts = append(opts, gate.WithRequireChecks())
	}
	if spec, ok := c.ledger.resolve(); ok {
		opts = append(opts, c.ledgerOption(spec))
	}
	opts = append(opts, c.cache.option())
	if p != nil {
		if p.timeout < 0 {
			return nil, fail(ExitError, "--timeout must not be negative")
		}
		opts = append(opts, gate.WithPolicies(p.policies...), gate.WithData(p.data...), gate.WithTimeout(p.timeout))
	} else {
		opts = append(opts, gate.WithTimeout(0))
	}
	g, err := gate.New(context.Background(), append(opts, more...)...)
	if err != nil {
		return nil, fail(ExitError, "%v", err)
	}
	return g, nil
}

// gateFailed is the exit-2 error of a run the gate could not complete,
// worded with the flags the user gave.
func gateFailed(err error) error {
	var te *gate.TimeoutError
	switch {
	case errors.As(err, &te):
		return fail(ExitError, "policy evaluation did not finish within --timeout %s", te.Limit)
	case errors.Is(err, gate.ErrPolicies):
		return fail(ExitError, "--policy: %v", err)
	}
	return fail(ExitError, "%v", err)
}

// ledgerOption opens --ledger for the run. A ledger that cannot be opened
// is not a usage error but an unreadable history (SPEC §9): the run reads
// it as an input that fails, so every check stops with
// HISTORY_UNREADABLE and analyze reports it.
func (c *commonFlags) ledgerOption(spec string) gate.Option {
	s, err := ledger.Open(context.Background(), spec, ledger.Config{Existing: true})
	if err == nil {
		c.closers = append(c.closers, func() { s.Close() })
	}
	return gate.WithLedgerFrom("ledger:"+ledger.Redact(spec), func(context.Context) (ledger.Store, error) { return s, err })
}
