package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrations are the schema's versions: migrations[i] takes a schema at
// version i to version i+1. Append; never edit one that has shipped.
var migrations = []string{
	// 1: the records and the journal (SPEC §9).
	`create table scopes (
		key text not null,
		scope text not null,
		state text not null check (state in ('free', 'claimed', 'crossing', 'sent_verified', 'send_status_unknown')),
		token bigint not null,
		holder text not null,
		lease_expires timestamptz not null,
		crossed_token bigint not null,
		checkpoint text not null,
		auth_by text,
		auth_reason text,
		auth_at timestamptz,
		updated timestamptz not null,
		title text not null default '',
		primary key (key, scope)
	);
	-- A claim's related scopes: the same content digest (the key's last
	-- 64 characters) and scope name.
	create index scopes_content on scopes (right(key, 64), scope);
	create table journal (
		seq bigserial primary key,
		time timestamptz not null,
		op text not null,
		task text not null,
		key text not null,
		scope text not null,
		token bigint not null,
		granted boolean not null,
		rule text not null,
		state text not null,
		lease_expires timestamptz not null,
		outcome text not null,
		checkpoint text not null,
		ref text not null,
		"by" text not null,
		reason text not null,
		title text not null default ''
	);
	create index journal_key_seq on journal (key, seq);
	-- Fencing tokens are the ledger's: one sequence for every scope.
	create sequence tokens;`,
}

// SchemaVersion is the schema version this package writes and reads.
var SchemaVersion = len(migrations)

// The lock that serializes migrations of one schema (a transaction-scoped
// advisory lock in the one-bigint key space; the scopes' locks use the
// two-int4 space, which does not overlap it).
const migrationLock = `select pg_advisory_xact_lock(hashtextextended('effectlint ledger schema ' || coalesce(current_schema(), ''), 0))`

// version reads the schema's version: 0 when the ledger has no tables yet.
func version(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v *int32
	err := q.QueryRow(ctx, `select max(schema_version) from meta`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil || v == nil {
		return 0, err
	}
	return int(*v), nil
}

// Init creates the ledger's tables, or migrates them to SchemaVersion, in
// one transaction; concurrent Inits (of several workers' first Open) wait
// for each other and the later ones find nothing to do. A schema newer
// than this package's is an error: an older effectlint must not write it.
func (s *Store) Init(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		return s.fail("init", err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, migrationLock); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `create table if not exists meta (schema_version integer not null)`); err != nil {
		return err
	}
	v, err := version(ctx, tx)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return errNewer(v)
	}
	if v == SchemaVersion {
		return tx.Commit(ctx)
	}
	for _, m := range migrations[v:] {
		if _, err := tx.Exec(ctx, m); err != nil {
			return fmt.Errorf("migrating the schema from version %d: %w", v, err)
		}
	}
	if _, err := tx.Exec(ctx, `delete from meta`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `insert into meta (schema_version) values ($1)`, SchemaVersion); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func errNewer(v int) error {
	return fmt.Errorf("the ledger's schema is version %d, newer than this effectlint's (%d): use a newer effectlint", v, SchemaVersion)
}
