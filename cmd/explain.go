package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/gate"
)

// explain says why a key scope has its state, or why the gate decided as it
// did: the rules that fired (from OPA's trace) and the facts they rest on.
func newExplain(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var f intentFlags
	var key, scope, task, checkpoint string
	cmd := &cobra.Command{
		Use:   "explain (--key K [--scope S] | --task T [--checkpoint C] [intent flags]) [flags] PATH...",
		Short: "Why a key scope has its state, or why the gate decides allow or stop",
		Long: `explain --key K prints, for each scope of key K (or only --scope S), its state,
the rule definitions that decided it (read from OPA's trace of the evaluation)
with the facts that made them hold, and the findings on it.

explain --task T [--checkpoint C] prints the gate's decision for T at C (default
resume) — a task with no history names its intent with --destination or
--title and --file or --sha256, as for check — with each reason, the rule definition that produced it and the facts it
rests on, and why the key scope's evidence has the state that decided.

Every fact is shown with its file:line. Exit 0 when the explanation was
printed (whatever it says), 2 on any error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (key == "") == (task == "") {
				return fail(ExitError, "give either --key K or --task T")
			}
			if key != "" && cmd.Flags().Changed("checkpoint") {
				return fail(ExitError, "--checkpoint goes with --task")
			}
			if task != "" && scope != "" {
				return fail(ExitError, "--scope goes with --key")
			}
			if key != "" && (f.destination != "" || f.title != "" || f.file != "" || f.sha256 != "" || f.authorization != "") {
				return fail(ExitError, "the intent flags go with --task")
			}
			if _, err := effect.ParseCheckpoint(checkpoint); err != nil {
				return fail(ExitError, "--%v", err)
			}
			if key != "" {
				if _, err := effect.ParseKey(key); err != nil {
					return fail(ExitError, "--key: %v", err)
				}
			}
			spec, err := f.spec()
			if err != nil {
				return err
			}
			defer c.done()
			meter, withProgress := startProgress(env)
			defer meter.Stop()
			g, err := newGate(env, &c, &p, gate.WithPoliciesOfEitherKind(), withProgress)
			if err != nil {
				return err
			}
			x, err := g.Explain(context.Background(), gate.ExplainRequest{Key: key, Scope: scope, Task: task, Checkpoint: checkpoint, Intent: spec, Paths: args})
			meter.Stop()
			if err != nil {
				return gateFailed(err)
			}
			if err := x.WriteText(env.Stdout); err != nil {
				return fail(ExitError, "writing the explanation: %v", err)
			}
			return nil
		},
	}
	c.registerInputFlags(cmd)
	c.registerLedger(cmd)
	c.cache.register(cmd)
	p.register(cmd)
	cmd.Flags().StringVar(&key, "key", "", "explain the state of this `KEY`'s scopes (as effectlint key prints it)")
	cmd.Flags().StringVar(&scope, "scope", "", "with --key: only this scope (original, or an authorization id)")
	cmd.Flags().StringVar(&task, "task", "", "explain the gate's decision for this task")
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "resume", "with --task: resume, picker or send")
	f.register(cmd, false)
	cmd.Flags().StringVar(&f.authorization, "authorization", "", "with --task: authorization id the new intent delivers under")
	return cmd
}
