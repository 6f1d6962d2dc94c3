// Package mcpserver is `effectlint mcp`: a Model Context Protocol server
// whose tools are the gate and the key ledger (SPEC §10) — check, claim,
// cross, settle, key and explain — with typed input and output schemas,
// over stdio or streamable HTTP. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Every error is a refusal in the result, never an allow: a check that
// could not be made is decision stop with a GATE_ERROR reason, a ledger
// operation that could not be made is granted false with a reason, and
// the result's IsError is set with the structured refusal still in it.
// That holds for arguments the schema rejects too (a middleware turns the
// SDK's bare error into the tool's refusal) and for a panic.
//
// The decisions are the gate's and the ledger's (packages gate, ledger);
// the shapes of the ledger's answers and the claim's flow are the
// command line's (internal/ops). Paths in tool calls are read as given:
// a relative path resolves against the server's working directory.
package mcpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/transcripts"
	// The stores register themselves with ledger.Open.
	_ "github.com/effectlint/effectlint/ledger/postgres"
	_ "github.com/effectlint/effectlint/ledger/sqlite"
)

// Config is what the server reads besides the tool calls.
type Config struct {
	// Ledger names the key ledger as --ledger does (PATH, sqlite:PATH,
	// postgres://…); empty: none, and claim, cross and settle refuse.
	Ledger string
	// Histories are read by check, claim and explain besides the paths a
	// call names.
	Histories []string
	// Profile adds tool conventions (and, optionally, a source format).
	Profile *transcripts.Profile
	// Policies and Data are users' Rego and its data, as --policy and
	// --data.
	Policies, Data []string
	// LedgerConfig is passed to ledger.Open (tests skew its clock).
	LedgerConfig ledger.Config
	// GateOptions are more options of the gates (tests: broken rules).
	GateOptions []gate.Option
	// Version is the server's version in its answer to initialize
	// (default: the module's build version).
	Version string
}

// Server is an effectlint MCP server. One Server serves any number of
// sessions (stdio's one, HTTP's many) and is safe for concurrent use.
type Server struct {
	cfg Config
	// gate answers check and claim; explain has its own, which lets users'
	// policies define either kind of rule (as `effectlint explain`).
	gate, explainGate *gate.Gate
	mcp               *mcp.Server

	mu    sync.Mutex
	store ledger.Store
}

// New configures the server and compiles its policy: an error here (a
// policy that does not load or compile) is the server's, before any
// session. The ledger is opened when a call first needs it, and again
// after a failure, so a ledger that is down at start is a refusal of
// each call until it is back, not a server that does not start.
func New(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{cfg: cfg}
	opts := []gate.Option{gate.WithPolicies(cfg.Policies...), gate.WithData(cfg.Data...)}
	if cfg.Profile != nil {
		opts = append(opts, gate.WithProfile(cfg.Profile))
	}
	if cfg.Ledger != "" {
		// The journal joins the histories of every check (SPEC §9); a
		// ledger that cannot be opened or read is an unreadable history,
		// so every check stops (HISTORY_UNREADABLE).
		opts = append(opts, gate.WithLedgerFrom("ledger:"+ledger.Redact(cfg.Ledger), s.ledger))
	}
	opts = append(opts, cfg.GateOptions...)
	var err error
	if s.gate, err = gate.New(ctx, opts...); err != nil {
		return nil, err
	}
	if s.explainGate, err = gate.New(ctx, append(opts, gate.WithPoliciesOfEitherKind())...); err != nil {
		return nil, err
	}
	for _, g := range []*gate.Gate{s.gate, s.explainGate} {
		if _, err := g.Engine(); err != nil {
			return nil, err
		}
	}
	version := cfg.Version
	if version == "" {
		version = buildVersion()
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "effectlint", Title: "effectlint: the delivery gate and key ledger", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.addTools()
	s.mcp.AddReceivingMiddleware(s.refuseErrors)
	return s, nil
}

const instructions = `effectlint guards external deliveries (a file posted to a chat channel, a mail, a form submitted): it keeps a task from delivering the same content to the same destination twice.

Before an irreversible delivery, with a ledger: claim the key scope (your task id, the destination and the file or its sha256; pass the tool_use_id of the delivering call), then cross with the token right before acting, act only if cross was granted, and settle afterwards: confirmed, unknown (you could not tell whether it went out), or not_crossed (you never acted). Without a ledger, check at checkpoint send.

Only decision "allow" (check) or granted true (claim, cross, settle) lets you go on. Anything else is stop: do not deliver, and tell the user the reasons. A result marked isError is a refusal too, never a permission to retry the delivery some other way.

Paths are read as given: give absolute paths; a relative path resolves against the server's working directory.`

func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// errNoLedger is the error of an operation that needs a ledger when none
// is configured.
var errNoLedger = errors.New("no ledger is configured: start `effectlint mcp` with --ledger PATH (an SQLite file) or --ledger postgres://…, or set $EFFECTLINT_LEDGER")

// ledger is the store, opened on first use; an open that fails is tried
// again by the next call.
func (s *Server) ledger(ctx context.Context) (ledger.Store, error) {
	if s.cfg.Ledger == "" {
		return nil, errNoLedger
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	st, err := ledger.Open(ctx, s.cfg.Ledger, s.cfg.LedgerConfig)
	if err != nil {
		return nil, err
	}
	s.store = st
	return st, nil
}

// MCP is the SDK's server, for callers that bring their own transport
// (tests connect it to an in-memory one).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ServeStdio serves one session over r and w (newline-delimited JSON-RPC,
// the stdio transport) until the client closes r or ctx ends. Nothing
// else may write to w.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopCloser{w}})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// HTTPHandler serves the streamable HTTP transport (any path). It keeps
// the SDK's protection against DNS rebinding: a request that arrives on a
// loopback address with another Host is refused.
func (s *Server) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: time.Hour})
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx ends,
// then shuts down, letting calls under way finish for a few seconds.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := hs.Shutdown(sctx)
		<-done
		return err
	}
}

// Close closes the ledger, if one was opened.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	err := s.store.Close()
	s.store = nil
	return err
}
