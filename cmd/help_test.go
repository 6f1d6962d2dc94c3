package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/effectlint/effectlint/internal/buildinfo"
	"github.com/effectlint/effectlint/report"
)

// everyCommand is the command tree as a user reaches it.
func everyCommand(t *testing.T) []*cobra.Command {
	t.Helper()
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || strings.HasPrefix(c.Name(), "__") {
			return
		}
		out = append(out, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(Env{}))
	return out
}

func TestHelp_EveryCommandHasAnExampleAndGroupedFlags(t *testing.T) {
	for _, c := range everyCommand(t) {
		t.Run(c.CommandPath(), func(t *testing.T) {
			out, stderr, code := run(t, append(strings.Fields(c.CommandPath())[1:], "--help")...)
			if code != ExitOK {
				t.Fatalf("--help: exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, "\nExamples:\n  ") {
				t.Errorf("no Examples section:\n%s", out)
			}
			if strings.Contains(out, "[=true|false]") {
				t.Errorf("[=true|false] noise:\n%s", out)
			}
			if !strings.Contains(out, "flags:\n") {
				t.Errorf("no flag group:\n%s", out)
			}
		})
	}
}

// A placeholder is a name in capitals (PATH, FROM=TO, PROVIDER/ID), never
// a phrase pflag took from the usage's back quotes, nor a Go type.
var placeholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9_=/-]*$`)

func TestHelp_PlaceholdersAndDefaults(t *testing.T) {
	for _, c := range everyCommand(t) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name := c.CommandPath() + " --" + f.Name
			p := placeholder(f)
			if f.Value.Type() == "bool" {
				if p != "" {
					t.Errorf("%s: a switch shows a value %q", name, p)
				}
			} else if !placeholderRE.MatchString(p) {
				t.Errorf("%s: placeholder %q", name, p)
			}
			u := flagUsage(f)
			if n := strings.Count(strings.ToLower(u), "default"); n > 1 {
				t.Errorf("%s: the default is said %d times: %q", name, n, u)
			}
			if strings.Contains(u, "`") {
				t.Errorf("%s: a back quote is left: %q", name, u)
			}
		})
	}
	// The flag the issue names: --profile effectlint profile.
	out, _, _ := run(t, "analyze", "--help")
	if !strings.Contains(out, "--profile FILE ") || strings.Contains(out, "--profile effectlint") {
		t.Errorf("--profile's placeholder:\n%s", out)
	}
	if !strings.Contains(out, "(default high)") || strings.Contains(out, `(default "high")`) {
		t.Errorf("--fail-on's default once and plainly:\n%s", out)
	}
}

func TestHelp_FormatListsOnlyTheFormatsTheCommandAccepts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"analyze", incident}, report.Formats},
		{[]string{"check", "--task", "t2", incident}, checkFormatList()},
	} {
		out, _, _ := run(t, c.args[0], "--help")
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "--format FORMAT") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("%s: no --format FORMAT in help:\n%s", c.args[0], out)
		}
		// The help lists exactly these, and each one runs (exit 0 or 1).
		for _, f := range report.Formats {
			listed := strings.Contains(line, " "+f+",") || strings.Contains(line, " "+f+" ") || strings.HasSuffix(line, " "+f)
			if listed != slices.Contains(c.want, f) {
				t.Errorf("%s --format help %q: %s listed=%v", c.args[0], line, f, listed)
			}
			if !listed {
				continue
			}
			_, stderr, code := run(t, append(append([]string{}, c.args[0], "--format", f), c.args[1:]...)...)
			if code == ExitError {
				t.Errorf("%s --format %s is listed but fails: %s", c.args[0], f, stderr)
			}
		}
	}
	if slices.Contains(checkFormatList(), "sarif") {
		t.Error("check lists sarif, which describes findings only")
	}
}

func TestComplete_FlagValues(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"analyze", "--format", ""}, report.Formats},
		{[]string{"check", "--format", ""}, checkFormatList()},
		{[]string{"analyze", "--format", "s"}, []string{"sarif"}},
		{[]string{"check", "--checkpoint", ""}, []string{"resume", "picker", "send"}},
		{[]string{"cross", "--checkpoint", ""}, []string{"picker", "send"}},
		{[]string{"analyze", "--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"analyze", "--fail-on", ""}, []string{"critical", "high", "medium", "low", "info", "none"}},
		{[]string{"facts", "--input-format", ""}, []string{"effectlint/v1", "claude-code", "openai", "otel", "temporal", "profile", "stepfunctions", "inspect-ai", "openinference", "langsmith", "playwright"}},
		{[]string{"claim", "--format", ""}, []string{"text", "json"}},
		{[]string{"settle", "--outcome", ""}, []string{"confirmed", "unknown", "not_crossed"}},
		{[]string{"check", "--output", "j"}, []string{"json=", "junit="}},
	}
	for _, c := range cases {
		out, stderr, code := run(t, append([]string{"__complete"}, c.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		got, directive := lines[:len(lines)-1], lines[len(lines)-1]
		if !slices.Equal(got, c.want) {
			t.Errorf("__complete %v = %q, want %q", c.args, got, c.want)
		}
		want := ":4" // ShellCompDirectiveNoFileComp
		if c.args[1] == "--output" {
			want = ":6" // and NoSpace: the path follows FORMAT=
		}
		if directive != want {
			t.Errorf("__complete %v directive %s, want %s", c.args, directive, want)
		}
	}
}

func TestFlagError_SuggestsTheFlagMeant(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--fromat", "json"}, "Did you mean --format?"},
		{[]string{"analyze", "--fail-no", "high"}, "Did you mean --fail-on?"},
		{[]string{"analyze", "--baseline-file", "b.json"}, "Did you mean --baseline?"},
		{[]string{"check", "--checkpiont", "send"}, "Did you mean --checkpoint?"},
		{[]string{"analyze", "--polcy=x.rego"}, "Did you mean --policy?"},
		{[]string{"check", "--fail-on", "high"}, "--fail-on is a flag of effectlint analyze."},
	}
	for _, c := range cases {
		_, stderr, code := run(t, append(c.args, incident)...)
		if code != ExitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	_, stderr, _ := run(t, "analyze", "--zzzzzz", incident)
	if strings.Contains(stderr, "Did you mean") {
		t.Errorf("a flag like no other got a suggestion: %q", stderr)
	}
}

func TestVersion_CommandAndFlag(t *testing.T) {
	out, _, code := run(t, "version")
	if code != ExitOK || out != "effectlint "+buildinfo.Devel+"\n" {
		t.Errorf("version: exit %d %q", code, out)
	}
	out, _, code = run(t, "--version")
	if code != ExitOK || out != "effectlint "+buildinfo.Devel+"\n" {
		t.Errorf("--version: exit %d %q", code, out)
	}
	out, _, code = run(t, "version", "--format", "json")
	if code != ExitOK || !strings.Contains(out, `"name": "effectlint"`) || !strings.Contains(out, `"version": "(devel)"`) {
		t.Errorf("version --format json: exit %d %q", code, out)
	}
	if _, _, code := run(t, "version", "--format", "xml"); code != ExitError {
		t.Errorf("version --format xml: exit %d, want 2", code)
	}
}

// shellWords splits a command line as sh would for the examples' simple
// quoting ('…' and "…"); ok is false for anything else (pipes,
// redirections, substitutions), which the test does not run.
func shellWords(line string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(line[i+1:], ch)
			if j < 0 {
				return nil, false
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case ch == '~' && !inWord:
			w.WriteString(os.Getenv("HOME"))
			inWord = true
		case strings.IndexByte("|<>;&$~`(){}*", ch) >= 0:
			return nil, false
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

func TestHelp_ExamplesRun(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv(LedgerEnv, filepath.Join(dir, "ledger.db"))
	t.Setenv("HOME", dir)
	// The ledger's flow in its order: init, claim, cross, settle, then
	// the rest.
	first := []string{"effectlint ledger init", "effectlint claim", "effectlint cross", "effectlint settle", "effectlint authorize"}
	cmds := everyCommand(t)
	slices.SortStableFunc(cmds, func(a, b *cobra.Command) int {
		ia, ib := slices.Index(first, a.CommandPath()), slices.Index(first, b.CommandPath())
		if ia < 0 {
			ia = len(first)
		}
		if ib < 0 {
			ib = len(first)
		}
		return ia - ib
	})
	ran := 0
	for _, c := range cmds {
		path := c.CommandPath()
		if path == "effectlint mcp" || strings.HasPrefix(path, "effectlint completion") {
			continue // a server, and shell set-up: not one-shot commands
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			// echo 'JSON' | effectlint …: the JSON is standard input.
			stdin := ""
			if rest, ok := strings.CutPrefix(line, "echo '"); ok {
				if in, cmdline, ok := strings.Cut(rest, "' | "); ok && !strings.Contains(in, "'") {
					stdin, line = in+"\n", cmdline
				}
			}
			if !strings.HasPrefix(line, "effectlint ") {
				continue
			}
			words, ok := shellWords(line)
			if !ok {
				t.Errorf("%s: example %q is not a plain command line", path, line)
				continue
			}
			_, stderr, code := runWith(t, stdin, builtinRules(t), words[1:]...)
			// 1 is an answer of these (findings, stop, refusal); of the
			// others, and 2 of any, a broken example.
			answers := slices.Contains([]string{"effectlint", "effectlint analyze", "effectlint check", "effectlint explain", "effectlint claim"}, path)
			if code == ExitError || code == ExitFindings && !answers {
				t.Errorf("%s: example %q exits %d: %s", path, line, code, stderr)
			}
			ran++
		}
	}
	if ran < 30 {
		t.Errorf("only %d example lines ran", ran)
	}
}

func TestFlagUsages_ForGeneratedDocs(t *testing.T) {
	c, _, err := newRoot(Env{}).Find([]string{"analyze"})
	if err != nil {
		t.Fatal(err)
	}
	out := FlagUsages(c, 80)
	for _, want := range []string{"Input flags:\n", "Policy flags:\n", "Output flags:\n", "Limit flags:\n", "--profile FILE", "--require-checks "} {
		if !strings.Contains(out, want) {
			t.Errorf("FlagUsages lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
	}
	if strings.Contains(out, "[=true|false]") || strings.HasPrefix(out, "\n") {
		t.Errorf("FlagUsages:\n%s", out)
	}
}
