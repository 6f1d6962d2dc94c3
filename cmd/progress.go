package cmd

import (
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/internal/progress"
)

// startProgress starts the progress line of a run that reads inputs: on
// standard error, only when it is a terminal and CI is not set, and only
// once the run has taken about a second (see internal/progress). Stop the
// meter before writing the report (nil-safe, idempotent).
func startProgress(env Env) (*progress.Meter, gate.Option) {
	f, ok := env.Stderr.(*os.File)
	tty := ok && term.IsTerminal(f.Fd())
	m := progress.Start(env.Stderr, progress.Enabled(tty, os.Getenv), progress.DefaultDelay, progress.DefaultEvery)
	if m == nil {
		return nil, gate.WithProgress(nil)
	}
	return m, gate.WithProgress(m.Add)
}
