package cmd

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

func newAnalyze(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var o outputFlags
	var failOn string
	cmd := &cobra.Command{
		Use:   "analyze [flags] PATH...",
		Short: "Post-incident review and CI lint: key scope states and findings",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if failOn != "none" && policy.SeverityRank(failOn) == 0 {
				return fail(ExitError, "--fail-on must be critical, high, medium, low, info or none, not %q", failOn)
			}
			r, err := c.renderer()
			if err != nil {
				return err
			}
			outs, err := o.parse(c.color)
			if err != nil {
				return err
			}
			defer c.done()
			g, err := newGate(env, &c, &p)
			if err != nil {
				return err
			}
			rep, err := g.Analyze(context.Background(), gate.AnalyzeRequest{Paths: args, FailOn: failOn})
			if err != nil {
				return gateFailed(err)
			}
			if err := r.Analyze(env.Stdout, rep); err != nil {
				return fail(ExitError, "writing the report: %v", err)
			}
			if err := writeOutputs(outs, func(r report.Renderer, f *os.File) error { return r.Analyze(f, rep) }); err != nil {
				return err
			}
			// SPEC §7: a run that read no event never passes, whatever
			// the rules found: every input was skipped, not recognized or
			// empty, so nothing was judged.
			if rep.Summary.Events == 0 {
				return fail(ExitError, "no event was read from %d input(s): nothing was judged (inputs not recognized, empty or skipped)", rep.Summary.Inputs)
			}
			if rep.Summary.Failed {
				return &exitError{code: ExitFindings, err: nil}
			}
			return nil
		},
	}
	c.register(cmd)
	c.registerLedger(cmd)
	c.cache.register(cmd)
	p.register(cmd)
	o.register(cmd)
	cmd.Flags().StringVar(&failOn, "fail-on", "high", "lowest finding severity that exits 1: critical, high, medium, low, info or none")
	return cmd
}
