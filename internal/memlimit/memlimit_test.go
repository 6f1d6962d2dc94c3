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
		live, overhead uint64
		want           int64
	}{
		{0, 0, base},
		{100 << 20, 0, base},
		{307 << 20, 0, base},             // 1.25× is just under the base
		{308 << 20, 0, 385 << 20},        // and just over it: 1.25× live
		{300 << 20, 10 << 20, 385 << 20}, // the overhead counts too
		{600 << 20, 0, 750 << 20},
		{600 << 20, 40 << 20, 790 << 20},
		{math.MaxInt64 / 4, 0, math.MaxInt64/4 + math.MaxInt64/16},
		{math.MaxInt64 / 4, math.MaxInt64 / 4, math.MaxInt64/4*2 + math.MaxInt64/4/4},
		{math.MaxInt64/4 + 1, 0, math.MaxInt64},
		{0, math.MaxInt64/4 + 1, math.MaxInt64},
		{math.MaxUint64, math.MaxUint64, math.MaxInt64},
	} {
		if got := Limit(base, c.live, c.overhead); got != c.want {
			t.Errorf("Limit(%d, %d, %d) = %d, want %d", base, c.live, c.overhead, got, c.want)
		}
	}
}

func TestOverhead(t *testing.T) {
	if got := overhead(100, 10, 50, 15); got != 25 {
		t.Errorf("overhead(100, 10, 50, 15) = %d, want 25", got)
	}
	if got := overhead(100, 10, 80, 15); got != 0 {
		t.Errorf("classes that do not add up: overhead %d, want 0", got)
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

func hold(mib int) [][]byte {
	live := make([][]byte, mib)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	return live
}

// TestTuner_FollowsTheLiveHeap: with a live heap of 64 MiB over a base of
// 16 MiB, the limit rises to 80 MiB and a little more (the runtime's own
// overhead) after a collection, and falls back to the base once the heap
// is freed. Stop sets the base back at once, and the limit stays there
// while the heap is live again.
func TestTuner_FollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const base = 16 << 20
	tu := Start(base)
	if l := currentLimit(); l != base {
		t.Fatalf("after Start the limit is %d, want the base %d", l, base)
	}
	raised := func(l int64) bool { return l >= 80<<20 }
	live := hold(64)
	l := waitLimit(t, raised)
	runtime.KeepAlive(live)
	if l < 80<<20 || l > 112<<20 {
		t.Fatalf("with 64 MiB live the limit is %d MiB, want 80 to 112", l>>20)
	}
	live = nil
	if l := waitLimit(t, func(l int64) bool { return l == base }); l != base {
		t.Fatalf("with the heap freed the limit is %d MiB, want the base", l>>20)
	}
	live = hold(64)
	if l := waitLimit(t, raised); !raised(l) {
		t.Fatalf("with 64 MiB live again the limit is %d MiB", l>>20)
	}
	tu.Stop()
	if l := currentLimit(); l != base {
		t.Fatalf("Stop left the limit at %d MiB, want the base", l>>20)
	}
	for range 10 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	if l := currentLimit(); l != base {
		t.Fatalf("after Stop the limit moved to %d MiB", l>>20)
	}
}
