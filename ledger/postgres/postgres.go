// Package postgres is the key ledger's PostgreSQL store, for fleets of
// workers on many machines (SPEC §9): `--ledger postgres://…`.
//
// Every operation is one short transaction of two round trips: the first
// begins it, takes a transaction-scoped advisory lock on the scope's
// (key, scope) and the row's lock (SELECT … FOR UPDATE), and reads the
// server's clock after both; the second writes the record and the journal
// entry and commits. The advisory lock serializes the operations on a
// scope the ledger has no record of yet, which have no row to lock (a
// missing row is what the state machine reads as "no record"); it is
// never the record itself. Should two transactions still insert one
// scope's first record, the primary key refuses the second, which is run
// again and finds the row.
//
// Leases are measured by the server's clock (clock_timestamp(), read
// inside the transaction after the locks), so workers on machines whose
// clocks disagree still agree on who holds a scope. Times are timestamptz
// (microseconds). synchronous_commit is the server's: an operation is
// answered after its commit is durable if the server says so (its default).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func init() {
	ledger.Register("postgres", func(ctx context.Context, addr string, cfg ledger.Config) (ledger.Store, error) {
		return Open(ctx, addr, cfg)
	})
}

// Store is a key ledger in a PostgreSQL database (in the schema the
// connection's search_path names first).
type Store struct {
	pool  *pgxpool.Pool
	cfg   ledger.Config
	where string
	// noScopeLocks: take no advisory lock on the scopes. Only a test sets
	// it, to show that the primary key alone still grants one claim of a
	// new scope (the locks keep the journal's order that of the operations).
	noScopeLocks bool
	// retries counts the operations run again (the tests read it).
	retries atomic.Int64
}

// attempts bounds how often an operation runs again after a
// serialization failure or deadlock (SQLSTATE 40001, 40P01) or a lost
// race to insert a scope's first record.
const attempts = 5

// Open connects to the ledger at url (postgres:// or postgresql://; pgx's
// parameters apply: pool_max_conns, default 4 or the number of CPUs if
// more; search_path, the schema of the tables) and creates or migrates
// its schema when it is missing or older (Init). Connections are made as
// needed: Open itself costs one connection and one query, the schema's
// version, and a process that runs one operation uses that connection
// only. cfg.BusyTimeout becomes the session's lock_timeout (unless the
// URL sets one), so an operation waits that long at most for another
// worker's transaction on its scope; connect_timeout is 10s unless set.
func Open(ctx context.Context, url string, cfg ledger.Config) (*Store, error) {
	s := &Store{cfg: cfg, where: ledger.Redact(url)}
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, s.fail("open", err)
	}
	if _, ok := pc.ConnConfig.RuntimeParams["lock_timeout"]; !ok {
		pc.ConnConfig.RuntimeParams["lock_timeout"] = strconv.FormatInt(cfg.Busy().Milliseconds(), 10)
	}
	if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return nil, s.fail("open", err)
	}
	v, err := version(ctx, s.pool)
	switch {
	case err != nil:
	case v > SchemaVersion:
		err = errNewer(v)
	case v == 0 && cfg.Existing:
		err = errors.New("no ledger schema in this database: never initialized (effectlint ledger init)")
	case v < SchemaVersion:
		err = s.migrate(ctx)
	}
	if err != nil {
		s.pool.Close()
		return nil, s.fail("open", err)
	}
	return s, nil
}

// fail names the server in an error (its URL without password).
func (s *Store) fail(op string, err error) error {
	return fmt.Errorf("ledger %s: %s: %w", s.where, op, err)
}

// Where is the ledger's URL without its password.
func (s *Store) Where() string { return s.where }

// Close closes the store's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

func (s *Store) Claim(ctx context.Context, req ledger.ClaimRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeClaim(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.do(ctx, "claim", req.Key, req.Scope, func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoClaim(tx, req) })
}

func (s *Store) Cross(ctx context.Context, req ledger.CrossRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeCross(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.do(ctx, "cross", req.Key, req.Scope, func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoCross(tx, req) })
}

func (s *Store) Settle(ctx context.Context, req ledger.SettleRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeSettle(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.do(ctx, "settle", req.Key, req.Scope, func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoSettle(tx, req) })
}

func (s *Store) Authorize(ctx context.Context, req ledger.AuthorizeRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeAuthorize(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.do(ctx, "authorize", req.Key, req.Authorization, func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoAuthorize(tx, req) })
}

// retryable: the transaction changed nothing and running it again may
// succeed — a serialization failure, a deadlock, or a lost race to insert
// a scope's first record (the row exists now; the next run locks it).
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "23505" && pe.ConstraintName == "scopes_pkey"
}

// do runs one operation in its own transaction, again after a retryable
// failure. Any other failure is returned (naming the server), never a
// Result: the caller cannot know whether it took effect.
func (s *Store) do(ctx context.Context, op, key, scope string, f func(ledger.Tx) (ledger.Result, error)) (ledger.Result, error) {
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			t := time.NewTimer(time.Duration(rand.Int64N(int64(time.Millisecond) << i)))
			select {
			case <-ctx.Done():
				t.Stop()
				return ledger.Result{}, s.fail(op, errors.Join(ctx.Err(), err))
			case <-t.C:
			}
		}
		var res ledger.Result
		res, err = s.once(ctx, key, scope, f)
		if err == nil {
			return res, nil
		}
		if !retryable(err) {
			return ledger.Result{}, s.fail(op, err)
		}
		s.retries.Add(1)
	}
	return ledger.Result{}, s.fail(op, fmt.Errorf("still failing after %d attempts: %w", attempts, err))
}

func (s *Store) once(ctx context.Context, key, scope string, f func(ledger.Tx) (ledger.Result, error)) (ledger.Result, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return ledger.Result{}, err
	}
	x := &tx{ctx: ctx, conn: conn.Conn(), s: s, key: key, scope: scope}
	defer func() {
		x.abort()
		conn.Release()
	}()
	res, err := f(x)
	if err != nil {
		return ledger.Result{}, err
	}
	if err := x.commit(); err != nil {
		return ledger.Result{}, err
	}
	return res, nil
}

const recordColumns = `state, token, holder, lease_expires, crossed_token, checkpoint, auth_by, auth_reason, auth_at, updated, title`

// scanRecord reads recordColumns (after key and scope, when withKey).
func scanRecord(row pgx.Row, key, scope string, withKey bool) (ledger.Record, error) {
	r := ledger.Record{Key: key, Scope: scope}
	var by, reason *string
	var at *time.Time
	dst := []any{&r.State, &r.Token, &r.Holder, &r.LeaseExpires, &r.CrossedToken, &r.Checkpoint, &by, &reason, &at, &r.Updated, &r.Title}
	if withKey {
		dst = append([]any{&r.Key, &r.Scope}, dst...)
	}
	if err := row.Scan(dst...); err != nil {
		return r, err
	}
	r.LeaseExpires, r.Updated = r.LeaseExpires.UTC(), r.Updated.UTC()
	if by != nil {
		a := &ledger.Authorization{By: *by, Reason: *reason}
		if at != nil {
			a.At = at.UTC()
		}
		r.Authorization = a
	}
	return r, nil
}

// Get reads one scope's record.
func (s *Store) Get(ctx context.Context, key, scope string) (ledger.Record, bool, error) {
	r, err := scanRecord(s.pool.QueryRow(ctx, `select `+recordColumns+` from scopes where key = $1 and scope = $2`, key, scope), key, scope, false)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.Record{}, false, nil
	}
	if err != nil {
		return ledger.Record{}, false, s.fail("get", err)
	}
	return r, true, nil
}

const entryColumns = `time, op, task, key, scope, token, granted, rule, state, lease_expires, outcome, checkpoint, ref, "by", reason, title`

func entryArgs(e ledger.Entry) []any {
	return []any{e.Time, string(e.Op), e.Task, e.Key, e.Scope, e.Token, e.Granted, e.Rule, string(e.State), e.LeaseExpires,
		string(e.Outcome), e.Checkpoint, e.Ref, e.By, e.Reason, e.Title}
}

const insertEntry = `insert into journal (` + entryColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`

// Journal calls fn with the entries of key (every key when key is empty)
// in the order they were written (seq), from one snapshot, as the rows
// arrive: the reading holds a connection of the pool until it ends, so
// with pool_max_conns=1 fn must not wait for another operation of s. fn's
// error stops the reading and is returned as it is.
func (s *Store) Journal(ctx context.Context, key string, fn func(ledger.Entry) error) error {
	q, args := `select seq, `+entryColumns+` from journal order by seq`, []any(nil)
	if key != "" {
		q, args = `select seq, `+entryColumns+` from journal where key = $1 order by seq`, []any{key}
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return s.fail("journal", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e ledger.Entry
		if err := rows.Scan(&e.Seq, &e.Time, &e.Op, &e.Task, &e.Key, &e.Scope, &e.Token, &e.Granted, &e.Rule, &e.State,
			&e.LeaseExpires, &e.Outcome, &e.Checkpoint, &e.Ref, &e.By, &e.Reason, &e.Title); err != nil {
			return s.fail("journal", err)
		}
		e.Time, e.LeaseExpires = e.Time.UTC(), e.LeaseExpires.UTC()
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail("journal", err)
	}
	return nil
}

// Prune drops the journal detail of terminal scopes last changed before
// t, keeping one tombstone entry (ledger.TombstoneOf) per scope, written
// after every entry there is; a tombstone that still tells its record
// stays, and what was written after it goes. The scopes' rows are locked meanwhile, so no operation
// changes a record whose entries are being replaced.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	n, err := s.prune(ctx, before)
	if err != nil {
		return 0, s.fail("prune", err)
	}
	return n, nil
}

func (s *Store) prune(ctx context.Context, before time.Time) (int, error) {
	// updated (µs) < before (ns) as the other stores compare it.
	cutoff := before.Truncate(time.Microsecond)
	if !cutoff.Equal(before) {
		cutoff = cutoff.Add(time.Microsecond)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := tx.Query(ctx, `select key, scope, `+recordColumns+` from scopes s
		where state in ('sent_verified', 'send_status_unknown') and updated < $1
		and exists (select from journal j where j.key = s.key and j.scope = s.scope and j.op <> 'tombstone')
		order by key, scope for update of s`, cutoff)
	if err != nil {
		return 0, err
	}
	var victims []ledger.Record
	for rows.Next() {
		r, err := scanRecord(rows, "", "", true)
		if err != nil {
			rows.Close()
			return 0, err
		}
		victims = append(victims, r)
	}
	if rows.Close(); rows.Err() != nil {
		return 0, rows.Err()
	}
	if len(victims) == 0 {
		return 0, tx.Commit(ctx)
	}
	// A pruned scope's journal becomes its record's tombstone alone: one
	// already there that still tells the record stays (a second prune
	// writes none, but drops what came after it, a refused claim say);
	// else every entry goes and a new tombstone follows them all (a late
	// confirmation changed the record since).
	n := 0
	b := &pgx.Batch{}
	for _, r := range victims {
		want := ledger.TombstoneOf(r)
		var kept int64
		trows, err := tx.Query(ctx, `select seq, `+entryColumns+` from journal where key = $1 and scope = $2 and op = 'tombstone' order by seq`, r.Key, r.Scope)
		if err != nil {
			return 0, err
		}
		for trows.Next() {
			var e ledger.Entry
			if err := trows.Scan(&e.Seq, &e.Time, &e.Op, &e.Task, &e.Key, &e.Scope, &e.Token, &e.Granted, &e.Rule, &e.State,
				&e.LeaseExpires, &e.Outcome, &e.Checkpoint, &e.Ref, &e.By, &e.Reason, &e.Title); err != nil {
				trows.Close()
				return 0, err
			}
			if kept == 0 && sameTombstone(e, want) {
				kept = e.Seq
			}
		}
		if trows.Close(); trows.Err() != nil {
			return 0, trows.Err()
		}
		b.Queue(`delete from journal where key = $1 and scope = $2 and seq <> $3`, r.Key, r.Scope, kept)
		if kept == 0 {
			b.Queue(insertEntry, entryArgs(want)...)
			n++
		}
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, err
	}
	return n, tx.Commit(ctx)
}

// Now is the server's clock (with the configuration's skew).
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	var t time.Time
	if err := s.pool.QueryRow(ctx, `select clock_timestamp()`).Scan(&t); err != nil {
		return time.Time{}, s.fail("now", err)
	}
	return s.cfg.Now(t.UTC()), nil
}

// sameTombstone compares a stored tombstone with the one a record gives,
// but for its sequence number.
func sameTombstone(a, b ledger.Entry) bool {
	if !a.Time.Equal(b.Time) || !a.LeaseExpires.Equal(b.LeaseExpires) {
		return false
	}
	a.Seq, a.Time, a.LeaseExpires = b.Seq, b.Time, b.LeaseExpires
	return a == b
}
