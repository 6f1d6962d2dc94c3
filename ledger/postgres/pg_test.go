package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/effectlint/effectlint/ledger"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The tests run against a real server: EFFECTLINT_TEST_POSTGRES is the
// postgres:// URL of a role that may create schemas (scripts/postgres.sh
// start makes a throw-away cluster and prints it). Without it they skip,
// unless EFFECTLINT_REQUIRE_POSTGRES=1 (CI), which makes a missing server
// a failure. Each test gets a fresh schema of that database, named in its
// connections' search_path; a test that opens many stores (the
// differential property test, one per iteration) empties its schema
// between them (a fresh schema's migration costs ~10 ms; emptying one, 1).

func serverURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("EFFECTLINT_TEST_POSTGRES")
	if u == "" {
		if os.Getenv("EFFECTLINT_REQUIRE_POSTGRES") == "1" {
			t.Fatal("EFFECTLINT_REQUIRE_POSTGRES=1 and EFFECTLINT_TEST_POSTGRES is not set (scripts/postgres.sh start prints it)")
		}
		t.Skip("EFFECTLINT_TEST_POSTGRES is not set: a postgres:// URL (scripts/postgres.sh start makes a throw-away server)")
	}
	return u
}

var (
	adminOnce sync.Once
	adminPool *pgxpool.Pool
	adminErr  error
	schemaSeq atomic.Int64
)

func admin(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := serverURL(t)
	adminOnce.Do(func() { adminPool, adminErr = pgxpool.New(context.Background(), u) })
	if adminErr != nil {
		t.Fatal(adminErr)
	}
	return adminPool
}

func withParam(t testing.TB, u string, kv ...string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	p.RawQuery = q.Encode()
	return p.String()
}

// freshSchema makes an empty schema, dropped after the test, and gives
// its name and the URL whose search_path names it.
func freshSchema(t testing.TB) (name, u string) {
	t.Helper()
	a := admin(t)
	name = fmt.Sprintf("effectlint_test_%d_%d", os.Getpid(), schemaSeq.Add(1))
	if _, err := a.Exec(context.Background(), "create schema "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = a.Exec(context.Background(), "drop schema "+name+" cascade") })
	return name, withParam(t, serverURL(t), "search_path", name)
}

func open(t testing.TB, u string, cfg ledger.Config) *Store {
	t.Helper()
	s, err := Open(context.Background(), u, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// opener is the conformance suite's: a fresh schema per test, emptied
// when the same test opens another store.
func opener() func(t *testing.T, cfg ledger.Config) ledger.Store {
	urls := map[*testing.T][2]string{}
	var mu sync.Mutex
	return func(t *testing.T, cfg ledger.Config) ledger.Store {
		mu.Lock()
		nu, ok := urls[t]
		mu.Unlock()
		if ok {
			// DELETE, not TRUNCATE: 1 ms, not 7, on tables this small.
			n := nu[0]
			if _, err := admin(t).Exec(context.Background(), "begin; delete from "+n+".scopes; delete from "+n+".journal; alter sequence "+n+".journal_seq_seq restart; alter sequence "+n+".tokens restart; commit"); err != nil {
				t.Fatal(err)
			}
		} else {
			n, u := freshSchema(t)
			nu = [2]string{n, u}
			mu.Lock()
			urls[t] = nu
			mu.Unlock()
		}
		return open(t, nu[1], cfg)
	}
}
