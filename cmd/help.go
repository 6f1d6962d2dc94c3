package cmd

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/internal/editdist"
	"github.com/effectlint/effectlint/transcripts"
)

// Help like the best CLIs' (issue 16): an Example section on every command,
// flags grouped by what they change, a placeholder name for every value,
// one default, no "[=true|false]" (pflag 1.1 prints it for every bool),
// completion of flag values, and "did you mean" for a mistyped flag.
// Cobra's flag groups are for validation only, so the grouping is a usage
// template over an annotation on each flag.

// Flag annotations.
const (
	groupAnnotation  = "effectlint_group"  // a flagGroups name
	valuesAnnotation = "effectlint_values" // the values completion offers
)

// flagGroups are the sections of a command's flags, in order.
var flagGroups = []struct{ name, title string }{
	{"intent", "Intent flags (the delivery asked about)"},
	{"input", "Input flags"},
	{"policy", "Policy flags"},
	{"output", "Output flags"},
	{"limits", "Limit flags"},
	{"", "Other flags"},
}

// groupOf places a flag by name; a command may annotate its own flag
// otherwise before setupHelp runs.
var groupOf = map[string]string{
	"task": "intent", "checkpoint": "intent", "key": "intent", "scope": "intent", "destination": "intent",
	"title": "intent", "file": "intent", "sha256": "intent", "authorization": "intent",

	"as-of": "input", "ignore": "input", "input-format": "input", "path-map": "input", "profile": "input",
	"ledger": "input", "history": "input", "require-checks": "input", "cache": "input", "no-cache": "input",

	"policy": "policy", "data": "policy", "fail-on": "policy", "baseline": "policy", "run": "policy",

	"format": "output", "color": "output", "output": "output", "write-baseline": "output", "show": "output",

	"max-line-bytes": "limits", "max-problems": "limits", "timeout": "limits", "deadline": "limits", "lease": "limits",
}

// placeholders name the value of a flag whose usage has no back-quoted
// word.
var placeholders = map[string]string{
	"ledger": "LEDGER", "history": "PATH", "http": "ADDR", "run": "REGEXP", "before": "TIME",
	"lease": "DURATION", "deadline": "DURATION", "token": "N", "outcome": "OUTCOME", "by": "WHO",
	"reason": "TEXT", "scope": "SCOPE", "key": "KEY", "authorization": "ID", "data": "PATH",
	"policy": "PATH", "format": "FORMAT", "checkpoint": "CHECKPOINT", "task": "TASK", "ref": "REF",
	"max-line-bytes": "BYTES", "timeout": "DURATION", "show": "SCOPES", "color": "WHEN", "ignore": "GLOB", "path-map": "FROM=TO",
}

// typeNames name a value by its type when the usage gives no back-quoted
// placeholder (pflag would print "stringArray").
var typeNames = map[string]string{
	"string": "STRING", "stringArray": "STRING", "stringSlice": "STRING", "int": "N", "int64": "N",
	"duration": "DURATION", "float64": "NUMBER",
}

// completionValues are the values of the flags that take one of a few.
func completionValues(cmd *cobra.Command, name string) []string {
	if f := cmd.Flags().Lookup(name); f != nil {
		if v, ok := f.Annotations[valuesAnnotation]; ok {
			return v
		}
	}
	switch name {
	case "format":
		return []string{"text", "json"}
	case "checkpoint":
		if cmd.Name() == "cross" {
			return []string{string(effect.Picker), string(effect.Send)}
		}
		return []string{string(effect.Resume), string(effect.Picker), string(effect.Send)}
	case "color":
		return []string{"auto", "always", "never"}
	case "fail-on":
		return []string{"critical", "high", "medium", "low", "info", "none"}
	case "input-format":
		return transcripts.Formats
	case "outcome":
		return []string{"confirmed", "unknown", "not_crossed"}
	case "show":
		// analyze --show (the text report's key scopes), once it lands.
		return []string{"findings", "all"}
	case "output":
		var out []string
		for _, f := range completionValues(cmd, "format") {
			out = append(out, f+"=")
		}
		return out
	}
	return nil
}

// setupHelp installs the usage template, the flag error function and the
// completions on the whole tree, and gives each command its example.
func setupHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetUsageTemplate(usageTemplate)
	root.SetFlagErrorFunc(flagError)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		if c.Example == "" {
			c.Example = examples[c.CommandPath()]
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := f.Annotations[groupAnnotation]; !ok {
				if g, ok := groupOf[f.Name]; ok {
					_ = c.Flags().SetAnnotation(f.Name, groupAnnotation, []string{g})
				}
			}
			if vals := completionValues(c, f.Name); vals != nil {
				name := f.Name
				nospace := name == "output"
				_ = c.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
					d := cobra.ShellCompDirectiveNoFileComp
					if nospace {
						d |= cobra.ShellCompDirectiveNoSpace
					}
					var out []string
					for _, v := range completionValues(cmd, name) {
						if strings.HasPrefix(v, toComplete) {
							out = append(out, v)
						}
					}
					return out, d
				})
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func init() {
	cobra.AddTemplateFunc("effectlintFlags", func(c *cobra.Command) string { return groupedFlags(c, helpWidth()) })
}

// usageTemplate is cobra's, with an Examples heading and grouped flags.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if or .HasAvailableLocalFlags .HasAvailableInheritedFlags}}{{effectlintFlags .}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// helpWidth is the width flag help is wrapped to: $COLUMNS when it is
// set and sensible, else 100.
func helpWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 60 {
		return min(n, 160)
	}
	return 100
}

// groupedFlags lists a command's flags (its own and inherited) by group,
// each group aligned on its own, wrapped to width.
func groupedFlags(c *cobra.Command, width int) string {
	byGroup := map[string][]*pflag.Flag{}
	add := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := ""
		if v := f.Annotations[groupAnnotation]; len(v) > 0 {
			g = v[0]
		}
		byGroup[g] = append(byGroup[g], f)
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	var b strings.Builder
	for _, g := range flagGroups {
		fs := byGroup[g.name]
		if len(fs) == 0 {
			continue
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
		b.WriteString("\n\n" + g.title + ":\n")
		b.WriteString(strings.TrimRight(flagLines(fs, width), "\n"))
	}
	return b.String()
}

// FlagUsages is a command's flags as its --help lists them (grouped, one
// placeholder, one default, wrapped to width), for generated docs: pflag's
// own FlagUsages prints "[=true|false]" and its defaults as they are.
func FlagUsages(c *cobra.Command, width int) string {
	return strings.TrimPrefix(groupedFlags(c, width), "\n\n") + "\n"
}

// flagName is "  -s, --name VALUE" of one flag.
func flagName(f *pflag.Flag) string {
	s := "      --" + f.Name
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		s = "  -" + f.Shorthand + ", --" + f.Name
	}
	if v := placeholder(f); v != "" {
		s += " " + v
	}
	return s
}

// placeholder is the back-quoted word of the usage, else a name for the
// type; none for a bool (a switch takes no value).
func placeholder(f *pflag.Flag) string {
	if f.Value.Type() == "bool" {
		return ""
	}
	if i := strings.IndexByte(f.Usage, '`'); i >= 0 {
		if j := strings.IndexByte(f.Usage[i+1:], '`'); j >= 0 {
			return f.Usage[i+1 : i+1+j]
		}
	}
	if n, ok := placeholders[f.Name]; ok {
		return n
	}
	if n, ok := typeNames[f.Value.Type()]; ok {
		return n
	}
	return f.Value.Type()
}

// flagUsage is the flag's help without back quotes, with its default when
// it has one worth saying that the help does not already say.
func flagUsage(f *pflag.Flag) string {
	u := strings.ReplaceAll(f.Usage, "`", "")
	if f.Value.Type() == "bool" || strings.Contains(strings.ToLower(u), "default") {
		return u
	}
	switch f.DefValue {
	case "", "0", "0s", "[]", "false":
		return u
	}
	d := f.DefValue
	if f.Name == "max-line-bytes" {
		if n, err := strconv.Atoi(d); err == nil && n%(1<<20) == 0 {
			d = fmt.Sprintf("%d MiB", n>>20)
		}
	}
	return u + " (default " + d + ")"
}

// flagLines aligns the flags' help in one column, wrapped to width.
func flagLines(fs []*pflag.Flag, width int) string {
	col := 0
	for _, f := range fs {
		col = max(col, len(flagName(f)))
	}
	col = min(col+3, 40)
	var b strings.Builder
	for _, f := range fs {
		name := flagName(f)
		b.WriteString(name)
		pad := col - len(name)
		if pad < 2 {
			b.WriteString("\n" + strings.Repeat(" ", col))
		} else {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(wrap(flagUsage(f), width-col, col))
		b.WriteString("\n")
	}
	return b.String()
}

// wrap breaks text at spaces into lines of at most width cells, each after
// the first indented by indent.
func wrap(text string, width, indent int) string {
	width = max(width, 30)
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 {
			if n+1+len([]rune(w)) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len([]rune(w))
	}
	return b.String()
}

// flagError adds "did you mean --X?" to an unknown flag, from the command's
// own flags: cobra suggests commands only.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var typed string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		typed = strings.TrimPrefix(msg, "unknown flag: --")
	default:
		return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	}
	typed, _, _ = strings.Cut(typed, "=")
	if s := suggestFlag(c, typed); s != "" {
		return fmt.Errorf("%w\nDid you mean --%s?\nRun '%s --help' for usage.", err, s, c.CommandPath())
	}
	if others := commandsWithFlag(c.Root(), typed); len(others) > 0 {
		return fmt.Errorf("%w\n--%s is a flag of %s.\nRun '%s --help' for usage.", err, typed, strings.Join(others, ", "), c.CommandPath())
	}
	return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
}

// commandsWithFlag are the commands that have a flag of that name.
func commandsWithFlag(c *cobra.Command, name string) []string {
	var out []string
	if f := c.LocalNonPersistentFlags().Lookup(name); f != nil && !f.Hidden && name != "help" {
		out = append(out, c.CommandPath())
	}
	for _, sub := range c.Commands() {
		out = append(out, commandsWithFlag(sub, name)...)
	}
	return out
}

// suggestFlag is the command's flag nearest to typed: within an edit
// distance of 2 (1 for short names), or one that starts with it or that it
// starts with; ties go to the nearest, then the first in name order.
func suggestFlag(c *cobra.Command, typed string) string {
	best, bestD := "", 1<<30
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editdist.Within(strings.ToLower(typed), f.Name, -1)
		limit := 2
		if len(typed) <= 4 {
			limit = 1
		}
		if d > limit && !(len(typed) >= 3 && (strings.HasPrefix(f.Name, typed) || strings.HasPrefix(typed, f.Name))) {
			return
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}
