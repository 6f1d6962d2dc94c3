// Package cmd holds effectlint's commands: one file per command, each
// wiring transcripts → analyzer → policy → report.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/buildinfo"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/policy/builtin"
	"github.com/effectlint/effectlint/report"
	"github.com/effectlint/effectlint/transcripts"
)

// Exit codes (SPEC §7).
const (
	ExitOK       = 0 // analyze: no finding at or above --fail-on; check: allow
	ExitFindings = 1 // analyze: findings at or above --fail-on; check: stop
	ExitError    = 2 // usage error, no input, policy error; for check any error
)

// Env is what a run reads and writes; tests give their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// rules replaces the built-in rules (policy/builtin) when set: tests
	// give broken rules to see every command fail closed on them.
	rules string
}

// builtinRules is the built-in policy as a module.
func (env Env) builtinRules() policy.Module {
	if env.rules != "" {
		return policy.Module{Name: builtin.RulesName, Source: env.rules}
	}
	return policy.Module{Name: builtin.RulesName, Source: builtin.Rules}
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// Main runs effectlint with args and returns the exit code.
func Main(args []string, env Env) (code int) {
	// A bug must never look like a verdict: a panic exits 2, which callers
	// of check treat as stop.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "effectlint: internal error: %v\n", r)
			code = ExitError
		}
	}()
	root := newRoot(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(env.Stderr, "effectlint:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, missing argument) are usage errors.
	fmt.Fprintln(env.Stderr, "effectlint:", err)
	return ExitError
}

func newRoot(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "effectlint",
		Short: "Transcript forensics and policy linting for automation with external side effects",
		Long: `effectlint reads agent transcripts and task histories, turns them into
side-effect evidence facts, and lets Rego rules decide per idempotency key
whether a delivery is not_sent, sent_verified or send_status_unknown, whether
a task may cross the delivery boundary now, and which tasks did something risky.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the same line as the first of `effectlint version`.
		Version: buildinfo.Get().String(),
	}
	root.SetVersionTemplate("effectlint {{.Version}}\n")
	root.AddCommand(newVersion(env), newAnalyze(env), newCheck(env), newFacts(env), newKey(env), newProfile(env),
		newClaim(env), newCross(env), newSettle(env), newAuthorize(env), newLedger(env), newMCP(env), newHook(env))
	addPolicyCommands(root, env)
	setupHelp(root)
	return root
}

// commonFlags are the flags of the commands that read inputs.
type commonFlags struct {
	// pathMaps are --path-map FROM=TO; ignore are --ignore globs.
	pathMaps []string
	ignore   []string
	// strictInputs: an input no reader recognizes is a problem (check
	// fails closed on what it cannot read), not a notice.
	strictInputs  bool
	format        string
	color         string
	maxLineBytes  int
	maxProblems   int
	asOf          string
	inputFormat   string
	profile       string
	requireChecks bool
	// ledger is --ledger: a key ledger whose journal joins the histories.
	ledger  ledgerFlag
	closers []func()
	cache   cacheFlags
}

// registerLedger adds --ledger (check, analyze, explain).
func (c *commonFlags) registerLedger(cmd *cobra.Command) {
	cmd.Flags().Var(&c.ledger, "ledger", "a key `LEDGER` (PATH, sqlite:PATH or postgres://…) whose journal joins the histories as evidence; one that cannot be read stops every check (given empty: $"+LedgerEnv+", else the file effectlint ledger where prints, as for claim)")
}

// ledgerFlag is --ledger, remembering whether it was given at all: given
// empty (--ledger "$LEDGER" with the variable unset) it names the ledger
// claim would use, never none (a seventh review: check then read no
// ledger and allowed what claim refused).
type ledgerFlag struct {
	spec string
	set  bool
}

func (l *ledgerFlag) String() string { return l.spec }
func (l *ledgerFlag) Type() string   { return "string" }
func (l *ledgerFlag) Set(v string) error {
	l.spec, l.set = v, true
	return nil
}

// resolve is the ledger to read ("", false: none).
func (l *ledgerFlag) resolve() (string, bool) {
	if !l.set {
		return "", false
	}
	if l.spec == "" {
		return os.Getenv(LedgerEnv), true
	}
	return l.spec, true
}

// done releases what the run opened (a ledger).
func (c *commonFlags) done() {
	for _, f := range c.closers {
		f()
	}
	c.closers = nil
}

// register adds the output and input flags; formats are the --format
// values the command accepts (its help lists only those).
func (c *commonFlags) register(cmd *cobra.Command, formats []string) {
	cmd.Flags().StringVar(&c.format, "format", "text", "output format: "+strings.Join(formats, ", "))
	_ = cmd.Flags().SetAnnotation("format", valuesAnnotation, formats)
	cmd.Flags().StringVar(&c.color, "color", "auto", "when to color: auto, always or never (auto: only on a terminal, never with NO_COLOR or CI)")
	c.registerInputFlags(cmd)
}

// registerInputFlags are the flags that change what is read.
func (c *commonFlags) registerInputFlags(cmd *cobra.Command) {
	cmd.Flags().IntVar(&c.maxLineBytes, "max-line-bytes", transcripts.DefaultMaxLineBytes, "longest input line read; longer lines are problems")
	cmd.Flags().IntVar(&c.maxProblems, "max-problems", transcripts.DefaultMaxProblems, "problems listed per input; the rest are counted (problems_omitted); 0 lists all")
	cmd.Flags().StringVar(&c.asOf, "as-of", "", "replay: ignore events after this RFC 3339 `TIME` (what did the evidence say then?)")
	cmd.Flags().StringVar(&c.inputFormat, "input-format", "", "read every input as this `FORMAT` instead of detecting it: "+strings.Join(transcripts.Formats, ", "))
	cmd.Flags().StringVar(&c.profile, "profile", "", "a profile `FILE` (YAML or JSON) with more tool conventions and, optionally, a source format (effectlint profile prints the built-in one)")
	cmd.Flags().BoolVar(&c.requireChecks, "require-checks", false, "judge every task's gate checks, not only native tasks and foreign tasks that gate themselves")
	cmd.Flags().StringArrayVar(&c.pathMaps, "path-map", nil, "read a recorded path (a cwd, a content path) under FROM as the same path under TO (`FROM=TO`, repeatable; review on another machine)")
	cmd.Flags().StringArrayVar(&c.ignore, "ignore", nil, "leave out files found in walked directories whose name or path matches `GLOB` (repeatable; e.g. a folder of non-histories)")
}

// ignoreFunc matches walked files against the --ignore globs: by base
// name, by the whole path, or by any trailing part of the path.
func (c *commonFlags) ignoreFunc() (func(string) bool, error) {
	if len(c.ignore) == 0 {
		return nil, nil
	}
	for _, g := range c.ignore {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fail(ExitError, "--ignore %q: %v", g, err)
		}
	}
	return func(p string) bool {
		parts := strings.Split(p, "/")
		for _, g := range c.ignore {
			for i := range parts {
				if ok, _ := path.Match(g, strings.Join(parts[i:], "/")); ok {
					return true
				}
			}
		}
		return false
	}, nil
}

// parsePathMaps reads the --path-map flags.
func (c *commonFlags) parsePathMaps() ([]analyzer.PathMap, error) {
	var out []analyzer.PathMap
	for _, m := range c.pathMaps {
		from, to, ok := strings.Cut(m, "=")
		if !ok || from == "" || to == "" {
			return nil, fail(ExitError, "--path-map %q must be FROM=TO", m)
		}
		out = append(out, analyzer.PathMap{From: filepath.FromSlash(from), To: filepath.FromSlash(to)})
	}
	return out, nil
}

func (c *commonFlags) renderer() (report.Renderer, error) {
	switch c.color {
	case "auto", "always", "never":
	default:
		return nil, fail(ExitError, "--color must be auto, always or never, not %q", c.color)
	}
	r, err := report.Get(c.format, report.Options{Color: c.color})
	if err != nil {
		return nil, fail(ExitError, "--format: %v", err)
	}
	return r, nil
}
