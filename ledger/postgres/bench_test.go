package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// The benchmarks run against EFFECTLINT_TEST_POSTGRES like the tests, each
// in a fresh schema:
//
//	go test -run '^$' -bench . -benchtime 2000x ./ledger/postgres
//
// Latencies are reported as p50-ms and p99-ms, the parallel ones as ops/s
// and grants/s.

// latencies records each operation's duration and reports p50 and p99.
type latencies []time.Duration

func (l *latencies) time(f func()) {
	t := time.Now()
	f()
	*l = append(*l, time.Since(t))
}

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	q := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

func benchStore(b *testing.B, params ...string) *Store {
	_, u := freshSchema(b)
	s := open(b, withParam(b, u, params...), ledger.Config{})
	b.Cleanup(func() { s.Close() })
	if _, err := s.Now(context.Background()); err != nil { // the first connection
		b.Fatal(err)
	}
	return s
}

// must(b)(op(…)) is op's result, or b fails.
func must(b *testing.B) func(ledger.Result, error) ledger.Result {
	return func(r ledger.Result, err error) ledger.Result {
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
}

// A claim of a scope nobody claimed yet (the insert), one at a time.
func BenchmarkClaim(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	var l latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.time(func() {
			must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: ledgertest.Key(i), Lease: time.Minute}))
		})
	}
	b.StopTimer()
	l.report(b)
}

// A renewal of one's own claim (the update of an existing row).
func BenchmarkClaimRenew(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	key := ledgertest.Key(1)
	must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: key, Lease: time.Minute}))
	var l latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.time(func() { must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: key, Lease: time.Minute})) })
	}
	b.StopTimer()
	l.report(b)
}

// A worker's whole loop: claim, cross, settle confirmed.
func BenchmarkClaimCrossSettle(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	var l latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.time(func() {
			key := ledgertest.Key(i)
			r := must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: key, Lease: time.Minute}))
			must(b)(s.Cross(ctx, ledger.CrossRequest{Key: key, Token: r.Token}))
			must(b)(s.Settle(ctx, ledger.SettleRequest{Key: key, Token: r.Token, Outcome: ledger.Confirmed}))
		})
	}
	b.StopTimer()
	l.report(b)
}

// What one CLI call costs in-process: Open (a connection, the schema's
// version), one claim, Close.
func BenchmarkOpenClaimClose(b *testing.B) {
	_, u := freshSchema(b)
	open(b, u, ledger.Config{}).Close() // the schema
	ctx := context.Background()
	var l latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.time(func() {
			s, err := Open(ctx, u, ledger.Config{})
			if err != nil {
				b.Fatal(err)
			}
			must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: "w", Key: ledgertest.Key(i), Lease: time.Minute}))
			s.Close()
		})
	}
	b.StopTimer()
	l.report(b)
}

// workers goroutines share one store; claim(w, i) is worker w's i-th
// claim. Reports operations and grants per second.
func parallel(b *testing.B, s *Store, workers int, claim func(w, i int) (granted bool)) {
	var next, grants atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	t := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := int(next.Add(1)); i <= b.N; i = int(next.Add(1)) {
				if claim(w, i) {
					grants.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	d := time.Since(t)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/d.Seconds(), "ops/s")
	b.ReportMetric(float64(grants.Load())/d.Seconds(), "grants/s")
}

// 32 workers claiming distinct keys (every claim a grant), at pool sizes.
func BenchmarkParallel32Distinct(b *testing.B) {
	for _, conns := range []int{4, 8, 16, 32} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			s := benchStore(b, "pool_max_conns", fmt.Sprint(conns))
			ctx := context.Background()
			parallel(b, s, 32, func(w, i int) bool {
				return must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: fmt.Sprint(w), Key: ledgertest.Key(i), Lease: time.Minute})).Granted
			})
		})
	}
}

// 32 workers on one hot key: each claims it and, when granted, releases
// it (settle not_crossed), so the next claim is granted again. grants/s
// is how often one scope changes hands.
func BenchmarkParallel32Hot(b *testing.B) {
	for _, conns := range []int{4, 32} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			s := benchStore(b, "pool_max_conns", fmt.Sprint(conns))
			ctx := context.Background()
			key := ledgertest.Key(1)
			parallel(b, s, 32, func(w, i int) bool {
				r := must(b)(s.Claim(ctx, ledger.ClaimRequest{Task: fmt.Sprint(w), Key: key, Lease: time.Minute}))
				if r.Granted {
					must(b)(s.Settle(ctx, ledger.SettleRequest{Key: key, Token: r.Token, Outcome: ledger.NotCrossed}))
				}
				return r.Granted
			})
		})
	}
}
