package cmd

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/report"
)

// check fails closed: every error exits 2, and callers treat every
// non-zero exit as stop.
func newCheck(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var o outputFlags
	var f intentFlags
	var task, checkpoint string
	cmd := &cobra.Command{
		Use:   "check --task T [--checkpoint resume|picker|send] [flags] PATH...",
		Short: "Pre-resume safety check: may task T cross the delivery boundary now?",
		RunE: func(cmd *cobra.Command, args []string) error {
			if task == "" {
				return fail(ExitError, "--task is required")
			}
			if _, err := effect.ParseCheckpoint(checkpoint); err != nil {
				return fail(ExitError, "--%v", err)
			}
			r, err := c.renderer()
			if err != nil {
				return err
			}
			outs, err := o.parse(c.color)
			if err != nil {
				return err
			}
			if err := checkFormats(c.format, outs); err != nil {
				return err
			}
			spec, err := f.spec()
			if err != nil {
				return err
			}
			// A check is one short run, often before every click: with the
			// collector's default it would collect at every doubling of a
			// small heap while reading. 4× the live heap between collections
			// costs a few MB and 10-20 % of the time; the soft memory limit
			// (main.go) still bounds a large history (past about 300 MB live,
			// at 1.25× the live heap: internal/memlimit). GOGC overrides it.
			if os.Getenv("GOGC") == "" {
				defer debug.SetGCPercent(debug.SetGCPercent(400))
			}
			defer c.done()
			meter, withProgress := startProgress(env)
			defer meter.Stop()
			g, err := newGate(env, &c, &p, withProgress)
			if err != nil {
				return err
			}
			d := g.Check(context.Background(), gate.Request{Task: task, Checkpoint: checkpoint, Intent: spec, Paths: args})
			meter.Stop()
			if d.Err != nil {
				// Exit 2, which callers treat as stop (the decision is one).
				return gateFailed(d.Err)
			}
			rep := d.CheckReport
			if err := r.Check(env.Stdout, rep); err != nil {
				return fail(ExitError, "writing the decision: %v", err)
			}
			if err := writeOutputs(outs, func(_ string, r report.Renderer, f *os.File) error { return r.Check(f, rep) }); err != nil {
				return err
			}
			if rep.Decision != "allow" {
				return &exitError{code: ExitFindings}
			}
			return nil
		},
	}
	c.register(cmd, checkFormatList())
	c.registerLedger(cmd)
	c.cache.register(cmd)
	p.register(cmd)
	o.register(cmd, checkFormatList())
	f.register(cmd, true)
	cmd.Flags().StringVar(&f.authorization, "authorization", "", "authorization `ID` the new intent delivers under (a redelivery)")
	cmd.Flags().StringVar(&task, "task", "", "the `TASK` asking (required)")
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "resume", "the `CHECKPOINT` asked about: resume (the strictest), picker or send")
	return cmd
}
