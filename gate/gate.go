// Package gate is effectlint's one entry point for every caller — the CLI,
// the scenario runner, a hook, a server: it reads histories, turns them
// into facts and asks the policy, the whole flow of SPEC §5 and §6.
//
// Like OPA's rego package it separates the expensive part from the cheap
// one: New compiles and prepares the policy once (configured with
// functional options); Check and Analyze read the histories afresh on
// every call (a decision is never cached) and evaluate.
//
// Check never returns an error: every failure inside it — a path that
// does not exist, an unreadable profile, a policy that does not compile,
// an evaluation that runs out of time, even a panic — is a stop decision
// whose Err says what went wrong. No caller can turn an error into an
// allow by forgetting a branch.
package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/policy/builtin"
	"github.com/effectlint/effectlint/transcripts"
	"github.com/effectlint/effectlint/transcripts/cache"
)

// Checkpoints a task can ask at (SPEC §5), as Request spells them.
const (
	Resume = string(effect.Resume)
	Picker = string(effect.Picker)
	Send   = string(effect.Send)
)

// DefaultTimeout bounds each policy evaluation. Generous (well under a
// second is measured for 100k facts): a policy that needs longer is
// looping, and a check must not hang a worker that waits to send.
const DefaultTimeout = 30 * time.Second

// ReasonError is the rule of the stop reason a failed check gives.
const ReasonError = "GATE_ERROR"

// An Option configures a Gate.
type Option func(*config) error

type config struct {
	policies, data []string
	rules          *policy.Module // replaces the built-in rules (tests)
	profile        *transcripts.Profile
	inputFormat    string
	maxLineBytes   int
	maxProblems    int
	asOf           time.Time
	pathMaps       []analyzer.PathMap
	ignore         func(string) bool
	timeout        time.Duration
	requireChecks  bool
	stdin          io.Reader
	extra          []transcripts.Extra
	ledgers        []func(context.Context) (ledger.Store, error)
	cache          transcripts.Cache
	// anyRules: users' policies need not define the rule a call evaluates.
	anyRules bool
	progress func(files int, bytes int64)
}

// WithPolicies adds users' Rego: .rego files or directories of them,
// packages under effectlint.custom.
func WithPolicies(paths ...string) Option {
	return func(c *config) error { c.policies = append(c.policies, paths...); return nil }
}

// WithData adds data for users' rules: JSON or YAML files or directories.
func WithData(paths ...string) Option {
	return func(c *config) error { c.data = append(c.data, paths...); return nil }
}

// WithRules replaces the built-in rules by src (named rules.rego): for
// tests of what every caller does with broken rules.
func WithRules(src string) Option {
	return func(c *config) error { c.rules = &policy.Module{Name: builtin.RulesName, Source: src}; return nil }
}

// WithProgress tells progress of every input opened and of the bytes read
// from it (see transcripts.Options.Progress); it changes nothing else.
func WithProgress(progress func(files int, bytes int64)) Option {
	return func(c *config) error { c.progress = progress; return nil }
}

// WithProfile adds tool conventions (and, optionally, a source format).
func WithProfile(p *transcripts.Profile) Option {
	return func(c *config) error { c.profile = p; return nil }
}

// WithInputFormat reads every input as this format instead of detecting it.
func WithInputFormat(name string) Option {
	return func(c *config) error { c.inputFormat = name; return nil }
}

// WithLimits bounds what one input may cost: the longest line read (0: the
// default) and the problems listed per input (0: all; the rest are counted).
func WithLimits(maxLineBytes, maxProblems int) Option {
	return func(c *config) error {
		if maxLineBytes < 0 {
			return fmt.Errorf("the longest line must not be negative (0: the default), not %d", maxLineBytes)
		}
		if maxProblems < 0 {
			return fmt.Errorf("problems listed per input must be 0 (all) or more, not %d", maxProblems)
		}
		c.maxLineBytes, c.maxProblems = maxLineBytes, maxProblems
		return nil
	}
}

// WithAsOf replays the histories as they were at t: events after it are
// not read.
func WithAsOf(t time.Time) Option {
	return func(c *config) error { c.asOf = t; return nil }
}

// WithPathMaps reads recorded paths under one folder as the same paths
// under another (review on another machine than the agent's).
func WithPathMaps(maps ...analyzer.PathMap) Option {
	return func(c *config) error { c.pathMaps = append(c.pathMaps, maps...); return nil }
}

// WithIgnore leaves out files found while walking directories for which
// match is true.
func WithIgnore(match func(path string) bool) Option {
	return func(c *config) error { c.ignore = match; return nil }
}

// WithTimeout bounds each policy evaluation (0: no bound; the default is
// DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("the time limit must not be negative")
		}
		c.timeout = d
		return nil
	}
}

// WithRequireChecks judges every task's gate checks, not only native
// tasks' and those of foreign tasks that gate themselves.
func WithRequireChecks() Option {
	return func(c *config) error { c.requireChecks = true; return nil }
}

// WithPoliciesOfEitherKind lets users' policies define only findings or
// only stops: for callers that evaluate both kinds over one history
// (scenario tests, explanations). Otherwise Analyze needs a `finding` rule
// and Check a `stop` rule among the given policies: policies of which none
// would be evaluated are an error, never a silent pass.
func WithPoliciesOfEitherKind() Option {
	return func(c *config) error { c.anyRules = true; return nil }
}

// WithLedger adds a key ledger's journal to the histories (SPEC §9): its
// operations read as effectlint/v1 events (ledger.Export), so the rules
// decide over the ledger and the transcripts together. A ledger that
// cannot be read is an unreadable history: every check stops.
func WithLedger(s ledger.Store) Option {
	return WithLedgerFrom("ledger:"+s.Where(), func(context.Context) (ledger.Store, error) { return s, nil })
}

// WithLedgerFrom is WithLedger for a ledger that get returns on every read
// (a server opens its ledger when it can, and again after a failure):
// get's error, like a failure to read the journal, is a problem of the
// input named name, an unreadable history, so every check stops.
func WithLedgerFrom(name string, get func(context.Context) (ledger.Store, error)) Option {
	return func(c *config) error {
		c.ledgers = append(c.ledgers, get)
		c.extra = append(c.extra, transcripts.Extra{Name: name, Open: func() (io.ReadCloser, error) {
			s, err := get(context.Background())
			if err != nil {
				return nil, err
			}
			// The journal is exported afresh on every read (a decision
			// is never cached) and streamed: a failure half-way is a
			// read error of this input, which stops every check.
			pr, pw := io.Pipe()
			go func() { pw.CloseWithError(ledger.Export(context.Background(), s, pw)) }()
			return pr, nil
		}})
		return nil
	}
}

// WithCache keeps a cache of parsed facts in dir (made when first
// written; cache.DefaultDir is the CLI's default): what reading each plain
// native log gave, so a check over histories that grow by appending reads
// only their new lines (transcripts.Options.Cache, docs/cache.md). It never
// changes a decision: an entry is used only when the file's bytes are
// proven unchanged, and a cache that cannot be read or written is a cache
// that is not there. An empty dir means no cache.
func WithCache(dir string) Option {
	return func(c *config) error {
		c.cache = nil
		if dir != "" {
			c.cache = cache.Open(dir)
		}
		return nil
	}
}

// WithStdin is what the path "-" reads.
func WithStdin(r io.Reader) Option {
	return func(c *config) error { c.stdin = r; return nil }
}

// Gate is compiled policy plus the settings of reading. It is safe for
// concurrent use.
type Gate struct {
	cfg     config
	engine  func() (*policy.Engine, error)
	userLen int
}

// New configures a Gate and starts compiling its policy, which Check and
// Analyze wait for after reading their inputs (the two share nothing).
func New(ctx context.Context, opts ...Option) (*Gate, error) {
	cfg := config{timeout: DefaultTimeout}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	user, err := policy.LoadPolicies(cfg.policies, false)
	if err != nil {
		return nil, err
	}
	data, err := policy.LoadData(cfg.data)
	if err != nil {
		return nil, err
	}
	rules := policy.Module{Name: builtin.RulesName, Source: builtin.Rules}
	if cfg.rules != nil {
		rules = *cfg.rules
	}
	type compiled struct {
		eng *policy.Engine
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		// No caller's recover sees this goroutine: a panic while compiling
		// comes back as the error.
		defer func() {
			if r := recover(); r != nil {
				done <- compiled{err: fmt.Errorf("internal error while compiling the rules: %v", r)}
			}
		}()
		eng, err := policy.CompileCached(ctx, policy.Config{Builtin: []policy.Module{rules}, User: user, Data: data})
		done <- compiled{eng, err}
	}()
	g := &Gate{cfg: cfg, userLen: len(user)}
	// Waited for once, by whichever call needs it first: the Gate is used
	// concurrently.
	g.engine = sync.OnceValues(func() (*policy.Engine, error) {
		c := <-done
		return c.eng, c.err
	})
	return g, nil
}

// Engine waits for the compiled policy (for explanations).
func (g *Gate) Engine() (*policy.Engine, error) { return g.engine() }

// need checks that users' policies, when given, define the rule this run
// evaluates: policies of which none is evaluated are an error, never a
// silent pass.
func (g *Gate) need(eng *policy.Engine, rule string) error {
	if g.userLen == 0 || g.cfg.anyRules {
		return nil
	}
	c := eng.Custom()
	if (rule == "finding" && len(c.Finding) > 0) || (rule == "stop" && len(c.Stop) > 0) {
		return nil
	}
	return policiesError(fmt.Sprintf("no package under effectlint.custom defines a `%s` rule, so none of the given policies would be evaluated here", rule))
}

// ErrPolicies matches (errors.Is) an error in the users' policies as given.
var ErrPolicies = errors.New("policies")

type policiesError string

func (e policiesError) Error() string { return string(e) }

func (policiesError) Is(target error) bool { return target == ErrPolicies }

// ErrNoInput is the error of a run given no path, or paths with no
// transcript file in them.
var ErrNoInput = errors.New("no input")

// read is how one call reads: what it must keep, and whether inputs no
// reader recognizes fail closed.
type read struct {
	specFieldsOnly bool
	strict         bool
	asOf           time.Time
	asking         transcripts.AskingCall
}

// facts reads the inputs and builds the facts.
func (g *Gate) facts(paths []string, r read) (*analyzer.Facts, error) {
	if len(paths) == 0 && len(g.cfg.extra) == 0 {
		return nil, fmt.Errorf("%w: name files or directories, or - for standard input", ErrNoInput)
	}
	c := g.cfg
	asOf := c.asOf
	if !r.asOf.IsZero() {
		asOf = r.asOf
	}
	b := analyzer.New()
	b.MapPaths(c.pathMaps...)
	add := b.Add
	if !asOf.IsZero() {
		add = func(e transcripts.Event) {
			if !e.TS.After(asOf) {
				b.Add(e)
			}
		}
	}
	stdin := c.stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	opt := transcripts.Options{Stdin: stdin, MaxLineBytes: c.maxLineBytes, InputFormat: c.inputFormat, MaxProblems: c.maxProblems,
		SpecFieldsOnly: r.specFieldsOnly, Ignore: c.ignore, UnrecognizedIsProblem: r.strict, AsOf: asOf, Profile: c.profile,
		Extra: c.extra, Progress: c.progress, Cache: c.cache}
	if r.asking.ID != "" {
		opt.Asking = r.asking
	}
	if c.maxProblems == 0 {
		opt.MaxProblems = -1 // no limit
	}
	if len(c.ledgers) > 0 {
		opt.RecordedKeys = recordedKeys(c.ledgers)
	}
	res, err := transcripts.Read(paths, opt, add)
	if err != nil {
		return nil, err
	}
	// An extra input (a ledger) that holds no event is no input: a run
	// over it alone evaluated nothing (SPEC §7).
	read := 0
	for _, in := range res.Inputs {
		if in.Events > 0 || len(in.Problems) > 0 || !c.isExtra(in.Path) {
			read++
		}
	}
	if read == 0 && len(res.Inputs) > 0 {
		return nil, fmt.Errorf("%w: the inputs hold no event (%d input(s), every one empty)", ErrNoInput, len(res.Inputs))
	}
	if len(res.Inputs) == 0 {
		return nil, fmt.Errorf("%w: no transcript files (.jsonl, .ndjson, .json, optionally .gz) in %s", ErrNoInput, strings.Join(paths, ", "))
	}
	f := b.Build(res)
	f.Options.RequireChecks = c.requireChecks
	return f, nil
}

// Facts reads the inputs and returns the exact input the policy sees,
// every field kept (`effectlint facts`).
func (g *Gate) Facts(paths []string) (*analyzer.Facts, error) {
	return g.facts(paths, read{})
}

// evalContext bounds one evaluation by the time limit.
func (g *Gate) evalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.cfg.timeout == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, g.cfg.timeout)
}

// Timeout is the bound of each evaluation (0: none).
func (g *Gate) Timeout() time.Duration { return g.cfg.timeout }

func (c *config) isExtra(path string) bool {
	for _, x := range c.extra {
		if x.Name == path {
			return true
		}
	}
	return false
}

// recordedKeys reads, from the ledgers' journals, the keys claimed under
// each caller reference (a hook's tool_use_id), in the order claimed, with
// the claiming task: the reader takes them for that task's call instead
// of hashing its files now. Only a claim that crossed under its token
// counts (a released or never crossed claim recorded no delivery). A
// journal that cannot be read gives none (its input then fails as an
// unreadable history).
func recordedKeys(ledgers []func(context.Context) (ledger.Store, error)) func(string) []transcripts.RecordedKey {
	// Read when the first recorded call with an id asks, not before: a
	// run over native histories alone never reads the journal twice.
	keys := sync.OnceValue(func() map[string][]transcripts.RecordedKey {
		type grant struct {
			key, scope string
			token      int64
		}
		claims := map[grant]transcripts.RecordedKey{}
		refs := map[grant]string{}
		var order []grant
		crossed := map[grant]bool{}
		for _, get := range ledgers {
			s, err := get(context.Background())
			if err != nil {
				continue
			}
			_ = s.Journal(context.Background(), "", func(e ledger.Entry) error {
				g := grant{e.Key, e.Scope, e.Token}
				switch {
				case e.Op == ledger.OpClaim && e.Granted && e.Ref != "":
					if _, ok := claims[g]; !ok {
						order = append(order, g)
					}
					claims[g], refs[g] = transcripts.RecordedKey{Key: e.Key, Task: e.Task}, e.Ref
				case e.Op == ledger.OpCross && e.Granted:
					crossed[g] = true
				}
				return nil
			})
		}
		out := map[string][]transcripts.RecordedKey{}
		for _, g := range order {
			if crossed[g] && !slices.Contains(out[refs[g]], claims[g]) {
				out[refs[g]] = append(out[refs[g]], claims[g])
			}
		}
		return out
	})
	return func(id string) []transcripts.RecordedKey { return keys()[id] }
}
