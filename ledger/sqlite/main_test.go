package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

// roleEnv, when set, makes the test binary a helper process of a test
// instead of running tests: "claimer" (TestProcessesClaimOneAtATime) or
// "readonly" (TestReadOnly, as another user).
const roleEnv = "EFFECTLINT_SQLITE_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "claimer":
		os.Exit(claimer(os.Getenv("LEDGER"), os.Getenv("TASK")))
	case "readonly":
		for _, p := range readOnlyProblems(os.Getenv("SCENARIO"), os.Getenv("LEDGER")) {
			fmt.Println(p)
		}
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "unknown role", os.Getenv(roleEnv))
		os.Exit(2)
	}
}

// helper is the test binary as a helper process of role.
func helper(t *testing.T, role string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), append([]string{roleEnv + "=" + role}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func claimReq(t testing.TB, task, key string, lease time.Duration) ledger.ClaimRequest {
	t.Helper()
	req, err := ledger.NormalizeClaim(ledger.ClaimRequest{Task: task, Key: key, Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// wantErr requires err to be of kind and to name the file and words.
func wantErr(t testing.TB, what string, err error, kind error, path string, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, kind)
	}
	if !errors.Is(err, kind) {
		t.Errorf("%s: %v, want %v", what, err, kind)
	}
	for _, w := range append([]string{path}, words...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// state is what a ledger holds: its journal and the records of the
// scopes it names, to compare before and after failed operations.
func state(t testing.TB, s ledger.Store) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	scopes := map[[2]string]bool{}
	err := s.Journal(ctx, "", func(e ledger.Entry) error {
		lines = append(lines, fmt.Sprintf("%+v", e))
		scopes[[2]string{e.Key, e.Scope}] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var recs []string
	for k := range scopes {
		r, ok, err := s.Get(ctx, k[0], k[1])
		if err != nil {
			t.Fatal(err)
		}
		a := r.Authorization
		r.Authorization = nil // its fields, not its address
		recs = append(recs, fmt.Sprintf("%v %+v %+v", ok, r, a))
	}
	sort.Strings(recs)
	return strings.Join(append(lines, recs...), "\n")
}

// claimer is one process of TestProcessesClaimOneAtATime: for each round
// it says "ready", waits for "go" on stdin, claims the round's key and
// says what it got and how long the claim took (µs); when granted it
// crosses and confirms.
func claimer(path, task string) int {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, ledger.Config{BusyTimeout: 20 * time.Second})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer s.Close()
	var line string
	for round := 0; ; round++ {
		fmt.Println("ready", round)
		if _, err := fmt.Scanln(&line); err == io.EOF || line == "stop" {
			return 0
		}
		key := ledgertest.Key(1000 + round)
		req, _ := ledger.NormalizeClaim(ledger.ClaimRequest{Task: task, Key: key, Lease: time.Minute})
		start := time.Now()
		r, err := s.Claim(ctx, req)
		took := time.Since(start).Microseconds()
		switch {
		case err != nil:
			fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		case !r.Granted:
			fmt.Println("refused", r.Reasons[0].Rule, r.Holder, r.Token, took)
			continue
		}
		if c, err := s.Cross(ctx, ledger.CrossRequest{Key: key, Token: r.Token}); err != nil || !c.Granted {
			fmt.Println("error cross", c.Reasons, err)
			continue
		}
		if c, err := s.Settle(ctx, ledger.SettleRequest{Key: key, Token: r.Token, Outcome: ledger.Confirmed}); err != nil || !c.Granted {
			fmt.Println("error settle", c.Reasons, err)
			continue
		}
		fmt.Println("granted", r.Token, took)
	}
}

// readOnlyProblems opens the ledger at path, which this process can read
// but not write (scenario "file": the file is read-only, its directory
// writable), or neither open nor create ("directory": file and directory
// read-only; "new": no file, in a read-only directory), and says what
// went otherwise than it should.
func readOnlyProblems(scenario, path string) (problems []string) {
	ctx := context.Background()
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	check := func(what string, err error) {
		switch {
		case err == nil:
			bad("%s: no error", what)
		case !errors.Is(err, sqlite.ErrReadOnly) || !strings.Contains(err.Error(), path):
			bad("%s: %v, want ErrReadOnly naming %s", what, err, path)
		}
	}
	s, err := sqlite.Open(ctx, path, ledger.Config{BusyTimeout: 200 * time.Millisecond})
	if scenario != "file" {
		check("open", err)
		if err == nil {
			s.Close()
		}
		if _, err := os.Stat(path); scenario == "new" && err == nil {
			bad("open created %s", path)
		}
		return problems
	}
	if err != nil {
		bad("open a read-only file: %v", err)
		return problems
	}
	defer s.Close()
	key := ledgertest.Key(1)
	if r, ok, err := s.Get(ctx, key, ledger.OriginalScope); err != nil || !ok || r.State != ledger.Crossing {
		bad("get: %+v %v %v, want the crossing", r, ok, err)
	}
	n := 0
	if err := s.Journal(ctx, "", func(ledger.Entry) error { n++; return nil }); err != nil || n != fixtureEntries {
		bad("journal: %d entries, %v; want %d", n, err, fixtureEntries)
	}
	for op, f := range writes(key) {
		res, err := f(s)
		check(op, err)
		if res.Granted || res.Reasons != nil {
			bad("%s: answered %+v besides its error", op, res)
		}
	}
	return problems
}

// writes are one of each of the store's writing operations, each with
// something to act on in a fixtureLedger.
func writes(key string) map[string]func(ledger.Store) (ledger.Result, error) {
	ctx := context.Background()
	return map[string]func(ledger.Store) (ledger.Result, error){
		"claim": func(s ledger.Store) (ledger.Result, error) {
			req, _ := ledger.NormalizeClaim(ledger.ClaimRequest{Task: "w", Key: ledgertest.Key(2), Lease: time.Minute})
			return s.Claim(ctx, req)
		},
		"cross": func(s ledger.Store) (ledger.Result, error) {
			return s.Cross(ctx, ledger.CrossRequest{Key: key, Token: 1})
		},
		"settle": func(s ledger.Store) (ledger.Result, error) {
			return s.Settle(ctx, ledger.SettleRequest{Key: key, Token: 1, Outcome: ledger.Confirmed})
		},
		"authorize": func(s ledger.Store) (ledger.Result, error) {
			return s.Authorize(ctx, ledger.AuthorizeRequest{Key: key, Authorization: "a2", By: "pat", Reason: "again"})
		},
		"prune": func(s ledger.Store) (ledger.Result, error) {
			now, _ := s.Now(ctx)
			_, err := s.Prune(ctx, now.Add(time.Hour))
			return ledger.Result{}, err
		},
	}
}

// fixtureLedger writes a ledger in which each of writes would change
// something: key 1 crossing under token 1 (after a refused claim of
// another task), with authorization a1 recorded, and key 3 confirmed (a
// terminal scope for Prune). Its journal has fixtureEntries entries.
func fixtureLedger(t testing.TB, path string, cfg ledger.Config) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	key, done := ledgertest.Key(1), ledgertest.Key(3)
	steps := []func() (ledger.Result, error){
		func() (ledger.Result, error) { return s.Claim(ctx, claimReq(t, "a", key, time.Hour)) },
		func() (ledger.Result, error) { return s.Claim(ctx, claimReq(t, "b", key, time.Hour)) },
		func() (ledger.Result, error) { return s.Cross(ctx, ledger.CrossRequest{Key: key, Token: 1}) },
		func() (ledger.Result, error) {
			return s.Authorize(ctx, ledger.AuthorizeRequest{Key: key, Authorization: "a1", By: "pat", Reason: "lost"})
		},
		func() (ledger.Result, error) { return s.Claim(ctx, claimReq(t, "c", done, time.Hour)) },
		// Tokens are the ledger's: c's is the second granted.
		func() (ledger.Result, error) { return s.Cross(ctx, ledger.CrossRequest{Key: done, Token: 2}) },
		func() (ledger.Result, error) {
			return s.Settle(ctx, ledger.SettleRequest{Key: done, Token: 2, Outcome: ledger.Confirmed})
		},
	}
	for i, f := range steps {
		if _, err := f(); err != nil {
			s.Close()
			t.Fatalf("fixture step %d: %v", i, err)
		}
	}
	return s
}

const fixtureEntries = 7
