package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
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
