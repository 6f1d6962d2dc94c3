package ledgertest

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/effectlint/effectlint/ledger"
)

// Memory is a ledger held in memory, one mutex for its transactions: the
// state machine with no database, for tests of the suite itself and of
// callers. It is not a store for real use (it forgets on exit).
type Memory struct {
	cfg     ledger.Config
	mu      sync.Mutex
	records map[[2]string]ledger.Record
	journal []ledger.Entry
	// seq is the last sequence number given: it only grows, Prune or not.
	seq int64
	// tokens is the last fencing token given, in any scope.
	tokens int64
}

// NewMemory opens an empty in-memory ledger.
func NewMemory(cfg ledger.Config) *Memory {
	return &Memory{cfg: cfg, records: map[[2]string]ledger.Record{}}
}

type memTx struct{ m *Memory }

func (x memTx) Now() (time.Time, error) { return x.m.cfg.Now(time.Now()), nil }
func (x memTx) Load(key, scope string) (ledger.Record, bool, error) {
	r, ok := x.m.records[[2]string{key, scope}]
	return r, ok, nil
}
func (x memTx) Related(key, scope string) ([]ledger.Record, error) {
	var out []ledger.Record
	for k, r := range x.m.records {
		if (k[0] != key || k[1] != scope) && ledger.ContentOf(k[0]) == ledger.ContentOf(key) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (x memTx) NextToken() (int64, error) { x.m.tokens++; return x.m.tokens, nil }

func (x memTx) Save(r ledger.Record) error { x.m.records[[2]string{r.Key, r.Scope}] = r; return nil }
func (x memTx) Append(e ledger.Entry) error {
	x.m.seq++
	e.Seq = x.m.seq
	x.m.journal = append(x.m.journal, e)
	return nil
}

func (m *Memory) do(f func(ledger.Tx) (ledger.Result, error)) (ledger.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return f(memTx{m})
}

func (m *Memory) Claim(_ context.Context, req ledger.ClaimRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeClaim(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return m.do(func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoClaim(tx, req) })
}

func (m *Memory) Cross(_ context.Context, req ledger.CrossRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeCross(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return m.do(func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoCross(tx, req) })
}

func (m *Memory) Settle(_ context.Context, req ledger.SettleRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeSettle(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return m.do(func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoSettle(tx, req) })
}

func (m *Memory) Authorize(_ context.Context, req ledger.AuthorizeRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeAuthorize(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return m.do(func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoAuthorize(tx, req) })
}

func (m *Memory) Get(_ context.Context, key, scope string) (ledger.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[[2]string{key, scope}]
	return r, ok, nil
}

func (m *Memory) Journal(_ context.Context, key string, fn func(ledger.Entry) error) error {
	m.mu.Lock()
	j := append([]ledger.Entry(nil), m.journal...)
	m.mu.Unlock()
	for _, e := range j {
		if key == "" || e.Key == key {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *Memory) Prune(_ context.Context, before time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var pruned [][2]string
	for k, r := range m.records {
		if r.State.Terminal() && r.Updated.Before(before) {
			pruned = append(pruned, k)
		}
	}
	sort.Slice(pruned, func(i, j int) bool {
		return pruned[i][0] < pruned[j][0] || pruned[i][0] == pruned[j][0] && pruned[i][1] < pruned[j][1]
	})
	// A pruned scope's journal becomes its record's tombstone alone: one
	// already there stays (a second Prune writes none), anything else goes,
	// a tombstone of an earlier state too.
	isPruned := map[[2]string]bool{}
	for _, k := range pruned {
		isPruned[k] = true
	}
	tombed := map[[2]string]bool{}
	var kept []ledger.Entry
	for _, e := range m.journal {
		k := [2]string{e.Key, e.Scope}
		switch {
		case !isPruned[k]:
			kept = append(kept, e)
		case e.Op == ledger.OpTombstone && !tombed[k] && sameEntry(e, ledger.TombstoneOf(m.records[k])):
			tombed[k] = true
			kept = append(kept, e)
		}
	}
	n := 0
	for _, k := range pruned {
		if !tombed[k] {
			t := ledger.TombstoneOf(m.records[k])
			m.seq++
			t.Seq = m.seq
			kept = append(kept, t)
			n++
		}
	}
	m.journal = kept
	return n, nil
}

// sameEntry compares two entries but for their sequence numbers.
func sameEntry(a, b ledger.Entry) bool {
	if !a.Time.Equal(b.Time) || !a.LeaseExpires.Equal(b.LeaseExpires) {
		return false
	}
	a.Seq, a.Time, a.LeaseExpires = b.Seq, b.Time, b.LeaseExpires
	return a == b
}

func (m *Memory) Now(context.Context) (time.Time, error) { return m.cfg.Now(time.Now()), nil }
func (m *Memory) Where() string                          { return "memory" }
func (m *Memory) Close() error                           { return nil }
