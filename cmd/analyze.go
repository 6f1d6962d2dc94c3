package cmd

import (
	"context"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

func newAnalyze(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var o outputFlags
	var failOn, show string
	cmd := &cobra.Command{
		Use:   "analyze [flags] PATH...",
		Short: "Post-incident review and CI lint: key scope states and findings",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if failOn != "none" && policy.SeverityRank(failOn) == 0 {
				return fail(ExitError, "--fail-on must be critical, high, medium, low, info or none, not %q", failOn)
			}
			if _, err := c.renderer(); err != nil {
				return err
			}
			if !slices.Contains(report.ShowModes, show) {
				return fail(ExitError, "--show must be findings or all, not %q", show)
			}
			r, err := report.Get(c.format, report.Options{Color: c.color, Show: show})
			if err != nil {
				return fail(ExitError, "--format: %v", err)
			}
			o.show = show
			outs, err := o.parse(c.color)
			if err != nil {
				return err
			}
			defer c.done()
			meter, withProgress := startProgress(env)
			defer meter.Stop()
			g, err := newGate(env, &c, &p, withProgress)
			if err != nil {
				return err
			}
			rep, err := g.Analyze(context.Background(), gate.AnalyzeRequest{Paths: args, FailOn: failOn})
			meter.Stop()
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
	p.register(cmd)
	o.register(cmd)
	cmd.Flags().StringVar(&show, "show", report.ShowFindings, "key scopes the text report draws: findings (those with a finding or not settled) or all")
	cmd.Flags().StringVar(&failOn, "fail-on", "high", "lowest finding severity that exits 1: critical, high, medium, low, info or none")
	return cmd
}
