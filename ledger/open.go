package ledger

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is what every store takes besides its address.
type Config struct {
	// Skew is added to the store's clock. Tests use it to let leases
	// expire without waiting; nothing else should set it.
	Skew func() time.Duration
	// Existing opens only a ledger that exists and holds its schema:
	// nothing is created. Readers (check, analyze, explain) set it, so a
	// typo in --ledger reads as an unreadable history, not as an empty
	// ledger that proves nothing was claimed.
	Existing bool
	// BusyTimeout bounds how long an operation waits for another
	// writer's transaction (default 5s). Past it the operation fails.
	BusyTimeout time.Duration
}

// Now applies the skew to a clock reading.
func (c Config) Now(t time.Time) time.Time {
	if c.Skew != nil {
		t = t.Add(c.Skew())
	}
	return t
}

// Busy is the busy timeout with its default.
func (c Config) Busy() time.Duration {
	if c.BusyTimeout > 0 {
		return c.BusyTimeout
	}
	return 5 * time.Second
}

// Opener opens a store at an address of its scheme.
type Opener func(ctx context.Context, addr string, cfg Config) (Store, error)

var (
	openersMu sync.Mutex
	openers   = map[string]Opener{}
)

// Register makes a store available to Open under a scheme ("sqlite",
// "postgres"). Store packages call it from init.
func Register(scheme string, o Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[scheme] = o
}

// Schemes lists the registered schemes.
func Schemes() []string {
	openersMu.Lock()
	defer openersMu.Unlock()
	var s []string
	for k := range openers {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Open opens the ledger a spec names: "sqlite:PATH" or a bare PATH (the
// embedded SQLite store), "postgres://…" or "postgresql://…". An empty
// spec is the default SQLite file (DefaultPath).
func Open(ctx context.Context, spec string, cfg Config) (Store, error) {
	scheme, addr := SplitSpec(spec)
	if scheme == "sqlite" && addr == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		addr = p
	}
	openersMu.Lock()
	o := openers[scheme]
	openersMu.Unlock()
	if o == nil {
		return nil, fmt.Errorf("ledger %q: no store for scheme %q (this build has %s)", Redact(spec), scheme, strings.Join(Schemes(), ", "))
	}
	return o(ctx, addr, cfg)
}

// SplitSpec tells a ledger spec's scheme and the address its store reads.
func SplitSpec(spec string) (scheme, addr string) {
	switch {
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return "postgres", spec
	case strings.HasPrefix(spec, "sqlite:"):
		return "sqlite", strings.TrimPrefix(spec, "sqlite:")
	}
	// Another URL names a store this build may not have: never a file
	// path (redis://host/0 must not become a folder "redis:").
	if i := strings.Index(spec, "://"); i > 0 && !strings.ContainsAny(spec[:i], "/\\.") {
		return spec[:i], spec
	}
	return "sqlite", spec
}

// Redact drops a password from a ledger spec, for messages: the one
// after the user name and a password= parameter.
func Redact(spec string) string {
	scheme, _ := SplitSpec(spec)
	if scheme != "postgres" {
		return spec
	}
	if q := strings.Index(spec, "?"); q >= 0 {
		params := strings.Split(spec[q+1:], "&")
		for i, p := range params {
			if strings.HasPrefix(p, "password=") {
				params[i] = "password=xxxxx"
			}
		}
		return redactUser(spec[:q]) + "?" + strings.Join(params, "&")
	}
	return redactUser(spec)
}

func redactUser(spec string) string {
	i := strings.Index(spec, "://")
	rest := spec[i+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return spec
	}
	cred := rest[:at]
	if c := strings.Index(cred, ":"); c >= 0 {
		cred = cred[:c] + ":xxxxx"
	}
	return spec[:i+3] + cred + rest[at:]
}

// DefaultPath is the SQLite file used when no ledger is named: ledger.db
// in effectlint's folder under the user's state directory
// ($XDG_STATE_HOME, or ~/.local/state).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no ledger named and no home directory for the default one: %v", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "effectlint", "ledger.db"), nil
}
