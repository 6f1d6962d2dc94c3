package cmd

import (
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/transcripts/cache"
	"github.com/spf13/cobra"
)

// cacheFlags are --cache and --no-cache: where the cache of parsed facts
// lives (docs/cache.md). The cache never changes a verdict. It is on by
// default where the same histories are asked about again and again (check,
// explain, the hook, the MCP server); analyze and facts, one pass over a
// corpus, often on a fresh CI runner, use it only when --cache names a
// folder: a cold cache costs a first run about half as much again, and
// writes a few per cent of the corpus to disk.
type cacheFlags struct {
	dir       string
	off       bool
	enabled   bool // the command has the flags
	byDefault bool // on unless --no-cache (else only with --cache DIR)
}

func (f *cacheFlags) register(cmd *cobra.Command) {
	f.enabled, f.byDefault = true, true
	cmd.Flags().StringVar(&f.dir, "cache", "", "keep the cache of parsed facts in `DIR` (default: effectlint under the user's cache folder); it never changes a verdict")
	cmd.Flags().BoolVar(&f.off, "no-cache", false, "read every history whole, without the cache of parsed facts")
}

// registerOptIn is register for a command that reads without the cache
// unless --cache names its folder.
func (f *cacheFlags) registerOptIn(cmd *cobra.Command) {
	f.enabled = true
	cmd.Flags().StringVar(&f.dir, "cache", "", "keep a cache of parsed facts in `DIR`, so that a later run over the same histories reads only what changed (default: no cache); it never changes a verdict")
	cmd.Flags().BoolVar(&f.off, "no-cache", false, "read every history whole, without the cache of parsed facts (the default here)")
}

// option is the gate option of the flags: no cache when it is off, or
// when no folder can be named (no home), which only costs speed.
func (f *cacheFlags) option() gate.Option {
	if !f.enabled || f.off || (!f.byDefault && f.dir == "") {
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
