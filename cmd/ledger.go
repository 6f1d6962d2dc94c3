package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/internal/ops"
	"github.com/effectlint/effectlint/ledger"
	// The stores register themselves with ledger.Open.
	_ "github.com/effectlint/effectlint/ledger/postgres"
	_ "github.com/effectlint/effectlint/ledger/sqlite"
)

// LedgerEnv names the ledger when --ledger is not given.
const LedgerEnv = "EFFECTLINT_LEDGER"

// ledgerFlags name a ledger and how to write its answers.
type ledgerFlags struct {
	spec   string
	format string
}

func (l *ledgerFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&l.spec, "ledger", "", "the key `LEDGER`: PATH or sqlite:PATH (embedded), postgres://… (default $"+LedgerEnv+", else the file effectlint ledger where prints)")
	cmd.Flags().StringVar(&l.format, "format", "text", "output: text or json")
}

// resolve is the ledger spec: the flag, the environment, or the default
// file.
func (l *ledgerFlags) resolve() string {
	if l.spec != "" {
		return l.spec
	}
	return os.Getenv(LedgerEnv)
}

// open opens the ledger; every failure is an error (exit 2).
func (l *ledgerFlags) open(ctx context.Context) (ledger.Store, error) {
	if l.format == "" {
		l.format = "text"
	}
	if l.format != "text" && l.format != "json" {
		return nil, fail(ExitError, "--format must be text or json, not %q", l.format)
	}
	s, err := ledger.Open(ctx, l.resolve(), ledger.Config{})
	if err != nil {
		return nil, fail(ExitError, "ledger: %v", err)
	}
	return s, nil
}

// storeFailed is the exit-2 error of an operation whose effect is unknown.
func storeFailed(s ledger.Store, op string, err error) error {
	return fail(ExitError, "%s", ops.FailureMessage(s.Where(), op, err))
}

// print writes the answer and gives the exit: 0 granted, 1 refused.
func (l *ledgerFlags) print(w io.Writer, a ops.Answer) error {
	if l.format == "json" {
		b, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return fail(ExitError, "%v", err)
		}
		fmt.Fprintf(w, "%s\n", b)
	} else {
		verdict := "GRANTED"
		if !a.Granted {
			verdict = "REFUSED"
		}
		fmt.Fprintf(w, "%s %s\n", verdict, a.Operation)
		fmt.Fprintf(w, "  key            %s\n  scope          %s\n  state          %s\n  token          %d\n", a.Key, a.Scope, a.State, a.Token)
		if a.Holder != nil {
			fmt.Fprintf(w, "  holder         %s\n", *a.Holder)
		}
		if a.LeaseExpires != nil {
			fmt.Fprintf(w, "  lease_expires  %s\n", *a.LeaseExpires)
		}
		fmt.Fprintf(w, "  provider_token %s\n", a.ProviderToken)
		for _, r := range a.Reasons {
			fmt.Fprintf(w, "  %s  %s\n", r.Rule, r.Message)
			for _, e := range r.Evidence {
				fmt.Fprintf(w, "    %s:%d\n", e.File, e.Line)
			}
		}
	}
	if !a.Granted {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// answer opens the ledger, runs one operation in it and prints the answer:
// exit 0 granted, 1 refused, 2 when the store did not answer.
func (l *ledgerFlags) answer(env Env, op string, do func(context.Context, ledger.Store) (ledger.Result, error)) error {
	ctx := context.Background()
	s, err := l.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	r, err := do(ctx, s)
	if err != nil {
		return storeFailed(s, op, err)
	}
	return l.print(env.Stdout, ops.AnswerOf(op, s, r))
}

// keyOf is the key the flags name: --key, or an intent's flags.
func keyOf(f *intentFlags) (string, error) {
	k, err := f.intent().ComputeKey()
	if errors.Is(err, ops.ErrNoIntent) {
		return "", fail(ExitError, "name the key: --key K, or --destination PROVIDER/ID|--title TITLE with --file F|--sha256 H")
	}
	if err != nil {
		return "", fail(ExitError, "%v", err)
	}
	return k, nil
}

func newClaim(env Env) *cobra.Command {
	var l ledgerFlags
	var c commonFlags
	var p policyFlags
	var f intentFlags
	var task, ref string
	var lease time.Duration
	cmd := &cobra.Command{
		Use:   "claim --task T (--key K | --destination D|--title T --file F|--sha256 H) [--authorization A] [--lease D] [PATH...]",
		Short: "Claim a key scope before crossing: a lease and a fencing token, or a refusal",
		Long: `claim asks the key ledger for a key scope's lease. With PATHs, the gate runs
first over those histories and the ledger's journal (at checkpoint picker); a stop
there is a refusal. Then, atomically: a consumed scope refuses (KEY_CONSUMED), a live
claim of another task refuses (CLAIMED), the task's own live claim is renewed, an
expired claim is replaced with the next token, a free scope is granted.

Exit 0 granted, 1 refused, 2 any error: treat every non-zero exit as stop.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if task == "" {
				return fail(ExitError, "--task is required")
			}
			if c.asOf != "" {
				return fail(ExitError, "--as-of replays the past; a claim decides now over everything there is")
			}
			key, err := keyOf(&f)
			if err != nil {
				return err
			}
			ctx := context.Background()
			s, err := l.open(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			scope := f.authorization
			if scope == "" {
				scope = ledger.OriginalScope
			}
			req, err := ledger.NormalizeClaim(ledger.ClaimRequest{Task: task, Key: key, Scope: scope, Title: f.intent().TitleBesidesKey(), Lease: lease, Ref: ref})
			if err != nil {
				return fail(ExitError, "claim: %v", err)
			}
			var g *gate.Gate
			if len(args) > 0 {
				if g, err = newGate(env, &c, &p, gate.WithLedger(s)); err != nil {
					return err
				}
			}
			a, err := ops.Claim(ctx, s, g, req, f.intent(), args)
			var gf *ops.GateFailed
			if errors.As(err, &gf) {
				return gateFailed(gf.Decision.Err)
			}
			if err != nil {
				return storeFailed(s, "claim", err)
			}
			return l.print(env.Stdout, a)
		},
	}
	l.register(cmd)
	c.registerInputFlags(cmd)
	p.register(cmd)
	f.register(cmd, true)
	cmd.Flags().StringVar(&f.authorization, "authorization", "", "the authorization whose scope is claimed (a redelivery); default the original scope")
	cmd.Flags().StringVar(&task, "task", "", "the claiming task (required)")
	cmd.Flags().DurationVar(&lease, "lease", ledger.DefaultLease, "how long the claim holds unless renewed (a Go duration, at most 24h)")
	cmd.Flags().StringVar(&ref, "ref", "", "the caller's reference kept with the claim in the journal (e.g. a tool_use_id)")
	return cmd
}

// tokenFlags are the flags of an operation under a token.
type tokenFlags struct {
	key, authorization string
	token              int64
}

func (t *tokenFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.key, "key", "", "the key scope's key, as claim printed it (required)")
	cmd.Flags().StringVar(&t.authorization, "authorization", "", "the authorization whose scope it is; default the original scope")
	cmd.Flags().Int64Var(&t.token, "token", 0, "the fencing token claim granted (required)")
}

func (t *tokenFlags) check() (scope string, err error) {
	if t.key == "" {
		return "", fail(ExitError, "--key is required")
	}
	if t.token <= 0 {
		return "", fail(ExitError, "--token is required: the positive integer claim granted")
	}
	if t.authorization == "" {
		return ledger.OriginalScope, nil
	}
	return t.authorization, nil
}

func newCross(env Env) *cobra.Command {
	var l ledgerFlags
	var t tokenFlags
	var checkpoint string
	cmd := &cobra.Command{
		Use:   "cross --key K --token N [--checkpoint picker|send]",
		Short: "Announce, right before the irreversible action, that the holder of token N crosses now",
		Long: `cross requires a live lease under token N and moves the scope to crossing: from this
write on, the scope is consumed whatever happens. A stale token refuses (FENCED), an
expired lease refuses (EXPIRED). Do not act unless it exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := t.check()
			if err != nil {
				return err
			}
			req, err := ledger.NormalizeCross(ledger.CrossRequest{Key: t.key, Scope: scope, Token: t.token, Checkpoint: checkpoint})
			if err != nil {
				return fail(ExitError, "cross: %v", err)
			}
			return l.answer(env, "cross", func(ctx context.Context, s ledger.Store) (ledger.Result, error) { return s.Cross(ctx, req) })
		},
	}
	l.register(cmd)
	t.register(cmd)
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "send", "where the crossing happens: picker or send")
	return cmd
}

func newSettle(env Env) *cobra.Command {
	var l ledgerFlags
	var t tokenFlags
	var outcome string
	cmd := &cobra.Command{
		Use:   "settle --key K --token N --outcome confirmed|unknown|not_crossed",
		Short: "Record what happened under token N: confirmed, unknown, or released before crossing",
		Long: `settle records the outcome of a claim. confirmed → sent_verified (accepted even after
the lease expired: it is evidence that the effect happened); unknown →
send_status_unknown; not_crossed releases the scope, only from a live claim that has
not crossed (after cross it is refused and the scope stays consumed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := t.check()
			if err != nil {
				return err
			}
			o, err := ledger.ParseOutcome(outcome)
			if err != nil {
				return fail(ExitError, "--%v", err)
			}
			req, err := ledger.NormalizeSettle(ledger.SettleRequest{Key: t.key, Scope: scope, Token: t.token, Outcome: o})
			if err != nil {
				return fail(ExitError, "settle: %v", err)
			}
			return l.answer(env, "settle", func(ctx context.Context, s ledger.Store) (ledger.Result, error) { return s.Settle(ctx, req) })
		},
	}
	l.register(cmd)
	t.register(cmd)
	cmd.Flags().StringVar(&outcome, "outcome", "", "confirmed, unknown or not_crossed (required)")
	return cmd
}

func newAuthorize(env Env) *cobra.Command {
	var l ledgerFlags
	var f intentFlags
	var by, reason string
	cmd := &cobra.Command{
		Use:   "authorize (--key K | intent flags) --authorization A --by WHO --reason TEXT",
		Short: "Record a person's authorization of one more delivery of a key (scope A, claimable once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := keyOf(&f)
			if err != nil {
				return err
			}
			req, err := ledger.NormalizeAuthorize(ledger.AuthorizeRequest{Key: key, Authorization: f.authorization, By: by, Reason: reason})
			if err != nil {
				return fail(ExitError, "authorize: %v", err)
			}
			return l.answer(env, "authorize", func(ctx context.Context, s ledger.Store) (ledger.Result, error) { return s.Authorize(ctx, req) })
		},
	}
	l.register(cmd)
	f.register(cmd, true)
	cmd.Flags().StringVar(&f.authorization, "authorization", "", "the authorization's id, which names the new scope (required)")
	cmd.Flags().StringVar(&by, "by", "", "who authorizes (required)")
	cmd.Flags().StringVar(&reason, "reason", "", "why one more delivery is right (required)")
	return cmd
}

func newLedger(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "ledger where|init|show|export|prune",
		Short: "Inspect and maintain the key ledger",
	}
	var l ledgerFlags
	where := &cobra.Command{
		Use:   "where",
		Short: "Print the ledger the other commands use (flag, $" + LedgerEnv + ", or the default file)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec := l.resolve()
			scheme, addr := ledger.SplitSpec(spec)
			if scheme == "sqlite" && addr == "" {
				p, err := ledger.DefaultPath()
				if err != nil {
					return fail(ExitError, "%v", err)
				}
				addr = p
			}
			if scheme == "sqlite" {
				fmt.Fprintln(env.Stdout, "sqlite:"+addr)
			} else {
				fmt.Fprintln(env.Stdout, ledger.Redact(spec))
			}
			return nil
		},
	}
	where.Flags().StringVar(&l.spec, "ledger", "", "the key ledger (default $"+LedgerEnv+", else the file effectlint ledger where prints)")
	root.AddCommand(where, newLedgerInit(env), newLedgerShow(env), newLedgerExport(env), newLedgerPrune(env))
	return root
}

func newLedgerInit(env Env) *cobra.Command {
	var l ledgerFlags
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create or migrate the ledger's schema (idempotent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := l.open(context.Background())
			if err != nil {
				return err
			}
			defer s.Close()
			// Opening a store creates and migrates its schema.
			fmt.Fprintf(env.Stdout, "ledger ready: %s\n", ledger.Redact(s.Where()))
			return nil
		},
	}
	cmd.Flags().StringVar(&l.spec, "ledger", "", "the key ledger (default $"+LedgerEnv+", else the file effectlint ledger where prints)")
	return cmd
}

func newLedgerShow(env Env) *cobra.Command {
	var l ledgerFlags
	var key string
	cmd := &cobra.Command{
		Use:   "show [--key K]",
		Short: "Print the journal: every operation with its time, task, token and outcome",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			s, err := l.open(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			var entries []ledger.Entry
			if err := s.Journal(ctx, key, func(e ledger.Entry) error { entries = append(entries, e); return nil }); err != nil {
				return storeFailed(s, "show", err)
			}
			if l.format == "json" {
				if entries == nil {
					entries = []ledger.Entry{}
				}
				b, err := json.MarshalIndent(map[string]any{"ledger": ledger.Redact(s.Where()), "journal": entries}, "", "  ")
				if err != nil {
					return fail(ExitError, "%v", err)
				}
				fmt.Fprintf(env.Stdout, "%s\n", b)
				return nil
			}
			for _, e := range entries {
				verdict := "granted"
				if !e.Granted {
					verdict = "refused " + e.Rule
				}
				var extra []string
				if e.Outcome != "" {
					extra = append(extra, "outcome "+string(e.Outcome))
				}
				if e.Checkpoint != "" {
					extra = append(extra, "at "+e.Checkpoint)
				}
				if e.By != "" {
					extra = append(extra, "by "+e.By+": "+e.Reason)
				}
				if e.Ref != "" {
					extra = append(extra, "ref "+e.Ref)
				}
				fmt.Fprintf(env.Stdout, "%s  %-9s %-8s token %-3d %-22s → %s  %s %s  %s\n", e.Time.UTC().Format(time.RFC3339Nano), e.Op,
					orDash(e.Task), e.Token, verdict, e.State, e.Key, e.Scope, strings.Join(extra, ", "))
			}
			return nil
		},
	}
	l.register(cmd)
	cmd.Flags().StringVar(&key, "key", "", "only this key's operations")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newLedgerExport(env Env) *cobra.Command {
	var l ledgerFlags
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Print the journal as effectlint/v1 events, which analyze reads like any history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			s, err := l.open(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := ledger.Export(ctx, s, env.Stdout); err != nil {
				return storeFailed(s, "export", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&l.spec, "ledger", "", "the key ledger (default $"+LedgerEnv+", else the file effectlint ledger where prints)")
	l.format = "text"
	return cmd
}

func newLedgerPrune(env Env) *cobra.Command {
	var l ledgerFlags
	var before string
	cmd := &cobra.Command{
		Use:   "prune --before T",
		Short: "Drop the journal detail of terminal scopes settled before T, keeping a tombstone of each",
		Long: `prune drops the journal entries of scopes that are sent_verified or
send_status_unknown and last changed before T (an RFC 3339 time, or a Go duration
meaning that long ago), keeping one tombstone entry (key, scope, terminal state) per
scope. Records are never changed: a consumed scope never becomes claimable by pruning.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := context.Background()
			if before == "" {
				return fail(ExitError, "--before is required")
			}
			s, err := l.open(ctx)
			if err != nil {
				return err
			}
			defer s.Close()
			t, err := time.Parse(time.RFC3339Nano, before)
			if err != nil {
				d, derr := time.ParseDuration(before)
				if derr != nil || d < 0 {
					return fail(ExitError, "--before %q is neither an RFC 3339 time nor a duration", before)
				}
				now, err := s.Now(ctx)
				if err != nil {
					return storeFailed(s, "prune", err)
				}
				t = now.Add(-d)
			}
			n, err := s.Prune(ctx, t)
			if err != nil {
				return storeFailed(s, "prune", err)
			}
			fmt.Fprintf(env.Stdout, "pruned the journal of %d terminal scope(s) settled before %s (a tombstone each)\n", n, t.UTC().Format(time.RFC3339))
			return nil
		},
	}
	cmd.Flags().StringVar(&l.spec, "ledger", "", "the key ledger (default $"+LedgerEnv+", else the file effectlint ledger where prints)")
	cmd.Flags().StringVar(&before, "before", "", "an RFC 3339 time, or a duration: prune what settled that long ago (required)")
	l.format = "text"
	return cmd
}
