package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

// Separate OS processes claim one scope at once, round after round, on a
// file none of them has created yet: exactly one is granted each round
// (and crosses and confirms), the others are refused, and the journal
// shows every claim.
func TestProcessesClaimOneAtATime(t *testing.T) {
	t.Parallel() // it mostly waits
	procs, rounds := 16, 20
	switch {
	case testing.Short():
		procs, rounds = 4, 5
	case raceEnabled: // the processes do not share memory: what -race checks is the test's side
		procs, rounds = 8, 10
	}
	path := filepath.Join(t.TempDir(), "shared", "ledger.db")
	type proc struct {
		in  io.WriteCloser
		out *bufio.Scanner
	}
	ps := make([]proc, procs)
	for i := range ps {
		cmd := helper(t, "claimer", "LEDGER="+path, fmt.Sprintf("TASK=p%02d", i))
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close(); cmd.Wait() })
		ps[i] = proc{in: in, out: bufio.NewScanner(out)}
	}
	read := func(i int) string {
		if !ps[i].out.Scan() {
			t.Fatalf("process %d ended: %v", i, ps[i].out.Err())
		}
		return ps[i].out.Text()
	}
	start := time.Now()
	var lat []time.Duration
	for round := 0; round < rounds; round++ {
		// The barrier: every process is ready (opened, done with the
		// last round) before any is told to go.
		for i := range ps {
			if got, want := read(i), fmt.Sprint("ready ", round); got != want {
				t.Fatalf("process %d: %q, want %q", i, got, want)
			}
		}
		for i := range ps {
			fmt.Fprintln(ps[i].in, "go")
		}
		granted := 0
		for i := range ps {
			f := strings.Fields(read(i))
			switch {
			// Tokens are the ledger's: each round's grant is the round's.
			case len(f) == 3 && f[0] == "granted" && f[1] == strconv.Itoa(round+1):
				granted++
			case len(f) == 5 && f[0] == "refused" && (f[1] == ledger.ClaimedByOther || f[1] == ledger.KeyConsumed) && f[3] == strconv.Itoa(round+1):
			default:
				t.Fatalf("round %d, process %d: %s", round, i, strings.Join(f, " "))
			}
			us, _ := strconv.Atoi(f[len(f)-1])
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
		if granted != 1 {
			t.Fatalf("round %d: %d grants among %d processes, want 1", round, granted, procs)
		}
	}
	for i := range ps {
		read(i)
		fmt.Fprintln(ps[i].in, "stop")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("%d processes × %d rounds: one grant a round, %s; claim latency p50 %s, p99 %s, max %s", procs, rounds,
		time.Since(start).Round(time.Millisecond), lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1])

	s, err := sqlite.Open(context.Background(), path, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for round := 0; round < rounds; round++ {
		key := ledgertest.Key(1000 + round)
		claims, grants := 0, 0
		err := s.Journal(context.Background(), key, func(e ledger.Entry) error {
			if e.Op == ledger.OpClaim {
				claims++
				if e.Granted {
					grants++
				}
			}
			return nil
		})
		rec, ok, gerr := s.Get(context.Background(), key, ledger.OriginalScope)
		if err != nil || gerr != nil || claims != procs || grants != 1 || !ok || rec.State != ledger.SentVerified || rec.Token != int64(round+1) {
			t.Errorf("round %d: journal has %d claims, %d granted (%v); record %+v %v %v", round, claims, grants, err, rec, ok, gerr)
		}
	}
}
