// Package memlimit keeps the Go heap's soft limit at a base while what is
// live stays well under it, and a quarter above what is live once it does
// not.
//
// A fixed soft limit (debug.SetMemoryLimit) keeps a run small by making the
// collector run more often as the heap nears it. That only works while the
// live heap is well under the limit. A history whose facts alone outgrow it
// (3 million events: about 530 MB live) leaves the collector nothing to
// free: it runs back to back, capped at half the CPU, for the rest of the
// run, and the heap grows past the limit all the same. On such a history
// (issue 15, 890 MB) the fixed 384 MiB limit took 105 s and peaked at
// 1,086 MiB of RSS.
//
// So after every collection the limit becomes Limit(base, live): the base,
// or what the collection found live plus a quarter, whichever is more. Past
// the base the heap then grows as with GOGC=25 (a collection per quarter of
// the live heap allocated), never back to back: the same history took 53 s
// and peaked at 1,094 MiB. (Half instead of a quarter: 42 s and 1,265 MiB;
// a third: 51 s and 1,158 MiB. The quarter keeps the peak where it was.)
// Under the base nothing changes.
package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// liveMetric is the heap the last collection marked live.
const liveMetric = "/gc/heap/live:bytes"

// Limit is the soft limit for a live heap of live bytes: base, or 1.25×
// live when that is more.
func Limit(base int64, live uint64) int64 {
	if live > math.MaxInt64/5*4 {
		return math.MaxInt64
	}
	return max(base, int64(live)+int64(live)/4)
}

// Tuner sets the soft limit after every collection until Stop.
type Tuner struct {
	base    int64
	mu      sync.Mutex // orders adjust and Stop
	stopped bool
	sample  []metrics.Sample
}

// Start sets the soft limit to base and then, after every collection, to
// Limit(base, live). The process's GOMEMLIMIT, when set, is for the caller
// to honour by not calling Start.
func Start(base int64) *Tuner {
	t := &Tuner{base: base, sample: []metrics.Sample{{Name: liveMetric}}}
	debug.SetMemoryLimit(base)
	t.arm()
	return t
}

// Stop ends the tuning and sets the limit back to the base.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	debug.SetMemoryLimit(t.base)
}

// sentinel is garbage from birth: the collection that finds it unreachable
// runs its finalizer, which is how the tuner learns that one ended. It holds
// a pointer so that the tiny allocator never packs it with other objects
// (which would delay its finalizer).
type sentinel struct {
	t *Tuner
}

func (t *Tuner) arm() {
	runtime.SetFinalizer(&sentinel{t: t}, func(s *sentinel) {
		if s.t.adjust() {
			s.t.arm()
		}
	})
}

// adjust sets the limit for what the last collection left live, and says
// whether to go on. It runs on the finalizer goroutine.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return false // a runtime without the metric: keep the base
	}
	debug.SetMemoryLimit(Limit(t.base, t.sample[0].Value.Uint64()))
	return true
}
