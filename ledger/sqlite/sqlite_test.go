package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

func openTemp(t testing.TB, cfg ledger.Config) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel() // beside TestProcessesClaimOneAtATime, which mostly waits
	ledgertest.Run(t, func(t *testing.T, cfg ledger.Config) ledger.Store { return openTemp(t, cfg) })
}

func TestInitAndSchema(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state", "effectlint")
	path := filepath.Join(dir, "ledger.db")
	was, err := sqlite.Init(ctx, path, ledger.Config{})
	if err != nil || was != 0 {
		t.Fatalf("init a new file: was %d, %v", was, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the directory: %v %v, want mode 0700", fi.Mode(), err)
	}
	if was, err = sqlite.Init(ctx, path, ledger.Config{}); err != nil || was != sqlite.SchemaVersion {
		t.Fatalf("init again: was %d, %v; want %d", was, err, sqlite.SchemaVersion)
	}
	s, err := sqlite.Open(ctx, path, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Claim(ctx, claimReq(t, "a", ledgertest.Key(1), time.Minute))
	if err != nil || !r.Granted {
		t.Fatal(r, err)
	}
	if _, err := s.Authorize(ctx, ledger.AuthorizeRequest{Key: ledgertest.Key(1), Authorization: "a1", By: "pat", Reason: "lost"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Times are integer microseconds, UTC; no lease is NULL.
	raw := rawDB(t, path, 1000)
	var updType, leaseType string
	var upd, lease int64
	err = raw.QueryRow(`SELECT typeof(updated), updated, typeof(lease_expires), lease_expires FROM scopes WHERE scope = 'original'`).Scan(&updType, &upd, &leaseType, &lease)
	if err != nil || updType != "integer" || leaseType != "integer" || upd != r.Updated.UnixMicro() || lease != r.LeaseExpires.UnixMicro() {
		t.Errorf("stored times: %s %d, %s %d (%v); want integers %d, %d", updType, upd, leaseType, lease, err, r.Updated.UnixMicro(), r.LeaseExpires.UnixMicro())
	}
	var none sql.NullInt64
	if err := raw.QueryRow(`SELECT lease_expires FROM scopes WHERE scope = 'a1'`).Scan(&none); err != nil || none.Valid {
		t.Errorf("an authorized scope's lease: %v %v, want NULL", none, err)
	}
	var v string
	if err := raw.QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != strconv.Itoa(sqlite.SchemaVersion) {
		t.Errorf("schema_version %q %v", v, err)
	}

	// A file of a newer effectlint is refused, and left alone.
	if _, err := raw.Exec(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = sqlite.Open(ctx, path, ledger.Config{})
	wantErr(t, "open a newer schema", err, sqlite.ErrNewerSchema, path, "schema version 99", "newer effectlint")
	_, err = sqlite.Init(ctx, path, ledger.Config{})
	wantErr(t, "init a newer schema", err, sqlite.ErrNewerSchema, path)
}

// An empty file is a new ledger; many stores opening one new file at once
// all succeed (one creates the schema, the others find it).
func TestOpenNewFileTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := sqlite.Open(context.Background(), path, ledger.Config{})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestRegistered(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, spec := range []string{"sqlite:a.db", "b.db", filepath.Join(dir, "c.db")} {
		s, err := ledger.Open(ctx, spec, ledger.Config{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		_, addr := ledger.SplitSpec(spec)
		if _, ok := s.(*sqlite.Store); !ok || s.Where() != filepath.Join(dir, filepath.Base(addr)) {
			t.Errorf("%s: %T at %s", spec, s, s.Where())
		}
		s.Close()
	}
}

// Prune drops journal detail and nothing else: every record reads as it
// did, and a scope that is not terminal keeps its whole journal.
func TestPruneNeverChangesARecord(t *testing.T) {
	ctx := context.Background()
	s := fixtureLedger(t, filepath.Join(t.TempDir(), "ledger.db"), ledger.Config{})
	defer s.Close()
	records := func() []ledger.Record {
		var rs []ledger.Record
		for _, k := range [][2]string{{ledgertest.Key(1), ledger.OriginalScope}, {ledgertest.Key(1), "a1"}, {ledgertest.Key(3), ledger.OriginalScope}} {
			r, ok, err := s.Get(ctx, k[0], k[1])
			if err != nil || !ok {
				t.Fatalf("get %v: %v %v", k, ok, err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	before := records()
	now, _ := s.Now(ctx)
	if n, err := s.Prune(ctx, now.Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v; want the one terminal scope", n, err)
	}
	if after := records(); !reflect.DeepEqual(after, before) {
		t.Errorf("records after prune:\n%+v\nwere\n%+v", after, before)
	}
	n := 0
	_ = s.Journal(ctx, ledgertest.Key(1), func(ledger.Entry) error { n++; return nil })
	if n != fixtureEntries-3 {
		t.Errorf("the crossing key's journal has %d entries after prune, want %d", n, fixtureEntries-3)
	}
}
