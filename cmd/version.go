package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/internal/buildinfo"
)

// newVersion is `effectlint version`: the build that runs, as the reports
// record it (SARIF tool.driver.version, the JSON reports' tool).
func newVersion(env Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print effectlint's version, VCS revision and build time",
		Long: `Print the module version of this effectlint (v1.2.3 when installed with
go install …@v1.2.3, a pseudo-version for a commit, (devel) for a build
from a checkout), and the VCS revision, commit time and whether the tree
had uncommitted changes when the build recorded them. Release builds may
set each with -ldflags "-X github.com/effectlint/effectlint/internal/buildinfo.version=v1.2.3".`,
		Example: `  effectlint version
  effectlint version --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in := buildinfo.Get()
			switch format {
			case "text":
				fmt.Fprintln(env.Stdout, "effectlint", in.Version)
				if in.Revision != "" {
					fmt.Fprintln(env.Stdout, "revision:", in.Revision)
				}
				if in.Time != "" {
					fmt.Fprintln(env.Stdout, "time:    ", in.Time)
				}
				if in.Modified {
					fmt.Fprintln(env.Stdout, "modified: true (built from a tree with uncommitted changes)")
				}
				if in.GoVersion != "" {
					fmt.Fprintln(env.Stdout, "go:      ", in.GoVersion)
				}
				return nil
			case "json":
				b, err := json.MarshalIndent(struct {
					Name string `json:"name"`
					buildinfo.Info
				}{"effectlint", in}, "", "  ")
				if err != nil {
					return fail(ExitError, "%v", err)
				}
				fmt.Fprintln(env.Stdout, string(b))
				return nil
			}
			return fail(ExitError, "--format must be text or json, not %q", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
