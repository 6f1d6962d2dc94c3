package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

// The driver honours _txlock=immediate: a write transaction holds the
// file's write lock from its BEGIN, before it reads anything, so another
// connection's BEGIN IMMEDIATE is refused at once.
func TestWriteTransactionsBeginImmediate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(context.Background(), path, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Exec(`BEGIN IMMEDIATE`)
	if !errors.Is(kindOf(path, err), ErrBusy) {
		t.Fatalf("BEGIN IMMEDIATE beside a store transaction that has read nothing: %v, want SQLITE_BUSY", err)
	}
	// A read-only transaction is a plain BEGIN, and takes no lock.
	tx.Rollback()
	ro, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Rollback()
	if _, err := other.Exec(`BEGIN IMMEDIATE; ROLLBACK`); err != nil {
		t.Fatalf("BEGIN IMMEDIATE beside a read-only transaction: %v", err)
	}
}

// Each connection of the store has the pragmas of the DSN, and the file is
// in WAL mode.
func TestConnectionPragmas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(context.Background(), path, ledger.Config{BusyTimeout: 1234 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string]string{
		"PRAGMA journal_mode": "wal", "PRAGMA synchronous": "2", "PRAGMA busy_timeout": "1234",
		"PRAGMA application_id": strconv.Itoa(applicationID),
	} {
		var got string
		if err := s.db.QueryRow(q).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", q, got, err, want)
		}
	}
}

// An operation waits for this process's other writers no longer than the
// busy timeout either.
func TestWriterQueueIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	busy := 100 * time.Millisecond
	s, err := Open(context.Background(), path, ledger.Config{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.writer <- struct{}{} // another operation of this process is writing
	req, _ := ledger.NormalizeClaim(ledger.ClaimRequest{Task: "a", Key: ledgertest.Key(1), Lease: time.Minute})
	start := time.Now()
	_, err = s.Claim(context.Background(), req)
	if took := time.Since(start); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), path) || took < busy {
		t.Fatalf("claim behind a writer that does not finish: %v after %s", err, took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = s.Claim(ctx, req); !errors.Is(err, context.Canceled) {
		t.Fatalf("claim with a cancelled context: %v", err)
	}
	<-s.writer
	if r, err := s.Claim(context.Background(), req); err != nil || !r.Granted {
		t.Fatalf("claim once the writer is done: %+v %v", r, err)
	}
}
