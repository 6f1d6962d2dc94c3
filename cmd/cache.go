package cmd

import (
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/transcripts/cache"
	"github.com/spf13/cobra"
)

// cacheFlags are --cache and --no-cache: where the cache of parsed facts
// lives (docs/cache.md). The cache never changes a verdict, so it is on by
// default wherever histories are read again and again (check, the hook,
// analyze, explain, the MCP server).
type cacheFlags struct {
	dir     string
	off     bool
	enabled bool // the command has the flags
}

func (f *cacheFlags) register(cmd *cobra.Command) {
	f.enabled = true
	cmd.Flags().StringVar(&f.dir, "cache", "", "keep the cache of parsed facts in `DIR` (default: effectlint under the user's cache folder); it never changes a verdict")
	cmd.Flags().BoolVar(&f.off, "no-cache", false, "read every history whole, without the cache of parsed facts")
}

// option is the gate option of the flags: no cache when it is off, or
// when no folder can be named (no home), which only costs speed.
func (f *cacheFlags) option() gate.Option {
	if !f.enabled || f.off {
		return gate.WithCache("")
	}
	dir := f.dir
	if dir == "" {
		d, err := cache.DefaultDir()
		if err != nil {
			return gate.WithCache("")
		}
		dir = d
	}
	return gate.WithCache(dir)
}

// args are the flags as given, for a command line printed to run later
// (the hook's settings entry).
func (f *cacheFlags) args() []string {
	switch {
	case f.off:
		return []string{"--no-cache"}
	case f.dir != "":
		return []string{"--cache", f.dir}
	}
	return nil
}
