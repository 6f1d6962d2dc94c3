package cmd

import (
	"encoding/json"

	"github.com/spf13/cobra"
)

func newFacts(env Env) *cobra.Command {
	var c commonFlags
	cmd := &cobra.Command{
		Use:   "facts [flags] PATH...",
		Short: "Print the exact input the policy sees, as JSON",
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := newGate(env, &c, nil)
			if err != nil {
				return err
			}
			facts, err := g.Facts(args)
			if err != nil {
				return gateFailed(err)
			}
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(facts); err != nil {
				return fail(ExitError, "writing facts: %v", err)
			}
			return nil
		},
	}
	c.registerInputFlags(cmd)
	c.cache.registerOptIn(cmd)
	return cmd
}
