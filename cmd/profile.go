package cmd

import (
	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/transcripts"
)

// newProfile prints the built-in conventions: the file users copy to write
// their own --profile.
func newProfile(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "profile",
		Short: "Print the built-in tool conventions as a profile to copy and extend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := env.Stdout.Write(transcripts.BuiltinProfile())
			return err
		},
	}
}
