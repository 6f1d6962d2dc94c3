package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

// keys are n fresh keys, made before the clock starts.
func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = ledgertest.Key(i)
	}
	return ks
}

// latencies keeps each operation's duration and reports their p50 and p99.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	b.ReportMetric(float64(l[len(l)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(l[len(l)*99/100].Nanoseconds()), "p99-ns")
}

func eachSync(b *testing.B, f func(b *testing.B, s *sqlite.Store)) {
	for _, mode := range []string{"FULL", "NORMAL"} {
		b.Run("sync="+mode, func(b *testing.B) {
			restore := sqlite.SetSynchronous(mode)
			defer restore()
			f(b, openTemp(b, ledger.Config{}))
		})
	}
}

// One claim of a fresh key at a time: the latency a worker sees.
func BenchmarkClaim(b *testing.B) {
	eachSync(b, func(b *testing.B, s *sqlite.Store) {
		ctx := context.Background()
		ks := keys(b.N)
		lat := make(latencies, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			r, err := s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: ks[i], Lease: time.Minute})
			lat[i] = time.Since(start)
			if err != nil || !r.Granted {
				b.Fatal(r, err)
			}
		}
		b.StopTimer()
		lat.report(b)
	})
}

// A worker's whole loop: claim, cross, settle (three transactions).
func BenchmarkClaimCrossSettle(b *testing.B) {
	eachSync(b, func(b *testing.B, s *sqlite.Store) {
		ctx := context.Background()
		ks := keys(b.N)
		lat := make(latencies, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			r, err := s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: ks[i], Lease: time.Minute})
			if err != nil || !r.Granted {
				b.Fatal(r, err)
			}
			if r, err = s.Cross(ctx, ledger.CrossRequest{Key: ks[i], Token: r.Token}); err != nil || !r.Granted {
				b.Fatal(r, err)
			}
			if r, err = s.Settle(ctx, ledger.SettleRequest{Key: ks[i], Token: r.Token, Outcome: ledger.Confirmed}); err != nil || !r.Granted {
				b.Fatal(r, err)
			}
			lat[i] = time.Since(start)
		}
		b.StopTimer()
		lat.report(b)
	})
}

// What one CLI call costs in-process (effectlint claim): Open (the
// connection, the schema read, WAL mode, the migration check, the prepared
// statements), one claim of a fresh key, Close (the last connection
// checkpoints the WAL into the file). Whole-process claim is this plus the
// process's start-up (scripts/bench-ledger.sh).
func BenchmarkOpenClaimClose(b *testing.B) {
	for _, mode := range []string{"FULL", "NORMAL"} {
		b.Run("sync="+mode, func(b *testing.B) {
			restore := sqlite.SetSynchronous(mode)
			defer restore()
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "ledger.db")
			s, err := sqlite.Open(ctx, path, ledger.Config{}) // the schema
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
			ks := keys(b.N)
			lat := make(latencies, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				s, err := sqlite.Open(ctx, path, ledger.Config{})
				if err != nil {
					b.Fatal(err)
				}
				r, err := s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: ks[i], Lease: time.Minute})
				if err != nil || !r.Granted {
					b.Fatal(r, err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				lat[i] = time.Since(start)
			}
			b.StopTimer()
			lat.report(b)
		})
	}
}

// 32 goroutines claiming at once, on distinct keys or all on one (the
// first is granted, the others refused: each still a transaction and a
// journal entry). Latency includes waiting for the other writers.
func BenchmarkClaimParallel(b *testing.B) {
	const workers = 32
	for _, hot := range []bool{false, true} {
		name := map[bool]string{false: "distinct", true: "hot"}[hot]
		b.Run(name, func(b *testing.B) {
			eachSync(b, func(b *testing.B, s *sqlite.Store) {
				ctx := context.Background()
				ks := keys(b.N)
				lat := make(latencies, b.N)
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				for w := 0; w < workers; w++ {
					wg.Add(1)
					go func(w int) {
						defer wg.Done()
						task := fmt.Sprintf("w%d", w)
						for {
							i := int(next.Add(1)) - 1
							if i >= b.N {
								return
							}
							key := ks[i]
							if hot {
								key = ks[0]
							}
							start := time.Now()
							_, err := s.Claim(ctx, ledger.ClaimRequest{Task: task, Key: key, Lease: time.Hour})
							lat[i] = time.Since(start)
							if err != nil {
								b.Error(err)
								return
							}
						}
					}(w)
				}
				wg.Wait()
				b.StopTimer()
				lat.report(b)
			})
		})
	}
}
