package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/jackc/pgx/v5"
)

// tx is one operation's transaction (ledger.Tx) on one scope. The state
// machine calls Now first: that sends the first round trip — begin, the
// scope's advisory lock, its row's lock and record, the server's clock,
// read after both locks so an operation's time is never earlier than
// that of the operation it waited for. Save and Append are queued and
// sent with the commit: the second round trip.
type tx struct {
	ctx        context.Context
	conn       *pgx.Conn
	s          *Store
	key, scope string

	begun  bool
	now    time.Time
	rec    ledger.Record
	exists bool
	writes pgx.Batch
	// updates counts the queued updates, whose rows must be found.
	updates []int
}

const (
	// The two-int4 key space of advisory locks; hash collisions only make
	// two scopes wait for each other.
	// The lock is on the content and scope, not the key: the claims of
	// every destination of one file serialize, so a claim's related
	// scopes (Related) cannot change while it decides.
	lockScope  = `select pg_advisory_xact_lock(hashtext(right($1, 64)), hashtext($2))`
	related    = `select key, scope, ` + recordColumns + ` from scopes where right(key, 64) = right($1, 64) and not (key = $1 and scope = $2)`
	loadScope  = `select ` + recordColumns + ` from scopes where key = $1 and scope = $2 for update`
	readClock  = `select clock_timestamp()`
	insertScop = `insert into scopes (key, scope, ` + recordColumns + `) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`
	updateScop = `update scopes set state = $3, token = $4, holder = $5, lease_expires = $6, crossed_token = $7,
		checkpoint = $8, auth_by = $9, auth_reason = $10, auth_at = $11, updated = $12, title = $13 where key = $1 and scope = $2`
)

func (x *tx) begin() error {
	if x.begun {
		return nil
	}
	x.begun = true
	b := &pgx.Batch{}
	b.Queue("begin")
	if !x.s.noScopeLocks {
		b.Queue(lockScope, x.key, x.scope)
	}
	b.Queue(loadScope, x.key, x.scope)
	b.Queue(readClock)
	br := x.conn.SendBatch(x.ctx, b)
	err := func() error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if !x.s.noScopeLocks {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		rec, err := scanRecord(br.QueryRow(), x.key, x.scope, false)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			x.rec, x.exists = ledger.Record{}, false
		case err != nil:
			return err
		default:
			x.rec, x.exists = rec, true
		}
		return br.QueryRow().Scan(&x.now)
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

func (x *tx) Now() (time.Time, error) {
	if err := x.begin(); err != nil {
		return time.Time{}, err
	}
	return x.s.cfg.Now(x.now.UTC()), nil
}

func (x *tx) Load(key, scope string) (ledger.Record, bool, error) {
	if key != x.key || scope != x.scope {
		return ledger.Record{}, false, fmt.Errorf("the transaction of %s/%s cannot load %s/%s", x.key, x.scope, key, scope)
	}
	if err := x.begin(); err != nil {
		return ledger.Record{}, false, err
	}
	return x.rec, x.exists, nil
}

// NextToken takes the ledger's next token from its sequence (a token a
// rolled-back claim took is a gap, never reused).
func (x *tx) NextToken() (int64, error) {
	if err := x.begin(); err != nil {
		return 0, err
	}
	var n int64
	err := x.conn.QueryRow(x.ctx, `select nextval('tokens')`).Scan(&n)
	return n, err
}

func (x *tx) Related(key, scope string) ([]ledger.Record, error) {
	if key != x.key || scope != x.scope {
		return nil, fmt.Errorf("the transaction of %s/%s cannot read the scopes related to %s/%s", x.key, x.scope, key, scope)
	}
	if err := x.begin(); err != nil {
		return nil, err
	}
	rows, err := x.conn.Query(x.ctx, related, key, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.Record
	for rows.Next() {
		r, err := scanRecord(rows, "", "", true)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (x *tx) Save(r ledger.Record) error {
	if r.Key != x.key || r.Scope != x.scope {
		return fmt.Errorf("the transaction of %s/%s cannot save %s/%s", x.key, x.scope, r.Key, r.Scope)
	}
	var by, reason *string
	var at *time.Time
	if a := r.Authorization; a != nil {
		by, reason, at = &a.By, &a.Reason, &a.At
	}
	args := []any{r.Key, r.Scope, string(r.State), r.Token, r.Holder, r.LeaseExpires, r.CrossedToken, r.Checkpoint, by, reason, at, r.Updated, r.Title}
	if x.exists {
		x.updates = append(x.updates, x.writes.Len())
		x.writes.Queue(updateScop, args...)
	} else {
		// A plain insert: if another transaction inserted the scope's
		// first record meanwhile, the primary key refuses this one and the
		// whole operation runs again (retryable).
		x.writes.Queue(insertScop, args...)
		x.exists = true
	}
	return nil
}

func (x *tx) Append(e ledger.Entry) error {
	x.writes.Queue(insertEntry, entryArgs(e)...)
	return nil
}

// commit sends the queued writes and the commit, and reads every answer:
// the operation is done only when the server says COMMIT.
func (x *tx) commit() error {
	if !x.begun {
		return errors.New("commit before the transaction began")
	}
	x.writes.Queue("commit")
	n := x.writes.Len()
	br := x.conn.SendBatch(x.ctx, &x.writes)
	err := func() error {
		for i := 0; i < n; i++ {
			tag, err := br.Exec()
			if err != nil {
				return err
			}
			if i == n-1 && tag.String() != "COMMIT" {
				return fmt.Errorf("the server answered the commit with %s", tag)
			}
			for _, u := range x.updates {
				if u == i && tag.RowsAffected() != 1 {
					return fmt.Errorf("the record of %s/%s is gone", x.key, x.scope)
				}
			}
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort rolls back a transaction that did not commit, so its connection
// goes back to the pool clean (the pool drops a connection left in a
// transaction, or broken).
func (x *tx) abort() {
	pc := x.conn.PgConn()
	if x.conn.IsClosed() || pc.TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = x.conn.Exec(ctx, "rollback")
}
