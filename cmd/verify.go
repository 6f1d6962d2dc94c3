package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/policy/builtin"
)

// verify runs Rego unit tests like `opa test` / `conftest verify`: the
// built-in rules' tests always, and those of the policies named.
func newVerify(env Env) *cobra.Command {
	var p policyFlags
	var run string
	cmd := &cobra.Command{
		Use:   "verify [flags] [POLICY_PATH...]",
		Short: "Run the Rego unit tests (test_* rules) of the built-in rules and of your policies",
		Long: `verify runs the Rego unit tests (rules named test_*) of the built-in rules
(rules_test.rego) together with those of the given policy files and
directories (every .rego file, *_test.rego included), under the same sandbox
as analyze and check. It prints one line per test and closes with
"N passed, N failed". Exit 1 when a test failed or could not be evaluated,
2 when no test ran (or none from the given policies) or a policy does not
compile.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if p.timeout < 0 {
				return fail(ExitError, "--timeout must not be negative")
			}
			user, err := policy.LoadPolicies(args, true)
			if err != nil {
				return fail(ExitError, "%v", err)
			}
			data, err := policy.LoadData(p.data)
			if err != nil {
				return fail(ExitError, "%v", err)
			}
			ctx, cancel := p.context()
			defer cancel()
			results, err := policy.Verify(ctx, policy.VerifyConfig{
				Builtin: []policy.Module{env.builtinRules(), {Name: builtin.TestsName, Source: builtin.Tests}},
				User:    user,
				Data:    data,
				Filter:  run,
			})
			if err != nil {
				return fail(ExitError, "%v", err)
			}
			passed, failed, skipped, userRan := 0, 0, 0, 0
			w := env.Stdout
			for _, r := range results {
				fmt.Fprintf(w, "%-5s %s  %s\n", r.Outcome, r.Where(), r.Name)
				switch r.Outcome {
				case policy.TestSkip:
					skipped++
					continue
				case policy.TestPass:
					passed++
				case policy.TestFail:
					failed++
					if r.FailedAt != "" {
						fmt.Fprintf(w, "      failed at %s\n", r.FailedAt)
					}
				case policy.TestError:
					failed++
					fmt.Fprintf(w, "      %s\n", r.Error)
				}
				if r.User {
					userRan++
				}
				if r.Outcome != policy.TestPass && r.Output != "" {
					fmt.Fprintf(w, "      output:\n        %s\n", strings.ReplaceAll(strings.TrimRight(r.Output, "\n"), "\n", "\n        "))
				}
			}
			if skipped > 0 {
				fmt.Fprintf(w, "%d skipped (todo_test_)\n", skipped)
			}
			fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
			switch {
			case passed+failed == 0:
				return fail(ExitError, "no test ran%s", filterNote(run))
			case len(args) > 0 && userRan == 0:
				return fail(ExitError, "no test of %s ran%s: name tests test_* (in *_test.rego files by convention)", strings.Join(args, ", "), filterNote(run))
			case failed > 0:
				return &exitError{code: ExitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "run only the tests whose full name (data.<package>.test_<name>) matches this regular expression")
	cmd.Flags().StringArrayVar(&p.data, "data", nil, "extra data for policy: a JSON or YAML file or a directory of them (repeatable)")
	cmd.Flags().DurationVar(&p.timeout, "timeout", 5*DefaultTimeout, "time limit for the whole run (0: no limit)")
	return cmd
}

func filterNote(run string) string {
	if run == "" {
		return ""
	}
	return fmt.Sprintf(" (--run %q)", run)
}
