package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newKey(env Env) *cobra.Command {
	var f intentFlags
	cmd := &cobra.Command{
		Use:   "key --destination PROVIDER/ID|--title TITLE (--file F | --sha256 H)",
		Short: "Print the canonical idempotency key of a destination and content",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.spec()
			if err != nil {
				return err
			}
			k, err := s.Compute()
			if err != nil {
				return fail(ExitError, "%v: give --destination PROVIDER/ID or --title TITLE, and --file F or --sha256 H", err)
			}
			fmt.Fprintln(env.Stdout, k.String())
			return nil
		},
	}
	f.register(cmd, false)
	return cmd
}
