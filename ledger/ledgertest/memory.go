package ledgertest

import (
	"context"
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
	seq     int64 // the last entry's Seq: a prune shortens the journal
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
	pruned := map[[2]string]bool{}
	for k, r := range m.records {
		if r.State.Terminal() && r.Updated.Before(before) {
			pruned[k] = true
		}
	}
	var kept []ledger.Entry
	n := 0
	for _, e := range m.journal {
		k := [2]string{e.Key, e.Scope}
		if !pruned[k] {
			kept = append(kept, e)
		} else if e.Op == ledger.OpTombstone {
			pruned[k] = false // already a tombstone alone
			kept = append(kept, e)
		}
	}
	for k, p := range pruned {
		if p {
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

func (m *Memory) Now(context.Context) (time.Time, error) { return m.cfg.Now(time.Now()), nil }
func (m *Memory) Where() string                          { return "memory" }
func (m *Memory) Close() error                           { return nil }
