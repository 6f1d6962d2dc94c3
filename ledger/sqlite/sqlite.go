// Package sqlite is the key ledger's embedded store: one SQLite file
// (modernc.org/sqlite, pure Go) shared by the workers of one machine,
// whatever their process.
//
// The file is in WAL mode with synchronous=FULL: a granted claim is on
// disk before the worker hears of it. Every write is one BEGIN IMMEDIATE
// transaction, so two processes serialize on the file's write lock before
// either reads the scope: the state machine (ledger.Do*) runs on the
// record as the last writer left it, and its record and journal entry are
// committed together or not at all. A writer waits for the lock up to the
// busy timeout (ledger.Config.Busy); past it the operation fails with
// ErrBusy and did nothing.
//
// Import it for its side effect to let ledger.Open open "sqlite:PATH":
//
//	import _ "github.com/effectlint/effectlint/ledger/sqlite"
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/effectlint/effectlint/ledger"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

func init() {
	ledger.Register("sqlite", func(ctx context.Context, addr string, cfg ledger.Config) (ledger.Store, error) {
		s, err := Open(ctx, addr, cfg)
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}

// synchronous is the connections' PRAGMA synchronous. FULL syncs the WAL
// at every commit: a claim survives a power loss once granted. (NORMAL
// would only sync at checkpoints; the package's benchmarks compare them.)
var synchronous = "FULL"

// Store is a ledger in one SQLite file. It is safe for concurrent use, and
// any number of processes may open the same file.
type Store struct {
	path string
	cfg  ledger.Config
	db   *sql.DB
	stmt statements
	// writer lets one of this process's operations at a time contend for
	// the file's write lock: they queue here in order, rather than poll
	// the lock on SQLite's busy schedule against each other.
	writer chan struct{}
}

var _ ledger.Store = (*Store)(nil)

// Open opens the ledger in the SQLite file at path, creating the file (and
// its directory, mode 0700) when it is missing, and bringing its schema to
// SchemaVersion.
func Open(ctx context.Context, path string, cfg ledger.Config) (*Store, error) {
	s, _, err := open(ctx, path, cfg)
	return s, err
}

// Init creates the ledger file at path, or migrates its schema, and closes
// it: `effectlint ledger init`. was is the schema version the file had (0:
// it was new or empty). It also runs SQLite's quick_check over the whole
// file, which Open does not (it costs a read of every page).
func Init(ctx context.Context, path string, cfg ledger.Config) (was int, err error) {
	s, was, err := open(ctx, path, cfg)
	if err != nil {
		return was, err
	}
	if err := s.quickCheck(ctx); err != nil {
		s.Close()
		return was, s.fail("checking the file", err)
	}
	return was, s.Close()
}

func (s *Store) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		if p != "ok" {
			problems = append(problems, p)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

func open(ctx context.Context, path string, cfg ledger.Config) (*Store, int, error) {
	if path == "" {
		return nil, 0, errors.New("ledger: the SQLite store needs a file path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, 0, fmt.Errorf("ledger %s: %w", path, err)
	}
	if cfg.Existing {
		if _, err := os.Stat(abs); err != nil {
			return nil, 0, fmt.Errorf("ledger %s: no ledger there (%w)", abs, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, 0, wrap(abs, "creating its directory", err, cfg.Busy())
	}
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("ledger %s: %w (it is a %s)", abs, ErrNotDatabase, fi.Mode().Type())
	}
	db, err := sql.Open("sqlite", dsn(abs, cfg.Busy()))
	if err != nil {
		return nil, 0, wrap(abs, "opening", err, cfg.Busy())
	}
	// One writer at a time (the writer channel) and a few readers.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	s := &Store{path: abs, cfg: cfg, db: db, writer: make(chan struct{}, 1)}
	// Read before writing anything: a file that is not a ledger (another
	// program's database, say) is left as it was.
	v, err := schemaVersion(ctx, db)
	if err != nil {
		db.Close()
		return nil, 0, s.fail("reading its schema", err)
	}
	if cfg.Existing && v == 0 {
		db.Close()
		return nil, 0, fmt.Errorf("ledger %s: %w (no ledger schema: never initialized)", abs, ErrNotLedger)
	}
	if err := s.walMode(ctx); err != nil {
		db.Close()
		return nil, 0, err
	}
	was, err := migrate(ctx, db)
	if err != nil {
		db.Close()
		return nil, was, s.fail("migrating its schema", err)
	}
	if err := s.stmt.prepare(ctx, db); err != nil {
		db.Close()
		return nil, was, s.fail("preparing its statements", err)
	}
	return s, was, nil
}

// dsn is the driver's name for the file: a SQLite URI (so no character of
// the path is read as a parameter), each connection's pragmas, and BEGIN
// IMMEDIATE for every transaction that is not read-only.
func dsn(path string, busy time.Duration) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	q.Set("_synchronous", synchronous)
	q.Set("_txlock", "immediate")
	u := url.URL{Path: filepath.ToSlash(path)}
	return "file:" + u.EscapedPath() + "?" + q.Encode()
}

// walMode puts the file in WAL mode (a setting of the file, kept). A
// fresh file switches under an exclusive lock, which another process
// opening the same new file at the same instant may hold: that is retried
// until the busy timeout.
func (s *Store) walMode(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.Busy())
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		var mode string
		err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return nil
		}
		if err == nil {
			err = s.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
			if err == nil && strings.EqualFold(mode, "wal") {
				return nil
			}
			if err == nil {
				return s.fail("setting WAL mode", fmt.Errorf("the journal mode stays %q", mode))
			}
		}
		if !errors.Is(kindOf(s.path, err), ErrBusy) || time.Now().After(deadline) {
			return s.fail("setting WAL mode", err)
		}
		select {
		case <-ctx.Done():
			return s.fail("setting WAL mode", ctx.Err())
		case <-time.After(delay):
		}
	}
}

// Where is the file's absolute path.
func (s *Store) Where() string { return s.path }

// Close closes the store's connections; the last one to close in any
// process checkpoints the WAL into the file.
func (s *Store) Close() error {
	s.stmt.close()
	return s.db.Close()
}

// Now is the store's clock: this machine's, plus the configured skew.
func (s *Store) Now(context.Context) (time.Time, error) { return s.cfg.Now(time.Now()), nil }

func (s *Store) Claim(ctx context.Context, req ledger.ClaimRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeClaim(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.write(ctx, "claim", func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoClaim(tx, req) })
}

func (s *Store) Cross(ctx context.Context, req ledger.CrossRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeCross(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.write(ctx, "cross", func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoCross(tx, req) })
}

func (s *Store) Settle(ctx context.Context, req ledger.SettleRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeSettle(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.write(ctx, "settle", func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoSettle(tx, req) })
}

func (s *Store) Authorize(ctx context.Context, req ledger.AuthorizeRequest) (ledger.Result, error) {
	req, err := ledger.NormalizeAuthorize(req)
	if err != nil {
		return ledger.Result{}, err
	}
	return s.write(ctx, "authorize", func(tx ledger.Tx) (ledger.Result, error) { return ledger.DoAuthorize(tx, req) })
}

// write runs f in one write transaction: BEGIN IMMEDIATE takes the file's
// write lock (waiting up to the busy timeout), f loads, decides and
// saves, COMMIT makes it durable. Any error rolls everything back.
func (s *Store) write(ctx context.Context, what string, f func(ledger.Tx) (ledger.Result, error)) (ledger.Result, error) {
	var res ledger.Result
	err := s.writeTx(ctx, what, func(tx *sql.Tx) error {
		var err error
		res, err = f(&sqlTx{ctx: ctx, tx: tx, s: s})
		return err
	})
	if err != nil {
		return ledger.Result{}, err
	}
	return res, nil
}

func (s *Store) writeTx(ctx context.Context, what string, f func(*sql.Tx) error) error {
	if err := s.lockWriter(ctx); err != nil {
		return s.fail(what, err)
	}
	defer func() { <-s.writer }()
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock in the DSN)
	if err != nil {
		return s.fail(what, err)
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return s.fail(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(what, err)
	}
	return nil
}

// lockWriter waits for this process's turn to write, as long as the busy
// timeout: a turn that does not come is the same failure as a file lock
// that is not released.
func (s *Store) lockWriter(ctx context.Context) error {
	select {
	case s.writer <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(s.cfg.Busy())
	defer t.Stop()
	select {
	case s.writer <- struct{}{}:
		return nil
	case <-t.C:
		return fmt.Errorf("%w (%s): this process's other operations held it", ErrBusy, s.cfg.Busy())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sqlTx is ledger.Tx over one SQLite write transaction.
type sqlTx struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store
}

// Now reads the clock inside the transaction, after the write lock was
// taken: a later writer never reads an earlier time than it.
func (x *sqlTx) Now() (time.Time, error) { return x.s.cfg.Now(time.Now()), nil }

func (x *sqlTx) Load(key, scope string) (ledger.Record, bool, error) {
	return loadRecord(x.tx.StmtContext(x.ctx, x.s.stmt.load).QueryRowContext(x.ctx, key, scope))
}

// NextToken counts in meta (the one writer holds the file meanwhile).
func (x *sqlTx) NextToken() (int64, error) {
	var n int64
	err := x.tx.QueryRowContext(x.ctx, `INSERT INTO meta (name, value) VALUES ('last_token', '1')
		ON CONFLICT (name) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
		RETURNING CAST(value AS INTEGER)`).Scan(&n)
	return n, err
}

func (x *sqlTx) Related(key, scope string) ([]ledger.Record, error) {
	rows, err := x.tx.StmtContext(x.ctx, x.s.stmt.related).QueryContext(x.ctx, key, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// The store's statements, prepared once (database/sql keeps each
// prepared on every connection that ran it): preparing the journal's
// INSERT compiles its trigger too.
type statements struct{ load, save, insert, related *sql.Stmt }

func (st *statements) prepare(ctx context.Context, db *sql.DB) error {
	for _, p := range []struct {
		s **sql.Stmt
		q string
	}{{&st.load, loadScope}, {&st.save, saveScope}, {&st.insert, insertEntry}, {&st.related, relatedScopes}} {
		var err error
		if *p.s, err = db.PrepareContext(ctx, p.q); err != nil {
			st.close()
			return err
		}
	}
	return nil
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.load, st.save, st.insert, st.related} {
		if s != nil {
			s.Close()
		}
	}
}

const recordColumns = `key, scope, state, token, holder, lease_expires, crossed_token, checkpoint, auth_by, auth_reason, auth_at, updated, title`

const loadScope = `SELECT ` + recordColumns + ` FROM scopes WHERE key = ? AND scope = ?`

// relatedScopes are the other records of the same content: other keys
// under any scope name, and this key under other scope names (the index
// scopes_content).
const relatedScopes = `SELECT ` + recordColumns + ` FROM scopes WHERE substr(key, -64) = substr(?1, -64) AND NOT (key = ?1 AND scope = ?2)`

// saveScope writes a record; a record that changes loses its tombstone
// (see Prune).
const saveScope = `INSERT INTO scopes (` + recordColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (key, scope) DO UPDATE SET state = excluded.state, token = excluded.token, holder = excluded.holder,
		lease_expires = excluded.lease_expires, crossed_token = excluded.crossed_token, checkpoint = excluded.checkpoint,
		auth_by = excluded.auth_by, auth_reason = excluded.auth_reason, auth_at = excluded.auth_at, updated = excluded.updated, title = excluded.title,
		tombstone = NULL`

func loadRecord(row *sql.Row) (ledger.Record, bool, error) {
	rec, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Record{}, false, nil
	}
	if err != nil {
		return ledger.Record{}, false, err
	}
	return rec, true, nil
}

func scanRecord(row interface{ Scan(...any) error }) (ledger.Record, error) {
	var (
		r                  ledger.Record
		state              string
		lease, authAt      sql.NullInt64
		authBy, authReason sql.NullString
		updated            int64
	)
	if err := row.Scan(&r.Key, &r.Scope, &state, &r.Token, &r.Holder, &lease, &r.CrossedToken, &r.Checkpoint, &authBy, &authReason, &authAt, &updated, &r.Title); err != nil {
		return r, err
	}
	r.State = ledger.State(state)
	r.LeaseExpires = fromMicros(lease)
	r.Updated = fromMicros(sql.NullInt64{Int64: updated, Valid: true})
	if authBy.Valid {
		r.Authorization = &ledger.Authorization{By: authBy.String, Reason: authReason.String, At: fromMicros(authAt)}
	}
	return r, nil
}

func (x *sqlTx) Save(r ledger.Record) error {
	var authBy, authReason sql.NullString
	var authAt sql.NullInt64
	if a := r.Authorization; a != nil {
		authBy = sql.NullString{String: a.By, Valid: true}
		authReason = sql.NullString{String: a.Reason, Valid: true}
		authAt = micros(a.At)
	}
	_, err := x.tx.StmtContext(x.ctx, x.s.stmt.save).ExecContext(x.ctx,
		r.Key, r.Scope, string(r.State), r.Token, r.Holder, micros(r.LeaseExpires), r.CrossedToken, r.Checkpoint,
		authBy, authReason, authAt, r.Updated.UnixMicro(), r.Title)
	return err
}

func (x *sqlTx) Append(e ledger.Entry) error {
	_, err := x.tx.StmtContext(x.ctx, x.s.stmt.insert).ExecContext(x.ctx, entryArgs(e)...)
	return err
}

const entryColumns = `time, op, task, key, scope, token, granted, rule, state, lease_expires, outcome, checkpoint, ref, auth_by, auth_reason, title`

const insertEntry = `INSERT INTO journal (` + entryColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func entryArgs(e ledger.Entry) []any {
	return []any{e.Time.UnixMicro(), string(e.Op), e.Task, e.Key, e.Scope, e.Token, e.Granted, e.Rule, string(e.State),
		micros(e.LeaseExpires), string(e.Outcome), e.Checkpoint, e.Ref, e.By, e.Reason, e.Title}
}

func scanEntry(row interface{ Scan(...any) error }) (ledger.Entry, error) {
	var (
		e                  ledger.Entry
		t                  int64
		lease              sql.NullInt64
		op, state, outcome string
	)
	err := row.Scan(&e.Seq, &t, &op, &e.Task, &e.Key, &e.Scope, &e.Token, &e.Granted, &e.Rule, &state,
		&lease, &outcome, &e.Checkpoint, &e.Ref, &e.By, &e.Reason, &e.Title)
	e.Time = fromMicros(sql.NullInt64{Int64: t, Valid: true})
	e.Op, e.State, e.Outcome, e.LeaseExpires = ledger.Op(op), ledger.State(state), ledger.Outcome(outcome), fromMicros(lease)
	return e, err
}

// micros is a time as stored: microseconds since the Unix epoch, UTC; the
// zero time is NULL.
func micros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

func fromMicros(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMicro(v.Int64).UTC()
}

// Get reads one scope's record.
func (s *Store) Get(ctx context.Context, key, scope string) (ledger.Record, bool, error) {
	rec, ok, err := loadRecord(s.stmt.load.QueryRowContext(ctx, key, scope))
	if err != nil {
		return ledger.Record{}, false, s.fail("reading a record", err)
	}
	return rec, ok, nil
}

// Journal calls fn with the journal's entries of key (every key when key
// is empty) in the order they were written, from one snapshot of the
// file. An error of fn stops the reading and is returned as it is.
func (s *Store) Journal(ctx context.Context, key string, fn func(ledger.Entry) error) error {
	q := `SELECT seq, ` + entryColumns + ` FROM journal`
	var args []any
	if key != "" {
		q += ` WHERE key = ?`
		args = append(args, key)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY seq`, args...)
	if err != nil {
		return s.fail("reading the journal", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return s.fail("reading the journal", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail("reading the journal", err)
	}
	return nil
}

// Prune replaces the journal of every terminal scope (sent_verified,
// send_status_unknown) last changed before t by one tombstone
// (ledger.TombstoneOf its record), in one write transaction. It never
// changes a record. A scope that already has its record's tombstone keeps
// it (only entries written since go), so a second Prune writes nothing
// new; n counts the tombstones written.
//
// Two columns of scopes that are not part of the record keep Prune's
// work proportional to what changed since the last one: tombstone, the
// seq of the scope's tombstone (NULL when it has none, or its record
// changed since: Save clears it), and last_seq, the seq of its last
// journal entry (a trigger of the journal keeps it).
func (s *Store) Prune(ctx context.Context, before time.Time) (n int, err error) {
	// updated < before, at the microseconds the records keep: a time
	// between two microseconds counts from the next one.
	limit := before.UnixMicro()
	if before.Truncate(time.Microsecond).Before(before) {
		limit++
	}
	err = s.writeTx(ctx, "prune", func(tx *sql.Tx) error {
		n = 0
		// Entries written since a scope's tombstone (refusals: a record
		// that changes loses its tombstone) go.
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE seq IN (
			SELECT j.seq FROM scopes s JOIN journal j ON j.key = s.key AND j.scope = s.scope AND j.seq > s.tombstone
			WHERE s.last_seq > s.tombstone AND s.updated < ?)`, limit); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE scopes SET last_seq = tombstone WHERE last_seq > tombstone AND updated < ?`, limit); err != nil {
			return err
		}
		// Terminal scopes without their tombstone: their whole journal
		// goes, their tombstone comes.
		const untombed = `tombstone IS NULL AND state IN ('sent_verified', 'send_status_unknown') AND updated < ?`
		rows, err := tx.QueryContext(ctx, `SELECT `+recordColumns+` FROM scopes WHERE `+untombed+` ORDER BY updated, key, scope`, limit)
		if err != nil {
			return err
		}
		var recs []ledger.Record
		for rows.Next() {
			r, err := scanRecord(rows)
			if err != nil {
				rows.Close()
				return err
			}
			recs = append(recs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(recs) == 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE (key, scope) IN (SELECT key, scope FROM scopes WHERE `+untombed+`)`, limit); err != nil {
			return err
		}
		insert := tx.StmtContext(ctx, s.stmt.insert)
		mark, err := tx.PrepareContext(ctx, `UPDATE scopes SET tombstone = ? WHERE key = ? AND scope = ?`)
		if err != nil {
			return err
		}
		defer mark.Close()
		for _, r := range recs {
			res, err := insert.ExecContext(ctx, entryArgs(ledger.TombstoneOf(r))...)
			if err != nil {
				return err
			}
			seq, err := res.LastInsertId()
			if err != nil {
				return err
			}
			if _, err := mark.ExecContext(ctx, seq, r.Key, r.Scope); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
