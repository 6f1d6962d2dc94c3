package cmd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/mcpserver"
	"github.com/effectlint/effectlint/transcripts"
)

// newMCP is `effectlint mcp`: the gate and the ledger as a Model Context
// Protocol server (SPEC §10), over stdio or streamable HTTP.
func newMCP(env Env) *cobra.Command {
	var cfg mcpserver.Config
	var profile, addr string
	var cache cacheFlags
	cmd := &cobra.Command{
		Use:   "mcp [--ledger L] [--history PATH]... [--profile F] [--policy P]... [--data D]... [--http ADDR]",
		Short: "Serve the gate and the ledger as MCP tools (check, claim, cross, settle, key, explain)",
		Long: `mcp is a Model Context Protocol server whose tools are the gate and the key
ledger: check, claim, cross, settle, key and explain, each with typed input and
output schemas. It speaks stdio by default (the client starts it) and streamable
HTTP with --http ADDR (e.g. 127.0.0.1:8765).

Every error is a refusal in the result, never an allow: a check that could not be
made is decision stop (GATE_ERROR), a ledger operation that could not be made is
granted false with a reason (NO_LEDGER, LEDGER_ERROR, INVALID_REQUEST, NO_KEY),
and the result is marked isError.

check, claim and explain read the --history paths besides those a call names.
Paths are read as given: a relative path resolves against this server's working
directory. claim, cross and settle need --ledger (or $` + LedgerEnv + `); without
one they refuse. Exit 0 when the client closes the session, 2 when the server
cannot start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.Ledger == "" {
				cfg.Ledger = os.Getenv(LedgerEnv)
			}
			if profile != "" {
				p, err := transcripts.LoadProfile(profile)
				if err != nil {
					return fail(ExitError, "%v", err)
				}
				cfg.Profile = p
			}
			if env.rules != "" {
				cfg.GateOptions = append(cfg.GateOptions, gate.WithRules(env.rules))
			}
			cfg.GateOptions = append(cfg.GateOptions, cache.option())
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv, err := mcpserver.New(ctx, cfg)
			if err != nil {
				return gateFailed(err)
			}
			defer srv.Close()
			if addr == "" {
				if err := srv.ServeStdio(ctx, env.Stdin, env.Stdout); err != nil && ctx.Err() == nil {
					return fail(ExitError, "mcp: %v", err)
				}
				return nil
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fail(ExitError, "--http: %v", err)
			}
			fmt.Fprintf(env.Stderr, "effectlint mcp: streamable HTTP on http://%s/mcp\n", ln.Addr())
			if err := srv.ServeHTTP(ctx, ln); err != nil && ctx.Err() == nil {
				return fail(ExitError, "mcp: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.Ledger, "ledger", "", "the key ledger for claim, cross and settle, whose journal joins every check's histories: PATH or sqlite:PATH, postgres://… (default $"+LedgerEnv+", else none: claim, cross and settle refuse)")
	cmd.Flags().StringArrayVar(&cfg.Histories, "history", nil, "a history (transcript file or folder) that check, claim and explain read besides the paths a call names (repeatable)")
	cmd.Flags().StringVar(&profile, "profile", "", "a profile `FILE` (YAML or JSON) with more tool conventions (effectlint profile prints the built-in one)")
	cmd.Flags().StringArrayVar(&cfg.Policies, "policy", nil, "extra Rego: a .rego file or a directory of them, packages under effectlint.custom (repeatable)")
	cmd.Flags().StringArrayVar(&cfg.Data, "data", nil, "extra data for policy: a JSON or YAML file or a directory of them (repeatable)")
	cache.register(cmd)
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (host:port, e.g. 127.0.0.1:8765) instead of stdio")
	return cmd
}
