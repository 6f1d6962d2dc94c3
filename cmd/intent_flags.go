package cmd

import (
	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/ops"
)

// intentFlags name an intent on the command line (check, key).
type intentFlags struct {
	key, destination, title, file, sha256, authorization string
}

func (f *intentFlags) register(cmd *cobra.Command, withKey bool) {
	if withKey {
		cmd.Flags().StringVar(&f.key, "key", "", "the idempotency `KEY`, as effectlint key prints it")
	}
	cmd.Flags().StringVar(&f.destination, "destination", "", "destination as `PROVIDER/ID` (e.g. slack/C024BE91L)")
	cmd.Flags().StringVar(&f.title, "title", "", "destination display `TITLE`: alone, a weak destination (two channels can share a title); with --destination, the channel's title, so crossings known by that title alone stop the check too")
	cmd.Flags().StringVar(&f.file, "file", "", "content `FILE` to hash")
	cmd.Flags().StringVar(&f.sha256, "sha256", "", "content SHA-256 (64 `HEX` digits)")
}

// intent is the intent the flags name.
func (f *intentFlags) intent() ops.Intent {
	return ops.Intent{Key: f.key, Destination: f.destination, Title: f.title, File: f.file, SHA256: f.sha256, Authorization: f.authorization}
}

// spec reads the flags for the gate: --title with --destination names the
// channel's title too (the key stays provider/id), so the gate also weighs
// crossings known by that title alone; --title alone is a weak
// destination.
func (f *intentFlags) spec() (analyzer.IntentSpec, error) {
	s, err := f.intent().Spec()
	if err != nil {
		return s, fail(ExitError, "%v", err)
	}
	return s, nil
}
