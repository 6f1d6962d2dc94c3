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
// (issue 15, 890 MB), measured back to back, the fixed 384 MiB limit took
// 114 s and peaked at 1,062 MiB of RSS.
//
// So after every collection the limit becomes Limit(base, live, overhead):
// the base, or what the collection found live plus a quarter plus the
// runtime's memory that holds no object (fragmentation inside spans,
// stacks, the collector's metadata: the limit counts them, the live heap
// does not), whichever is more. Past the base the heap then grows by about
// a quarter of what is live between collections (as with GOGC=25), not by
// whatever the overhead leaves: the same history took 49 s and peaked at
// 1,074 MiB (58 s and 1,084 MiB with the quarter alone; half instead of a
// quarter: 42 s and 1,265 MiB, a third: 51 s and 1,158 MiB). Under the
// base nothing changes.
package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The runtime metrics the tuner reads: the heap the last collection
// marked live, and the classes of the memory the limit counts (all the
// runtime has mapped, less what it released to the system).
var metricNames = [...]string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
}

// Limit is the soft limit for a live heap of live bytes with overhead bytes
// of memory the limit counts beyond the heap's objects and free pages:
// base, or 1.25× live plus the overhead when that is more.
func Limit(base int64, live, overhead uint64) int64 {
	const most = math.MaxInt64 / 4
	if live > most || overhead > most {
		return math.MaxInt64
	}
	return max(base, int64(live)+int64(live)/4+int64(overhead))
}

// overhead is what the limit counts beyond the heap's objects and its free
// pages: fragmentation inside spans, stacks, metadata, the rest. 0 when the
// classes do not add up (they are read at one instant, but a runtime may
// count them differently).
func overhead(total, released, objects, free uint64) uint64 {
	used := objects + free + released
	if total < used {
		return 0
	}
	return total - used
}

// Tuner sets the soft limit after every collection until Stop.
type Tuner struct {
	base    int64
	mu      sync.Mutex // orders adjust and Stop
	stopped bool
	sample  []metrics.Sample
}

// Start sets the soft limit to base and then, after every collection, to
// Limit(base, live, overhead). The process's GOMEMLIMIT, when set, is for
// the caller to honour by not calling Start.
func Start(base int64) *Tuner {
	t := &Tuner{base: base, sample: make([]metrics.Sample, len(metricNames))}
	for i, name := range metricNames {
		t.sample[i].Name = name
	}
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
// (which would delay its finalizer). One allocated while a collection is
// marking survives it, so the tuner may skip a collection now and then.
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
	var v [len(metricNames)]uint64
	for i, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return false // a runtime without the metric: keep the base
		}
		v[i] = s.Value.Uint64()
	}
	debug.SetMemoryLimit(Limit(t.base, v[0], overhead(v[1], v[2], v[3], v[4])))
	return true
}
