package report

import (
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
)

// DefaultWidth is the width of the text report when neither COLUMNS nor a
// terminal says otherwise (a pipe, a file, a CI log).
const DefaultWidth = 100

// minWidth keeps the layout sane on absurdly narrow terminals; lines may
// then run over rather than lose their file:line.
const minWidth = 60

// termWidth is the width the text report fits: Options.Width when set,
// else COLUMNS (as shells and CI runners set it), else the terminal w is
// attached to, else DefaultWidth.
func termWidth(w io.Writer, width int) int {
	if width <= 0 {
		width = DefaultWidth
		if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
			width = c
		} else if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(f.Fd()) {
			if tw, _, err := term.GetSize(f.Fd()); err == nil && tw > 0 {
				width = tw
			}
		}
	}
	return max(width, minWidth)
}
