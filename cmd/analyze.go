package cmd

import (
	"context"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/baseline"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

func newAnalyze(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var o outputFlags
	var failOn, show, baselinePath, writeBaseline string
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
			sup, err := loadSuppressions(baselinePath, writeBaseline, p.data)
			if err != nil {
				return err
			}
			rep, err := g.Analyze(context.Background(), gate.AnalyzeRequest{Paths: args, FailOn: failOn})
			meter.Stop()
			if err != nil {
				return gateFailed(err)
			}
			if err := sup.apply(rep, time.Now()); err != nil {
				return err
			}
			if err := r.Analyze(env.Stdout, rep); err != nil {
				return fail(ExitError, "writing the report: %v", err)
			}
			if c.format == "text" {
				// The tally follows the text report (its renderer shows
				// every finding; this says which of them fail the run).
				if _, err := io.WriteString(env.Stdout, baseline.Summary(rep.Suppressions)); err != nil {
					return fail(ExitError, "writing the report: %v", err)
				}
			}
			if err := writeOutputs(outs, func(format string, r report.Renderer, f *os.File) error {
				if err := r.Analyze(f, rep); err != nil {
					return err
				}
				if format == "text" {
					_, err := io.WriteString(f, baseline.Summary(rep.Suppressions))
					return err
				}
				return nil
			}); err != nil {
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
	c.register(cmd, report.Formats)
	c.registerLedger(cmd)
	c.cache.registerOptIn(cmd)
	p.register(cmd)
	o.register(cmd, report.Formats)
	cmd.Flags().StringVar(&show, "show", report.ShowFindings, "key scopes the text report draws: findings (those with a finding or not settled) or all")
	cmd.Flags().StringVar(&baselinePath, "baseline", "", "a baseline `FILE` (from --write-baseline): only findings not in it fail the run; the others are reported as suppressed")
	cmd.Flags().StringVar(&writeBaseline, "write-baseline", "", "write every finding of this run to `FILE` as a baseline, and judge the run against it (exit 0 unless nothing was read)")
	cmd.Flags().StringVar(&failOn, "fail-on", "high", "lowest finding `SEVERITY` that exits 1: critical, high, medium, low, info or none")
	return cmd
}

// suppressions is what --baseline, --write-baseline and the waivers in
// --data ask of an analysis.
type suppressions struct {
	base         *baseline.File
	path, write  string
	waivers      []baseline.Waiver
	waiversGiven bool
}

// loadSuppressions reads the baseline and the waivers before anything is
// analyzed, so that a broken file fails fast (exit 2).
func loadSuppressions(path, write string, data []string) (*suppressions, error) {
	s := &suppressions{path: path, write: write}
	if path != "" && path == write {
		// Reading and rewriting one file in one run would pass every
		// finding of the run: name the new file apart.
		return nil, fail(ExitError, "--baseline and --write-baseline name the same file %s", path)
	}
	if path != "" {
		b, err := baseline.Read(path)
		if err != nil {
			return nil, fail(ExitError, "--baseline: %v", err)
		}
		s.base = b
	}
	if len(data) > 0 {
		d, err := policy.LoadData(data)
		if err != nil {
			return nil, fail(ExitError, "%v", err)
		}
		_, s.waiversGiven = d[baseline.DataName]
		if s.waivers, err = baseline.Waivers(d); err != nil {
			return nil, fail(ExitError, "--data: %v", err)
		}
	}
	return s, nil
}

// apply writes the new baseline if asked, then marks the report's findings.
func (s *suppressions) apply(rep *report.Report, now time.Time) error {
	base, path := s.base, s.path
	if s.write != "" && rep.Summary.Events > 0 {
		// A run that read nothing has no findings to record: writing an
		// empty baseline would only hide that (the run exits 2).
		b := baseline.FromReport(rep)
		if err := b.WriteFile(s.write); err != nil {
			return fail(ExitError, "--write-baseline: %v", err)
		}
		base, path = b, s.write
	}
	if base == nil && !s.waiversGiven {
		return nil
	}
	baseline.Apply(rep, base, path, s.waivers, now)
	return nil
}
