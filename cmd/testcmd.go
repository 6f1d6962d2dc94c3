package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
	"github.com/effectlint/effectlint/scenario"
	"github.com/effectlint/effectlint/transcripts"
)

// test is scenario regression for users' recorded transcripts: every case
// folder's verdicts are compared with its expected.yaml.
func newTest(env Env) *cobra.Command {
	var p policyFlags
	var update bool
	var maxLineBytes int
	cmd := &cobra.Command{
		Use:   "test [flags] DIR",
		Short: "Scenario regression: compare recorded cases' verdicts with their expected.yaml",
		Long: `test runs every case of DIR — DIR itself if it holds an expected.yaml, else each
subfolder that does — and compares the verdicts (the state of every key scope,
the findings by rule and task, the decisions of the checks the file lists)
with the case's expected.yaml. Each mismatch is printed as expected vs actual,
naming the key scope, rule and task, or check. --update rewrites the
expectations from the current verdicts (and records new case folders that
hold transcripts). Closes with "N passed, N failed". Exit 1 on a mismatch,
2 when no case was found or a policy error occurred.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			cases, err := scenario.Discover(dir, update)
			if err != nil {
				return fail(ExitError, "%v", err)
			}
			if len(cases) == 0 {
				fmt.Fprintln(env.Stdout, "0 passed, 0 failed")
				return fail(ExitError, "no case in %s: a case is a folder with transcripts and an %s (--update records new ones)", dir, scenario.ExpectedFile)
			}
			c := commonFlags{maxLineBytes: maxLineBytes}
			g, err := newGate(env, &c, &p, gate.WithIgnore(scenario.IsExpected), gate.WithPoliciesOfEitherKind())
			if err != nil {
				return err
			}
			if _, err := g.Engine(); err != nil {
				return gateFailed(err) // the policy, before any case
			}
			opt := scenario.Options{Gate: g}
			w := env.Stdout
			passed, failed, updated := 0, 0, 0
			var policyErr error
			for _, c := range cases {
				exp := &scenario.Expected{}
				if c.HasExpected {
					if exp, err = scenario.ReadExpected(c.Expected); err != nil {
						fmt.Fprintf(w, "ERROR %s\n  %s\n", c.Dir, escapeLines(err.Error(), "  "))
						failed++
						continue
					}
				}
				actual, err := scenario.Run(c, exp.Checks, opt)
				if err != nil {
					var pe *policy.Error
					var te *gate.TimeoutError
					if errors.As(err, &pe) || errors.As(err, &te) {
						policyErr = gateFailed(err)
					}
					fmt.Fprintf(w, "ERROR %s\n  %s\n", c.Dir, escapeLines(err.Error(), "  "))
					failed++
					continue
				}
				diffs := scenario.Compare(exp, actual)
				switch {
				case c.HasExpected && len(diffs) == 0:
					fmt.Fprintf(w, "PASS  %s\n", c.Dir)
					passed++
				case update:
					if err := scenario.WriteExpected(c.Expected, actual); err != nil {
						fmt.Fprintf(w, "ERROR %s\n  writing %s: %v\n", c.Dir, c.Expected, err)
						failed++
						continue
					}
					what := "updated"
					if !c.HasExpected {
						what = "recorded"
					}
					fmt.Fprintf(w, "UPDATED %s  (%s %s)\n", c.Dir, what, c.Expected)
					printDiffs(w, diffs)
					passed++
					updated++
				default:
					fmt.Fprintf(w, "FAIL  %s  (%d difference(s) from %s)\n", c.Dir, len(diffs), c.Expected)
					printDiffs(w, diffs)
					failed++
				}
			}
			if updated > 0 {
				fmt.Fprintf(w, "%d updated\n", updated)
			}
			fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
			switch {
			case policyErr != nil:
				return policyErr
			case failed > 0:
				return &exitError{code: ExitFindings}
			}
			return nil
		},
	}
	p.register(cmd)
	cmd.Flags().BoolVar(&update, "update", false, "rewrite each case's expected.yaml from the current verdicts (review the diff before committing)")
	cmd.Flags().IntVar(&maxLineBytes, "max-line-bytes", transcripts.DefaultMaxLineBytes, "longest input line read; longer lines are problems")
	return cmd
}

func printDiffs(w io.Writer, diffs []scenario.Difference) {
	for _, d := range diffs {
		fmt.Fprintf(w, "  %s\n    expected  %s\n    actual    %s\n", report.Escape(d.Subject), report.Escape(d.Expected), report.Escape(d.Actual))
	}
}

// escapeLines escapes each line of a multi-line message and indents the
// lines after the first.
func escapeLines(s, indent string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = report.Escape(l)
	}
	return strings.Join(lines, "\n"+indent)
}
