package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	const base = 384 << 20
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, base},
		{100 << 20, base},
		{307 << 20, base},      // 1.25× is just under the base
		{308 << 20, 385 << 20}, // and just over it: 1.25× live
		{600 << 20, 750 << 20},
		{math.MaxInt64 / 5 * 4, math.MaxInt64/5*4 + math.MaxInt64/5},
		{math.MaxInt64/5*4 + 1, math.MaxInt64},
		{math.MaxUint64, math.MaxInt64},
	} {
		if got := Limit(base, c.live); got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", base, c.live, got, c.want)
		}
	}
}

// currentLimit reads the soft limit without changing it.
func currentLimit() int64 { return debug.SetMemoryLimit(-1) }

// waitLimit collects until the limit satisfies ok (the tuner runs on the
// finalizer goroutine, after a collection) or a few seconds pass.
func waitLimit(t *testing.T, ok func(int64) bool) int64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		l := currentLimit()
		if ok(l) || time.Now().After(deadline) {
			return l
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTuner_FollowsTheLiveHeap: with a live heap of 64 MiB over a base of
// 16 MiB, the limit rises to about 80 MiB after a collection, and falls back
// to the base once the heap is freed, then stays there after Stop.
func TestTuner_FollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const base = 16 << 20
	tu := Start(base)
	if l := currentLimit(); l != base {
		t.Fatalf("after Start the limit is %d, want the base %d", l, base)
	}
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	l := waitLimit(t, func(l int64) bool { return l >= 80<<20 })
	runtime.KeepAlive(live)
	if l < 80<<20 || l > 100<<20 {
		t.Fatalf("with 64 MiB live the limit is %d MiB, want 80 to 100", l>>20)
	}
	live = nil
	if l := waitLimit(t, func(l int64) bool { return l == base }); l != base {
		t.Fatalf("with the heap freed the limit is %d MiB, want the base", l>>20)
	}
	tu.Stop()
	live = make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	if l := currentLimit(); l != base {
		t.Fatalf("after Stop the limit moved to %d MiB", l>>20)
	}
}
