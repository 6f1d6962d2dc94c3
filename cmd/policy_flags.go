package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/policy"
)

// DefaultTimeout bounds policy evaluation. Generous: OPA-NOTES measured
// well under a second for 100k facts; a policy that needs longer is
// looping, and check must not hang a worker that waits to send.
const DefaultTimeout = 30 * time.Second

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

// engine compiles the built-in rules with the users' policies and data.
// need names the user rule the command evaluates ("finding" for analyze,
// "stop" for check; "" for none): users' policies that define none of it
// would be a run in which none of their rules was evaluated — an error,
// never a silent pass.
func (p *policyFlags) engine(env Env, need string) (*policy.Engine, error) {
	if p.timeout < 0 {
		return nil, fail(ExitError, "--timeout must not be negative")
	}
	user, err := policy.LoadPolicies(p.policies, false)
	if err != nil {
		return nil, fail(ExitError, "%v", err)
	}
	data, err := policy.LoadData(p.data)
	if err != nil {
		return nil, fail(ExitError, "%v", err)
	}
	eng, err := policy.CompileCached(context.Background(), policy.Config{
		Builtin: []policy.Module{env.builtinRules()},
		User:    user,
		Data:    data,
	})
	if err != nil {
		return nil, fail(ExitError, "%v", err)
	}
	if len(user) > 0 {
		c := eng.Custom()
		defined := (need == "finding" && len(c.Finding) > 0) || (need == "stop" && len(c.Stop) > 0) || need == ""
		if !defined {
			return nil, fail(ExitError, "--policy: no package under effectlint.custom defines a `%s` rule, so none of the given policies would be evaluated here", need)
		}
	}
	return eng, nil
}

// engineSoon starts compiling the rules (engine) while the caller reads
// its inputs, and returns the function that waits for the result.
// Compiling takes about 20 ms, a fifth of what a check may take; reading
// and compiling share nothing. The caller reports a reading error first,
// as it would without this.
func (p *policyFlags) engineSoon(env Env, need string) func() (*policy.Engine, error) {
	type compiled struct {
		eng *policy.Engine
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		// Main's recover cannot see this goroutine: a panic while
		// compiling comes back as the error, as it would have from Main.
		defer func() {
			if r := recover(); r != nil {
				done <- compiled{err: fail(ExitError, "internal error while compiling the rules: %v", r)}
			}
		}()
		eng, err := p.engine(env, need)
		done <- compiled{eng, err}
	}()
	return func() (*policy.Engine, error) {
		c := <-done
		return c.eng, c.err
	}
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
