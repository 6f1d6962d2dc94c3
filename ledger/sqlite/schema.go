package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// SchemaVersion is the version of the ledger's schema this build writes
// and reads. A file with a newer version is refused (ErrNewerSchema); an
// older one is migrated on Open.
const SchemaVersion = 1

// applicationID marks an effectlint ledger in the SQLite header
// (PRAGMA application_id): "EfLd".
const applicationID = 0x45664c64

// migrations[v] takes a ledger from schema version v-1 to v. Each runs in
// the transaction that records the new version, so a migration is whole
// or absent.
//
// Times are integer microseconds since the Unix epoch, UTC (PostgreSQL's
// precision, so both stores compare leases alike); NULL is no time.
var migrations = [...]string{
	1: `
CREATE TABLE IF NOT EXISTS meta (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE scopes (
	key           TEXT NOT NULL,
	scope         TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('free', 'claimed', 'crossing', 'sent_verified', 'send_status_unknown')),
	token         INTEGER NOT NULL CHECK (token >= 0),
	holder        TEXT NOT NULL,
	lease_expires INTEGER,
	crossed_token INTEGER NOT NULL,
	checkpoint    TEXT NOT NULL,
	auth_by       TEXT,
	auth_reason   TEXT,
	auth_at       INTEGER,
	updated       INTEGER NOT NULL,
	title         TEXT NOT NULL DEFAULT '',
	-- Prune's bookkeeping, not part of the record: the seq of the
	-- scope's tombstone (NULL: none, or the record changed since), and
	-- of its last journal entry.
	tombstone     INTEGER,
	last_seq      INTEGER,
	PRIMARY KEY (key, scope)
) STRICT, WITHOUT ROWID;

-- Prune's candidates: terminal scopes without their tombstone, and
-- tombstoned scopes with entries since.
-- A claim's related scopes: the same content digest (the key's last 64
-- characters) and scope name.
CREATE INDEX scopes_content ON scopes (substr(key, -64), scope);

CREATE INDEX scopes_untombed ON scopes (updated) WHERE tombstone IS NULL AND state IN ('sent_verified', 'send_status_unknown');
CREATE INDEX scopes_after_tombstone ON scopes (updated) WHERE last_seq > tombstone;

CREATE TABLE journal (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	time          INTEGER NOT NULL,
	op            TEXT NOT NULL,
	task          TEXT NOT NULL,
	key           TEXT NOT NULL,
	scope         TEXT NOT NULL,
	token         INTEGER NOT NULL,
	granted       INTEGER NOT NULL CHECK (granted IN (0, 1)),
	rule          TEXT NOT NULL,
	state         TEXT NOT NULL,
	lease_expires INTEGER,
	outcome       TEXT NOT NULL,
	checkpoint    TEXT NOT NULL,
	ref           TEXT NOT NULL,
	auth_by       TEXT NOT NULL,
	auth_reason   TEXT NOT NULL,
	title         TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX journal_scope ON journal (key, scope, seq);

CREATE TRIGGER journal_last_seq AFTER INSERT ON journal BEGIN
	UPDATE scopes SET last_seq = NEW.seq WHERE key = NEW.key AND scope = NEW.scope;
END;

PRAGMA application_id = ` + strconv.Itoa(applicationID) + `;
`,
}

func init() {
	if len(migrations) != SchemaVersion+1 {
		panic("ledger/sqlite: one migration per schema version")
	}
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// schemaVersion reads the file's schema version: 0 for a file with no
// tables at all (new), ErrNotLedger for a SQLite database of something
// else.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var appID int64
	if err := q.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return 0, err
	}
	var tables, meta int
	err := q.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'meta') FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).Scan(&tables, &meta)
	if err != nil {
		return 0, err
	}
	switch {
	case appID != 0 && appID != applicationID:
		return 0, fmt.Errorf("%w (its application id is %#x)", ErrNotLedger, appID)
	case tables == 0:
		return 0, nil
	case meta == 0:
		return 0, fmt.Errorf("%w (it has %d tables and no meta table)", ErrNotLedger, tables)
	}
	var v string
	err = q.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%w (its meta table has no schema_version)", ErrNotLedger)
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w (schema_version %q)", ErrNotLedger, v)
	}
	if n > SchemaVersion {
		return n, fmt.Errorf("%w: the file has schema version %d, this build of effectlint knows versions up to %d; use a newer effectlint", ErrNewerSchema, n, SchemaVersion)
	}
	return n, nil
}

// migrate brings the file's schema to SchemaVersion and reports the
// version it had. It reads first, and takes the write lock (BEGIN
// IMMEDIATE) only when there is something to do; under the lock it reads
// again, since another process may have migrated meanwhile.
func migrate(ctx context.Context, db *sql.DB) (was int, err error) {
	v, err := schemaVersion(ctx, db)
	if err != nil || v == SchemaVersion {
		return v, err
	}
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return v, err
	}
	defer tx.Rollback()
	if v, err = schemaVersion(ctx, tx); err != nil || v == SchemaVersion {
		return v, err
	}
	for n := v + 1; n <= SchemaVersion; n++ {
		if _, err := tx.ExecContext(ctx, migrations[n]); err != nil {
			return v, fmt.Errorf("migrating to schema version %d: %w", n, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('schema_version', ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, strconv.Itoa(SchemaVersion)); err != nil {
		return v, err
	}
	return v, tx.Commit()
}
