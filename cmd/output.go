package cmd

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/report"
)

// outputFlags is --output FORMAT=PATH (repeatable): more formats from the
// same run, each written to a file; standard output keeps --format. CI uses
// it to get SARIF, JUnit and annotations from one evaluation.
type outputFlags struct {
	specs []string
	// show is analyze's --show, for a text report written to a file.
	show string
}

func (o *outputFlags) register(cmd *cobra.Command, formats []string) {
	cmd.Flags().StringArrayVar(&o.specs, "output", nil,
		"also write `FORMAT=PATH` (repeatable), e.g. --output sarif=effectlint.sarif; formats: "+strings.Join(formats, ", "))
}

// output is one extra report to write.
type output struct {
	format, path string
	r            report.Renderer
}

// parse checks every --output before anything is read, so a typo fails
// fast (exit 2) instead of after a long analysis.
func (o *outputFlags) parse(color string) ([]output, error) {
	var outs []output
	seen := map[string]bool{}
	for _, spec := range o.specs {
		format, path, ok := strings.Cut(spec, "=")
		if !ok || format == "" || path == "" {
			return nil, fail(ExitError, "--output %q: want FORMAT=PATH, e.g. sarif=effectlint.sarif", spec)
		}
		if path == "-" {
			return nil, fail(ExitError, "--output %q: standard output carries --format; name a file", spec)
		}
		if seen[path] {
			return nil, fail(ExitError, "--output: %s is named twice", path)
		}
		seen[path] = true
		// A file is not a terminal: with --color auto it gets no color.
		r, err := report.Get(format, report.Options{Color: color, Show: o.show})
		if err != nil {
			return nil, fail(ExitError, "--output %q: %v", spec, err)
		}
		outs = append(outs, output{format: format, path: path, r: r})
	}
	return outs, nil
}

// write creates each file and renders into it with render.
func writeOutputs(outs []output, render func(format string, r report.Renderer, f *os.File) error) error {
	for _, o := range outs {
		f, err := os.Create(o.path)
		if err != nil {
			return fail(ExitError, "--output %s: %v", o.format, err)
		}
		err = render(o.format, o.r, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fail(ExitError, "--output %s=%s: %v", o.format, o.path, err)
		}
	}
	return nil
}

// checkFormatList are the formats that can render a gate decision.
func checkFormatList() []string {
	var out []string
	for _, f := range report.Formats {
		if report.DescribesChecks(f) {
			out = append(out, f)
		}
	}
	return out
}

// checkFormats refuses, before anything is read, the formats that have
// nothing to say about a gate decision (SARIF describes findings).
func checkFormats(format string, outs []output) error {
	if !report.DescribesChecks(format) {
		return fail(ExitError, "--format %s describes findings: use it with analyze", format)
	}
	for _, o := range outs {
		if !report.DescribesChecks(o.format) {
			return fail(ExitError, "--output %s describes findings: use it with analyze", o.format)
		}
	}
	return nil
}
