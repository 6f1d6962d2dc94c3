package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/hook"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/transcripts"
)

func newHook(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "hook claude-code",
		Short: "The gate as an agent runtime's hook (Claude Code)",
	}
	root.AddCommand(newHookClaudeCode(env))
	return root
}

func newHookClaudeCode(env Env) *cobra.Command {
	var c commonFlags
	var p policyFlags
	var histories []string
	var ledgerArg ledgerFlag
	var deadline, lease time.Duration
	var printSettings bool
	cmd := &cobra.Command{
		Use:   "claude-code [--history PATH]... [--ledger L] [--profile F] [--deadline D]",
		Short: "A Claude Code hook: deny delivery-shaped tool calls the gate stops; settle them after",
		Long: `Reads one Claude Code hook event on standard input. PreToolUse of a delivery-shaped
call (classified as the Claude Code reader classifies it) asks the gate at send for the
session (or subagent), over the session's project folder and every --history; with
--ledger it claims and crosses in the same step. A stop is denied with Claude Code's
JSON form (permissionDecision "deny", the reason starting "effectlint:"); an allow
gives no decision, so your own permission rules still apply. PostToolUse and
PostToolUseFailure settle the claim (confirmed / unknown). Any error, or the deadline
running out, denies the call. Install it with the entry --print-settings prints.`,
		Example: `  # Print the settings.json entry that installs the hook
  effectlint hook claude-code --print-settings --ledger ~/.local/state/effectlint/ledger.db

  # What Claude Code does before a tool call: a Read is no delivery, so it passes (exit 0, no output)
  echo '{"hook_event_name":"PreToolUse","session_id":"s1","transcript_path":"/tmp/s1.jsonl","cwd":"/tmp","tool_name":"Read","tool_input":{"file_path":"notes.txt"},"tool_use_id":"toolu_01"}' | effectlint hook claude-code`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.asOf != "" {
				return fail(ExitError, "--as-of replays the past; the hook decides now")
			}
			if deadline <= 0 {
				return fail(ExitError, "--deadline must be positive, not %s", deadline)
			}
			ledgerSpec, ok := ledgerArg.resolve()
			if ok && ledgerSpec == "" {
				ledgerSpec = "sqlite:" // given empty: the default file, as claim's
			}
			if printSettings {
				return printHookSettings(env.Stdout, histories, ledgerSpec, c.profile, deadline, c.cache.args()...)
			}
			return runHook(env, &c, &p, histories, ledgerSpec, deadline, lease)
		},
	}
	c.registerInputFlags(cmd)
	c.cache.register(cmd)
	p.register(cmd)
	cmd.Flags().StringArrayVar(&histories, "history", nil, "more histories to read besides the session's project folder (repeatable)")
	cmd.Flags().Var(&ledgerArg, "ledger", "a key ledger: an allow claims and crosses in the same step, PostToolUse settles (given empty: $"+LedgerEnv+", else the file effectlint ledger where prints, as for claim)")
	cmd.Flags().DurationVar(&deadline, "deadline", hook.DefaultDeadline, "answer within this time, or deny (keep it well below the hook's timeout: Claude Code lets a call through when a hook times out)")
	cmd.Flags().DurationVar(&lease, "lease", ledger.DefaultLease, "the lease of a claim made for a call (with --ledger)")
	cmd.Flags().BoolVar(&printSettings, "print-settings", false, "print the settings.json entry that installs this hook, with these flags")
	return cmd
}

// runHook answers one event. It never exits 1 (Claude Code lets a call
// through on exit 1): a usage error that reaches here denies.
func runHook(env Env, c *commonFlags, p *policyFlags, histories []string, ledgerSpec string, deadline, lease time.Duration) (err error) {
	start := time.Now()
	if deadline <= 0 {
		deadline = hook.DefaultDeadline
	}
	raw, rerr := io.ReadAll(io.LimitReader(env.Stdin, hook.MaxPayload+1))
	var resp hook.Response
	switch {
	case rerr != nil:
		resp = hook.Deny("cannot read the hook event: " + rerr.Error())
	case len(raw) > hook.MaxPayload:
		resp = hook.Deny(fmt.Sprintf("the hook event is larger than %d bytes", hook.MaxPayload))
	default:
		// The deadline bounds everything, setting up the gate too: a
		// hook that answers late lets the call through.
		done := make(chan hook.Response, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- hook.Deny(fmt.Sprintf("internal error (denied to be safe): %v", r))
				}
			}()
			done <- answerHook(env, c, p, raw, histories, ledgerSpec, max(deadline-time.Since(start), time.Nanosecond), lease)
		}()
		timer := time.NewTimer(deadline - time.Since(start))
		defer timer.Stop()
		select {
		case resp = <-done:
		case <-timer.C:
			resp = hook.TimedOut(raw, deadline)
		}
	}
	if len(resp.Output) > 0 {
		if _, werr := env.Stdout.Write(resp.Output); werr != nil {
			// The denial could not be written: exit 2 blocks too, and
			// hands stderr to the model.
			return fail(ExitError, "%s", strings.TrimSpace(string(resp.Output)))
		}
	}
	if resp.Exit != 0 {
		return fail(ExitError, "%s", strings.TrimPrefix(resp.Message, "effectlint: "))
	}
	return nil
}

func answerHook(env Env, c *commonFlags, p *policyFlags, raw []byte, histories []string, ledgerSpec string, deadline, lease time.Duration) hook.Response {
	pl, err := hook.ParsePayload(raw)
	if err != nil {
		return hook.Deny(err.Error())
	}
	if !strings.EqualFold(pl.Event, "PreToolUse") && !strings.EqualFold(pl.Event, "PostToolUse") && !strings.EqualFold(pl.Event, "PostToolUseFailure") {
		return hook.Response{} // other events: untouched (odd spellings of these are denied by the hook)
	}
	h := &hook.ClaudeCode{Histories: histories, Deadline: deadline, Lease: lease}
	var opts []gate.Option
	if ledgerSpec != "" {
		s, err := ledger.Open(context.Background(), ledgerSpec, ledger.Config{})
		if err != nil {
			if pl.Event == "PreToolUse" {
				return hook.Deny(fmt.Sprintf("the key ledger %s cannot be opened (%v): denied to be safe", ledger.Redact(ledgerSpec), err))
			}
			return hook.Response{Exit: 2, Message: fmt.Sprintf("effectlint: the key ledger %s cannot be opened: %v", ledger.Redact(ledgerSpec), err)}
		}
		defer s.Close()
		h.Ledger = s
		opts = append(opts, gate.WithLedger(s))
	}
	g, err := newGate(env, c, p, opts...)
	if err != nil {
		if pl.Event == "PreToolUse" {
			return hook.Deny(fmt.Sprintf("the gate cannot be set up: %v", err))
		}
		return hook.Response{Exit: 2, Message: "effectlint: " + err.Error()}
	}
	h.Gate = g
	h.Classify = classifyClaudeCode(c)
	return h.Handle(context.Background(), raw)
}

// printHookSettings prints the settings.json entry that installs the hook:
// the binary's absolute path and the flags, quoted for the shell that
// Claude Code runs the command with, for every tool (any tool given a file
// may deliver it), with a timeout well above the deadline.
func printHookSettings(w io.Writer, histories []string, ledgerSpec, profile string, deadline time.Duration, more ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return fail(ExitError, "cannot find this program's path: %v", err)
	}
	if deadline <= 0 {
		deadline = hook.DefaultDeadline
	}
	args := []string{exe, "hook", "claude-code", "--deadline", deadline.String()}
	for _, h := range histories {
		args = append(args, "--history", h)
	}
	if ledgerSpec != "" {
		args = append(args, "--ledger", ledgerSpec)
	}
	if profile != "" {
		args = append(args, "--profile", profile)
	}
	args = append(args, more...)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	timeout := int((3*deadline + time.Second - 1) / time.Second)
	if timeout < 30 {
		timeout = 30
	}
	entry := []map[string]any{{"matcher": "*", "hooks": []map[string]any{{"type": "command", "command": strings.Join(quoted, " "), "timeout": timeout}}}}
	out, err := json.MarshalIndent(map[string]any{"hooks": map[string]any{
		"PreToolUse": entry, "PostToolUse": entry, "PostToolUseFailure": entry}}, "", "  ")
	if err != nil {
		return fail(ExitError, "%v", err)
	}
	fmt.Fprintf(w, "%s\n", out)
	return nil
}

// shellQuote quotes a word for sh unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// classifyClaudeCode classifies a call with the Claude Code reader's
// conventions (transcripts.ClassifyClaudeCodeCall: the reader's own code
// path), the built-in ones and --profile's.
func classifyClaudeCode(c *commonFlags) hook.Classifier {
	var prof *transcripts.Profile
	var profErr error
	if c.profile != "" {
		prof, profErr = transcripts.LoadProfile(c.profile)
	}
	return func(tool string, input []byte, cwd string) (hook.Call, error) {
		if profErr != nil {
			return hook.Call{}, profErr
		}
		cl := transcripts.ClassifyClaudeCodeCall(transcripts.ClaudeCodeCall{Session: "hook", ToolUseID: "pending", Name: tool, Input: input, Cwd: cwd}, prof)
		call := hook.Call{Delivery: cl.Delivery}
		for _, e := range cl.Events {
			if e.Type == "intent" {
				call.Intents = append(call.Intents, intentOfEvent(e))
			}
		}
		if call.Delivery && len(call.Intents) == 0 {
			call.Why = "the conventions name no destination and content for it"
		}
		return call, nil
	}
}

// intentOfEvent reads an intent event's destination and content.
func intentOfEvent(e transcripts.Event) analyzer.IntentSpec {
	var s analyzer.IntentSpec
	if d, ok := e.Fields["destination"].(map[string]any); ok {
		s.Destination.Provider, _ = d["provider"].(string)
		s.Destination.ID, _ = d["id"].(string)
		s.Destination.Title, _ = d["title"].(string)
	}
	if c, ok := e.Fields["content"].(map[string]any); ok {
		s.File, _ = c["path"].(string)
		s.SHA256, _ = c["sha256"].(string)
	}
	if k, ok := e.Fields["key"].(string); ok && k != "" {
		s = analyzer.IntentSpec{Key: k}
	}
	return s
}
