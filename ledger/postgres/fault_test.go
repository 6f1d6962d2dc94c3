package postgres

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// cluster is a throw-away PostgreSQL cluster of this test's own, made by
// scripts/postgres.sh (which runs the server as a non-root user when the
// test runs as root): the fault test stops and restarts it, which it must
// not do to the server the other tests (and packages) share.
type cluster struct {
	url, dir, script string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "postgres.sh"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", script, "start").Output()
	if err != nil {
		t.Fatalf("scripts/postgres.sh start: %v\n%s", err, stderrOf(err))
	}
	c := &cluster{script: script}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "EFFECTLINT_TEST_POSTGRES":
			c.url = v
		case "EFFECTLINT_TEST_POSTGRES_DIR":
			c.dir = v
		}
	}
	if c.url == "" || c.dir == "" {
		t.Fatalf("scripts/postgres.sh start printed:\n%s", out)
	}
	t.Cleanup(func() { _ = exec.Command("bash", script, "stop", c.dir).Run() })
	return c
}

func (c *cluster) run(t *testing.T, cmd string) {
	t.Helper()
	if out, err := exec.Command("bash", c.script, cmd, c.dir).CombinedOutput(); err != nil {
		t.Fatalf("scripts/postgres.sh %s: %v\n%s", cmd, err, out)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// step is one operation a worker ran and what it got.
type step struct {
	op      ledger.Op
	key     string
	token   int64
	granted bool
	state   ledger.State
	err     error
	zero    bool // the Result was the zero Result
	// down: the operation began after the server was stopped.
	down bool
}

// TestServerStoppedMidRun: workers run their loops (claim, cross, settle)
// on distinct keys; the server is stopped at once (pg_ctl -m immediate,
// no shutdown checkpoint: what a crash leaves) while they run. Every
// operation begun after that returns an error naming the server, never a
// Result. After a restart (WAL recovery) the store works again, every
// operation that was answered is in the journal, and each key's record
// and journal agree: no operation is half-written, and the one a worker
// had in flight when the server went is either whole or absent.
func TestServerStoppedMidRun(t *testing.T) {
	t.Parallel()
	serverURL(t) // PostgreSQL is expected here: skip or fail as the other tests
	if testing.Short() {
		t.Skip("-short: starts a cluster of its own")
	}
	c := startCluster(t)
	s := open(t, withParam(t, c.url, "pool_max_conns", "8"), ledger.Config{})
	defer s.Close()

	const workers = 8
	var down, stop atomic.Bool
	steps := make([][]step, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			do := func(op ledger.Op, key string, f func(context.Context) (ledger.Result, error)) (ledger.Result, bool) {
				wasDown := down.Load()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				r, err := f(ctx)
				cancel()
				if err != nil {
					time.Sleep(10 * time.Millisecond)
				}
				steps[w] = append(steps[w], step{op: op, key: key, token: r.Token, granted: r.Granted, state: r.State,
					err: err, zero: r.Key == "" && r.Reasons == nil && !r.Granted, down: wasDown})
				return r, err == nil
			}
			for i := 0; !stop.Load(); i++ {
				key := ledgertest.Key(10000*w + i)
				r, ok := do(ledger.OpClaim, key, func(ctx context.Context) (ledger.Result, error) {
					return s.Claim(ctx, ledger.ClaimRequest{Task: fmt.Sprint("w", w), Key: key, Lease: time.Minute})
				})
				if !ok || !r.Granted {
					continue
				}
				if r, ok = do(ledger.OpCross, key, func(ctx context.Context) (ledger.Result, error) {
					return s.Cross(ctx, ledger.CrossRequest{Key: key, Token: r.Token})
				}); !ok {
					continue
				}
				do(ledger.OpSettle, key, func(ctx context.Context) (ledger.Result, error) {
					return s.Settle(ctx, ledger.SettleRequest{Key: key, Token: r.Token, Outcome: ledger.Confirmed})
				})
			}
		}(w)
	}
	time.Sleep(500 * time.Millisecond)
	c.run(t, "crash")
	down.Store(true)
	time.Sleep(300 * time.Millisecond)

	// Down: the other operations fail too.
	ctx := context.Background()
	host := strings.TrimPrefix(strings.SplitN(c.url, "/", 4)[2], "postgres@")
	if _, err := s.Now(ctx); err == nil || !strings.Contains(err.Error(), host) {
		t.Errorf("Now while down: %v", err)
	}
	if _, _, err := s.Get(ctx, ledgertest.Key(0), ledger.OriginalScope); err == nil {
		t.Error("Get while down: no error")
	}
	if err := s.Journal(ctx, "", func(ledger.Entry) error { return nil }); err == nil {
		t.Error("Journal while down: no error")
	}
	if _, err := s.Prune(ctx, time.Now()); err == nil {
		t.Error("Prune while down: no error")
	}
	if r, err := s.Authorize(ctx, ledger.AuthorizeRequest{Key: ledgertest.Key(0), Authorization: "a", By: "p", Reason: "r"}); err == nil || r.Granted {
		t.Errorf("Authorize while down: %+v %v", r, err)
	}
	stop.Store(true)
	wg.Wait()

	c.run(t, "restart")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := s.Now(ctx); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the store does not work again after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	answered, failedDown, whole := 0, 0, 0
	for w, ws := range steps {
		var downSteps int
		for i, st := range ws {
			if st.down {
				downSteps++
				if st.err == nil || !st.zero {
					t.Fatalf("worker %d step %d began with the server down and was answered: %+v", w, i, st)
				}
				if !strings.Contains(st.err.Error(), host) {
					t.Fatalf("worker %d: the error does not name the server: %v", w, st.err)
				}
			}
			if st.err == nil {
				answered++
			} else if !st.zero {
				t.Fatalf("worker %d step %d: an error and a Result: %+v", w, i, st)
			}
		}
		if downSteps == 0 {
			t.Fatalf("worker %d ran nothing while the server was down", w)
		}
		failedDown += downSteps
		// Per key: the answered steps, then at most one that failed.
		for i := 0; i < len(ws); {
			j := i
			for j < len(ws) && ws[j].key == ws[i].key {
				j++
			}
			if checkKey(t, s, ws[i:j]) {
				whole++
			}
			i = j
		}
	}
	if answered == 0 {
		t.Fatal("nothing was answered before the server stopped")
	}
	t.Logf("%d operations answered before the stop, %d failed while the server was down; %d failed but are whole in the journal (committed as the server went)",
		answered, failedDown, whole)

	r, err := s.Claim(ctx, ledger.ClaimRequest{Task: "after", Key: ledgertest.Key(999999), Lease: time.Minute})
	if err != nil || !r.Granted || r.Token < 1 {
		t.Fatalf("a claim after the restart: %+v %v", r, err)
	}
}

// checkKey: the journal of one key holds its answered steps, in order,
// and then at most the one step that failed (if its commit reached the
// disk before the server went); the record is the state after the last
// entry; no entries, no record. It tells whether a failed step is in
// the journal.
func checkKey(t *testing.T, s *Store, steps []step) bool {
	t.Helper()
	ctx := context.Background()
	key := steps[0].key
	var j []ledger.Entry
	if err := s.Journal(ctx, key, func(e ledger.Entry) error { j = append(j, e); return nil }); err != nil {
		t.Fatal(err)
	}
	n := 0
	for n < len(steps) && steps[n].err == nil {
		n++
	}
	if n < len(steps)-1 {
		t.Fatalf("%s: a step after a failed one: %+v", key, steps)
	}
	if len(j) < n || len(j) > len(steps) {
		t.Fatalf("%s: %d journal entries for %d answered steps of %d: %+v / %+v", key, len(j), n, len(steps), j, steps)
	}
	for i, e := range j {
		st := steps[i]
		if e.Op != st.op {
			t.Fatalf("%s entry %d: %s, the worker ran %s", key, i, e.Op, st.op)
		}
		if st.err == nil && (e.Granted != st.granted || e.State != st.state || e.Token != st.token) {
			t.Fatalf("%s entry %d: %+v, the worker was answered %+v", key, i, e, st)
		}
	}
	rec, ok, err := s.Get(ctx, key, ledger.OriginalScope)
	if err != nil {
		t.Fatal(err)
	}
	if len(j) == 0 {
		if ok {
			t.Fatalf("%s: a record and no journal: %+v", key, rec)
		}
		return false
	}
	last := j[len(j)-1]
	if !ok || rec.State != last.State || rec.Token != last.Token {
		t.Fatalf("%s: the record %+v (%v) is not the state after the last entry %+v", key, rec, ok, last)
	}
	return len(j) > n
}
