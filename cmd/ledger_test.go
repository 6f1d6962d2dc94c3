package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// The ledger's commands, as whole processes, on both stores (SPEC §9).
// PostgreSQL is a real server named by EFFECTLINT_TEST_POSTGRES (.ci/run
// starts one); in CI (EFFECTLINT_REQUIRE_POSTGRES=1) its absence fails.

// ledgers gives a fresh, empty ledger of each store for one test.
func ledgers(t *testing.T) map[string]func(t *testing.T) string {
	m := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "ledger.db") },
	}
	if url := os.Getenv("EFFECTLINT_TEST_POSTGRES"); url != "" {
		m["postgres"] = func(t *testing.T) string { return freshPostgres(t, url) }
	} else if os.Getenv("EFFECTLINT_REQUIRE_POSTGRES") == "1" {
		t.Fatal("EFFECTLINT_TEST_POSTGRES is not set, and EFFECTLINT_REQUIRE_POSTGRES=1: the ledger tests need the server .ci/run starts")
	}
	return m
}

// ramLedger puts an SQLite ledger on /dev/shm when that is a writable
// tmpfs, else leaves it where it was.
func ramLedger(t *testing.T, l string) string {
	dir, err := os.MkdirTemp("/dev/shm", "effectlint-race-")
	if err != nil {
		return l
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return "sqlite:" + filepath.Join(dir, "ledger.db")
}

var pgSeq struct {
	sync.Mutex
	n int
}

// freshPostgres creates a database of its own for a test and drops it after.
func freshPostgres(t *testing.T, admin string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("PostgreSQL at EFFECTLINT_TEST_POSTGRES: %v", err)
	}
	defer conn.Close(ctx)
	pgSeq.Lock()
	pgSeq.n++
	name := fmt.Sprintf("el_cmd_%d_%d", os.Getpid(), pgSeq.n)
	pgSeq.Unlock()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, admin)
		if err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	if cfg.Password != "" {
		u = fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Password, cfg.Host, cfg.Port, name)
	}
	return u
}

// cli runs effectlint as a whole process (this test binary acting as the
// CLI) and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), asCLI+"=1")
	var out, errOut strings.Builder
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("effectlint %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

type ledgerAnswer struct {
	Operation     string  `json:"operation"`
	Granted       bool    `json:"granted"`
	Key           string  `json:"key"`
	Scope         string  `json:"scope"`
	State         string  `json:"state"`
	Token         int64   `json:"token"`
	Holder        *string `json:"holder"`
	LeaseExpires  *string `json:"lease_expires"`
	ProviderToken string  `json:"provider_token"`
	Reasons       []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"reasons"`
}

// op runs one ledger command with --format json and checks its exit.
func op(t *testing.T, wantExit int, args ...string) ledgerAnswer {
	t.Helper()
	out, stderr, code := cli(t, append(args, "--format", "json")...)
	if code != wantExit {
		t.Fatalf("effectlint %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, wantExit, out, stderr)
	}
	var a ledgerAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("effectlint %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return a
}

func rule(a ledgerAnswer) string {
	if len(a.Reasons) == 0 {
		return ""
	}
	return a.Reasons[0].Rule
}

func TestLedgerCLI_WorkerLoopAndEvidence(t *testing.T) {
	for name, fresh := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			l := fresh(t)
			key := ledgertest.Key(7)
			a := op(t, 0, "claim", "--ledger", l, "--task", "w1", "--key", key, "--lease", "1m")
			if !a.Granted || a.State != "claimed" || a.Token != 1 || a.Holder == nil || *a.Holder != "w1" || a.LeaseExpires == nil || !strings.HasPrefix(a.ProviderToken, "effectlint-") {
				t.Fatalf("claim: %+v", a)
			}
			b := op(t, 1, "claim", "--ledger", l, "--task", "w2", "--key", key)
			if b.Granted || rule(b) != "CLAIMED" || !strings.Contains(b.Reasons[0].Message, "w1") {
				t.Fatalf("second claim: %+v", b)
			}
			// While w1 holds the claim, a check over the ledger stops w2.
			out, _, code := run(t, "check", "--ledger", l, "--task", "w2", "--checkpoint", "send", "--key", key, "--format", "json")
			if code != ExitFindings || !strings.Contains(out, `"NOT_ELECTED"`) {
				t.Fatalf("check while claimed: exit %d\n%s", code, out)
			}
			if c := op(t, 0, "cross", "--ledger", l, "--key", key, "--token", "1"); c.State != "crossing" {
				t.Fatalf("cross: %+v", c)
			}
			if s := op(t, 0, "settle", "--ledger", l, "--key", key, "--token", "1", "--outcome", "confirmed"); s.State != "sent_verified" {
				t.Fatalf("settle: %+v", s)
			}
			if c := op(t, 1, "claim", "--ledger", l, "--task", "w3", "--key", key); rule(c) != "KEY_CONSUMED" {
				t.Fatalf("claim after delivery: %+v", c)
			}
			out, _, code = run(t, "check", "--ledger", l, "--task", "w3", "--checkpoint", "send", "--key", key, "--format", "json")
			if code != ExitFindings || !strings.Contains(out, `"KEY_CONSUMED"`) || !strings.Contains(out, `"sent_verified"`) {
				t.Fatalf("check after delivery: exit %d\n%s", code, out)
			}
			// ledger export, read by analyze, gives the same state.
			exp, stderr, code := cli(t, "ledger", "export", "--ledger", l)
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, []byte(exp), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, _ = run(t, "analyze", "--format", "json", path)
			if !strings.Contains(out, `"state": "sent_verified"`) {
				t.Fatalf("analyze of the export:\n%s\n%s", exp, out)
			}
			show, _, code := cli(t, "ledger", "show", "--ledger", l)
			if code != 0 || strings.Count(show, "\n") != 5 || !strings.Contains(show, "refused CLAIMED") {
				t.Fatalf("show: exit %d\n%s", code, show)
			}
		})
	}
}

func TestLedgerCLI_Fencing(t *testing.T) {
	for name, fresh := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			l := fresh(t)
			key := ledgertest.Key(8)
			op(t, 0, "claim", "--ledger", l, "--task", "A", "--key", key, "--lease", "400ms")
			time.Sleep(500 * time.Millisecond)
			if b := op(t, 0, "claim", "--ledger", l, "--task", "B", "--key", key, "--lease", "1m"); b.Token != 2 {
				t.Fatalf("B's claim after A's lease: %+v", b)
			}
			for _, args := range [][]string{
				{"cross", "--key", key, "--token", "1"},
				{"settle", "--key", key, "--token", "1", "--outcome", "not_crossed"},
				{"settle", "--key", key, "--token", "1", "--outcome", "confirmed"},
			} {
				if a := op(t, 1, append(args, "--ledger", l)...); rule(a) != "FENCED" || a.State != "claimed" || a.Token != 2 {
					t.Fatalf("A's %s with token 1: %+v", args[0], a)
				}
			}
			op(t, 0, "cross", "--ledger", l, "--key", key, "--token", "2")
			if s := op(t, 0, "settle", "--ledger", l, "--key", key, "--token", "2", "--outcome", "confirmed"); s.State != "sent_verified" {
				t.Fatalf("B's settle: %+v", s)
			}
		})
	}
}

// Exactly one of 64 processes claiming one scope at once is granted,
// round after round; the others are refused (exit 1), none fails.
//
// Rounds: 50 under EFFECTLINT_TEST_SOAK=1 (.ci/run sets it), 1
// otherwise. Each round starts 64 whole processes of the test binary,
// about 85 ms of CPU each on this 2-core machine with 64 at once (35 ms
// of it is starting a 58 MB binary, much of the rest system time): three
// rounds on SQLite took 16 s of CPU, a fifth of the cmd package's. Every
// round asks the whole question (one grant among 64 processes); the
// soak asks it again and again, and the store's own test
// (ledger/sqlite TestProcessesClaimOneAtATime) races long-lived
// processes for 20 rounds in every run (docs/testing.md).
func TestLedgerCLI_ProcessesRaceForOneScope(t *testing.T) {
	t.Parallel() // mostly waiting: SQLite's busy retries, PostgreSQL's connections
	rounds := 1
	if os.Getenv("EFFECTLINT_TEST_SOAK") == "1" {
		rounds = 50
	}
	for name, fresh := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := fresh(t)
			if name == "sqlite" {
				// The race is about the lock, not the disk: on tmpfs the
				// winner's fsync no longer holds the 63 others in
				// SQLite's busy-handler sleeps (136 s → 71 s for 50
				// rounds here). Same BEGIN IMMEDIATE, same file locks.
				l = ramLedger(t, l)
			}
			if name == "postgres" {
				// 64 claims queue on one row lock, each holding it for a
				// transaction: on a loaded 2-core machine the last waited
				// past the default lock_timeout of 5 s (the busy timeout)
				// and exited 2 (effect unknown), a stop, as it should;
				// the race is about one grant, not about the wait.
				// The same holds for connecting: on CI, with the policy
				// tests beside it, a backend took past the default
				// connect_timeout of 10 s to answer in round 19 of 50.
				l += "&lock_timeout=120000&connect_timeout=120"
			}
			if _, stderr, code := cli(t, "ledger", "init", "--ledger", l); code != 0 {
				t.Fatalf("init: %s", stderr)
			}
			for round := 0; round < rounds; round++ {
				key := ledgertest.Key(1000 + round)
				procs := make([]*exec.Cmd, 64)
				outs := make([]*strings.Builder, 64)
				for w := range procs {
					c := exec.Command(os.Args[0], "claim", "--ledger", l, "--task", fmt.Sprintf("w%02d", w), "--key", key, "--format", "json")
					c.Env = append(os.Environ(), asCLI+"=1")
					outs[w] = &strings.Builder{}
					c.Stdout, c.Stderr = outs[w], outs[w]
					if err := c.Start(); err != nil {
						t.Fatal(err)
					}
					procs[w] = c
				}
				granted, refused := 0, 0
				for w, c := range procs {
					err := c.Wait()
					switch code := c.ProcessState.ExitCode(); code {
					case 0:
						granted++
					case 1:
						refused++
					default:
						t.Fatalf("round %d, worker %d: exit %d (%v)\n%s", round, w, code, err, outs[w])
					}
				}
				if granted != 1 || refused != 63 {
					t.Fatalf("round %d: %d granted, %d refused; want 1 and 63", round, granted, refused)
				}
			}
			t.Logf("%s: %d rounds of 64 processes, one grant each", name, rounds)
		})
	}
}

// A worker killed with SIGKILL between claim and cross frees the scope
// when its lease runs out (the next claim gets the next token); one killed
// after cross leaves the scope send_status_unknown for good, and a check
// over the ledger stops the same way.
func TestLedgerCLI_WorkerKilled(t *testing.T) {
	for name, fresh := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, script string
				wantToken    int64
				wantRule     string
			}{
				{"between claim and cross", `"$EL" claim --ledger "$L" --task w1 --key "$K" --lease 700ms && echo claimed > "$D/step" && sleep 60 && "$EL" cross --ledger "$L" --key "$K" --token 1`, 2, ""},
				{"after cross", `"$EL" claim --ledger "$L" --task w1 --key "$K" --lease 700ms && "$EL" cross --ledger "$L" --key "$K" --token 1 && echo crossed > "$D/step" && sleep 60`, 1, "KEY_CONSUMED"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					l, dir := fresh(t), t.TempDir()
					key := ledgertest.Key(9)
					w := exec.Command("sh", "-c", tc.script)
					w.Env = append(os.Environ(), asCLI+"=1", "EL="+os.Args[0], "L="+l, "K="+key, "D="+dir)
					w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
					if err := w.Start(); err != nil {
						t.Fatal(err)
					}
					deadline := time.Now().Add(20 * time.Second)
					for {
						if _, err := os.Stat(filepath.Join(dir, "step")); err == nil {
							break
						}
						if time.Now().After(deadline) {
							syscall.Kill(-w.Process.Pid, syscall.SIGKILL)
							t.Fatal("the worker never reached its step")
						}
						time.Sleep(10 * time.Millisecond)
					}
					if err := syscall.Kill(-w.Process.Pid, syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					_ = w.Wait()
					// While the lease runs, the scope is held.
					if a := op(t, 1, "claim", "--ledger", l, "--task", "w2", "--key", key); a.Granted {
						t.Fatalf("claim during the dead worker's lease: %+v", a)
					}
					time.Sleep(800 * time.Millisecond)
					if tc.wantRule == "" {
						a := op(t, 0, "claim", "--ledger", l, "--task", "w2", "--key", key)
						if a.Token != tc.wantToken {
							t.Fatalf("claim after the lease: %+v", a)
						}
						return
					}
					for i := 0; i < 2; i++ { // forever: asking again changes nothing
						a := op(t, 1, "claim", "--ledger", l, "--task", "w2", "--key", key)
						if rule(a) != tc.wantRule || a.State != "send_status_unknown" || a.Token != 1 {
							t.Fatalf("claim after the lease: %+v", a)
						}
					}
					out, _, code := run(t, "check", "--ledger", l, "--task", "w2", "--checkpoint", "send", "--key", key, "--format", "json")
					if code != ExitFindings || !strings.Contains(out, `"KEY_CONSUMED"`) || !strings.Contains(out, `"send_status_unknown"`) {
						t.Fatalf("check over the ledger: exit %d\n%s", code, out)
					}
				})
			}
		})
	}
}

// A ledger that cannot be used fails every operation with exit 2 and a
// message naming it, and stops every check over it (HISTORY_UNREADABLE).
func TestLedgerCLI_BrokenLedgers(t *testing.T) {
	key := ledgertest.Key(10)
	dir := t.TempDir()
	notDB := filepath.Join(dir, "random.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database, just bytes\n", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.db")
	if _, stderr, code := cli(t, "claim", "--ledger", truncated, "--task", "w1", "--key", key); code != 0 {
		t.Fatal(stderr)
	}
	st, err := os.Stat(truncated)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(truncated, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	os.Remove(truncated + "-wal")
	os.Remove(truncated + "-shm")
	for name, l := range map[string]string{
		"not a database":   notDB,
		"truncated":        truncated,
		"a directory":      dir,
		"unreachable pg":   "postgres://nobody@127.0.0.1:1/none?connect_timeout=2",
		"an unknown store": "redis://localhost/0",
	} {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{
				{"claim", "--task", "w1", "--key", key},
				{"cross", "--key", key, "--token", "1"},
				{"settle", "--key", key, "--token", "1", "--outcome", "confirmed"},
				{"authorize", "--key", key, "--authorization", "a1", "--by", "pat", "--reason", "r"},
				{"ledger", "show"},
				{"ledger", "export"},
			} {
				out, stderr, code := cli(t, append(args, "--ledger", l)...)
				if code != ExitError || !strings.HasPrefix(stderr, "effectlint: ") || out != "" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and a message", args[0], code, out, stderr)
				}
			}
			out, _, code := run(t, "check", "--ledger", l, "--task", "w1", "--checkpoint", "send", "--key", key, "--format", "json")
			if code != ExitFindings || !strings.Contains(out, `"HISTORY_UNREADABLE"`) {
				t.Errorf("check over it: exit %d\n%s", code, out)
			}
		})
	}
}

// A reader never creates a ledger: check over a --ledger that does not
// exist (a typo) stops as over an unreadable history, and leaves no file.
func TestLedgerCLI_CheckNeverCreatesALedger(t *testing.T) {
	key := ledgertest.Key(11)
	missing := filepath.Join(t.TempDir(), "no", "such", "ledger.db")
	for _, l := range []string{missing, " "} {
		out, _, code := run(t, "check", "--ledger", l, "--task", "w1", "--checkpoint", "send", "--key", key, "--format", "json")
		if code != ExitFindings || !strings.Contains(out, `"HISTORY_UNREADABLE"`) {
			t.Errorf("check --ledger %q: exit %d\n%s", l, code, out)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Fatalf("check created %s", filepath.Dir(missing))
	}
	// An initialized but empty ledger and nothing else is no input (exit 2).
	l := filepath.Join(t.TempDir(), "empty.db")
	if _, stderr, code := cli(t, "ledger", "init", "--ledger", l); code != 0 {
		t.Fatal(stderr)
	}
	if out, _, code := run(t, "check", "--ledger", l, "--task", "w1", "--key", key); code != ExitError {
		t.Fatalf("check over an empty ledger alone: exit %d, want 2\n%s", code, out)
	}
}

// --ledger given empty (--ledger "$LEDGER", the variable unset) is the
// ledger claim would use, never none (a seventh review: check read no
// ledger and allowed a scope claim refused as held).
func TestLedgerCLI_CheckWithAnEmptyLedgerFlagReadsClaimsLedger(t *testing.T) {
	key := ledgertest.Key(13)
	l := filepath.Join(t.TempDir(), "l.db")
	if _, stderr, code := cli(t, "claim", "--ledger", l, "--task", "w1", "--key", key, "--lease", "1m"); code != 0 {
		t.Fatalf("claim: %s", stderr)
	}
	history := t.TempDir()
	if err := os.WriteFile(filepath.Join(history, "z.jsonl"), []byte(`{"ts":"2026-11-30T07:00:00Z","task":"other","type":"task_started","relation":"root"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(LedgerEnv, l)
	out, _, code := run(t, "check", "--ledger", "", "--task", "w2", "--checkpoint", "send", "--key", key, "--format", "json", history)
	if code != ExitFindings || !strings.Contains(out, `"KEY_CONSUMED"`) {
		t.Errorf("check --ledger '' with $%s holding w1's claim: exit %d\n%s", LedgerEnv, code, out)
	}
	// Without the variable: the default ledger, which does not exist here.
	t.Setenv(LedgerEnv, "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	out, _, code = run(t, "check", "--ledger", "", "--task", "w2", "--checkpoint", "send", "--key", key, "--format", "json", history)
	if code != ExitFindings || !strings.Contains(out, `"HISTORY_UNREADABLE"`) {
		t.Errorf("check --ledger '' with no ledger anywhere: exit %d\n%s", code, out)
	}
}

// A claim decides now: --as-of, which replays the past, is refused.
func TestLedgerCLI_ClaimRefusesAsOf(t *testing.T) {
	l := filepath.Join(t.TempDir(), "l.db")
	_, stderr, code := cli(t, "claim", "--ledger", l, "--task", "w1", "--key", ledgertest.Key(12), "--as-of", "2020-01-01T00:00:00Z", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "--as-of") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
