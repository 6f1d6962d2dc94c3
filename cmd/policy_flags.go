package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
)

// DefaultTimeout bounds policy evaluation (the gate's default).
const DefaultTimeout = gate.DefaultTimeout

// policyFlags are the flags that add users' rules and data, and bound
// their evaluation (analyze, check, explain, test, verify).
type policyFlags struct {
	policies []string
	data     []string
	timeout  time.Duration
}

func (p *policyFlags) register(cmd *cobra.Command) {
	// StringArray, not StringSlice: a path may hold a comma.
	cmd.Flags().StringArrayVar(&p.policies, "policy", nil, "extra Rego: a .rego file or a directory of them, packages under effectlint.custom (repeatable)")
	cmd.Flags().StringArrayVar(&p.data, "data", nil, "extra data for policy: a JSON or YAML file or a directory of them, merged at the root of data (repeatable)")
	cmd.Flags().DurationVar(&p.timeout, "timeout", DefaultTimeout, "time limit for policy evaluation, e.g. 500ms, 10s (0: no limit); analyze: for each group of key scopes and for your rules")
}

// context bounds one evaluation by --timeout.
func (p *policyFlags) context() (context.Context, context.CancelFunc) {
	if p.timeout == 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), p.timeout)
}

// evalFailed maps an evaluation error to exit 2, naming the time limit
// when it ran out.
func (p *policyFlags) evalFailed(err error) error {
	if errors.Is(err, policy.ErrTimeout) {
		return fail(ExitError, "policy evaluation did not finish within --timeout %s", p.timeout)
	}
	return fail(ExitError, "%v", err)
}
