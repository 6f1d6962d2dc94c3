package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	serverURL(t)
	ledgertest.Run(t, opener())
}

// claimRace: workers stores, one connection each (as many CLI processes
// would), claim a scope nobody has claimed, all at once, rounds times:
// exactly one grant each round, token 1, and a journal of one grant and
// workers-1 refusals. Then the winner releases the scope and they race
// again for its row, now there: one grant, token 2.
func claimRace(t *testing.T, workers, rounds int, scopeLocks bool) (retries int64) {
	_, u := freshSchema(t)
	u = withParam(t, u, "pool_max_conns", "1")
	stores := make([]*Store, workers)
	defer func() {
		for _, s := range stores {
			retries += s.retries.Load()
		}
	}()
	for i := range stores {
		stores[i] = open(t, u, ledger.Config{})
		stores[i].noScopeLocks = !scopeLocks
		defer stores[i].Close()
		if _, err := stores[i].Now(context.Background()); err != nil { // connect now
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var last int64 // tokens are the ledger's: each grant's is above the one before
	race := func(round int, key string, token int64) {
		start := make(chan struct{})
		var wg sync.WaitGroup
		results := make([]ledger.Result, workers)
		errs := make([]error, workers)
		for w := range stores {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				<-start
				results[w], errs[w] = stores[w].Claim(ctx, ledger.ClaimRequest{Task: fmt.Sprintf("w%d", w), Key: key, Lease: time.Minute})
			}(w)
		}
		close(start)
		wg.Wait()
		winner := -1
		for w := range stores {
			if errs[w] != nil {
				t.Fatalf("round %d worker %d: %v", round, w, errs[w])
			}
			if results[w].Granted {
				if winner >= 0 {
					t.Fatalf("round %d, token %d: workers %d and %d were both granted (tokens %d, %d)", round, token, winner, w, results[winner].Token, results[w].Token)
				}
				winner = w
				if results[w].Token <= last {
					t.Fatalf("round %d: granted token %d, not above the last grant's %d", round, results[w].Token, last)
				}
				last = results[w].Token
			} else if results[w].Reasons[0].Rule != ledger.ClaimedByOther {
				t.Fatalf("round %d worker %d refused with %+v", round, w, results[w].Reasons)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d, token %d: nobody was granted", round, token)
		}
		var g, r int
		if err := stores[0].Journal(ctx, key, func(e ledger.Entry) error {
			if e.Op == ledger.OpClaim && e.Granted {
				g++
			} else if e.Op == ledger.OpClaim {
				r++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if g != int(token) || r != int(token)*(workers-1) {
			t.Fatalf("round %d, token %d: the journal has %d grants and %d refusals", round, token, g, r)
		}
		if token == 1 {
			if res, err := stores[winner].Settle(ctx, ledger.SettleRequest{Key: key, Token: results[winner].Token, Outcome: ledger.NotCrossed}); err != nil || !res.Granted {
				t.Fatalf("release: %+v %v", res, err)
			}
		}
	}
	for round := 0; round < rounds; round++ {
		key := ledgertest.Key(1000 + round)
		race(round, key, 1)
		race(round, key, 2)
	}
	return
}

func TestConcurrentFirstClaimsGrantOne(t *testing.T) {
	t.Parallel()
	serverURL(t)
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	if n := claimRace(t, 64, rounds, true); n != 0 {
		t.Fatalf("%d operations ran again: the scopes' locks let inserts race", n)
	}
}

// Without the scopes' advisory locks the primary key alone keeps one
// grant: the losers of the insert run again and find the row.
func TestConcurrentFirstClaimsGrantOneByThePrimaryKey(t *testing.T) {
	t.Parallel()
	serverURL(t)
	n := claimRace(t, 64, 10, false)
	if n == 0 {
		t.Fatal("no insert lost a race: the test raced nothing")
	}
	t.Logf("%d operations ran again after losing the insert", n)
}

// Concurrent authorizations of one id with different words: one records
// it, the others are refused.
func TestConcurrentAuthorizationsRecordOne(t *testing.T) {
	t.Parallel()
	_, u := freshSchema(t)
	s := open(t, withParam(t, u, "pool_max_conns", "16"), ledger.Config{})
	defer s.Close()
	key := ledgertest.Key(7)
	var wg sync.WaitGroup
	results := make([]ledger.Result, 16)
	errs := make([]error, 16)
	for w := range results {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			results[w], errs[w] = s.Authorize(context.Background(), ledger.AuthorizeRequest{Key: key, Authorization: "a1", By: "pat", Reason: fmt.Sprint("reason ", w)})
		}(w)
	}
	wg.Wait()
	granted := 0
	for w, r := range results {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		if r.Granted {
			granted++
		} else if r.Reasons[0].Rule != ledger.AuthorizationExists {
			t.Fatalf("refused with %+v", r.Reasons)
		}
	}
	if granted != 1 {
		t.Fatalf("%d authorizations recorded, want 1", granted)
	}
}

// Records and entries come back as they were written: times in UTC to the
// microsecond, an authorization with its words, a free record's zero
// lease, the tombstone of TombstoneOf.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	_, u := freshSchema(t)
	s := open(t, u, ledger.Config{})
	defer s.Close()
	ctx := context.Background()
	key := ledgertest.Key(3)
	a, err := s.Authorize(ctx, ledger.AuthorizeRequest{Key: key, Authorization: "a1", By: "pat", Reason: "lost"})
	if err != nil || !a.Granted {
		t.Fatal(a, err)
	}
	rec, ok, err := s.Get(ctx, key, "a1")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if rec.Authorization == nil || *rec.Authorization != *a.Authorization || !rec.LeaseExpires.IsZero() || rec.Updated != a.Updated {
		t.Fatalf("authorization record: %+v, answered %+v", rec, a.Record)
	}
	c, err := s.Claim(ctx, ledger.ClaimRequest{Task: "t", Key: key, Lease: 1500 * time.Microsecond, Ref: "toolu_1"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ = s.Get(ctx, key, ledger.OriginalScope)
	if rec != c.Record || rec.LeaseExpires.Location() != time.UTC || rec.Authorization != nil {
		t.Fatalf("claim record: %+v, answered %+v", rec, c.Record)
	}
	if _, ok, _ := s.Get(ctx, key, "nope"); ok {
		t.Fatal("a scope with no record has one")
	}
	var entries []ledger.Entry
	_ = s.Journal(ctx, key, func(e ledger.Entry) error { entries = append(entries, e); return nil })
	if len(entries) != 2 || entries[0].By != "pat" || entries[0].Reason != "lost" || entries[1].Ref != "toolu_1" ||
		entries[1].Token != 1 || entries[1].LeaseExpires != c.LeaseExpires || entries[1].Time != c.Updated {
		t.Fatalf("journal: %+v", entries)
	}
	stop := errors.New("stop")
	n := 0
	if err := s.Journal(ctx, "", func(ledger.Entry) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("fn's error: %v after %d", err, n)
	}
}

func TestOpenConcurrentlyMigratesOnce(t *testing.T) {
	t.Parallel()
	name, u := freshSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := Open(context.Background(), u, ledger.Config{})
			if err == nil {
				_, err = s.Claim(context.Background(), ledger.ClaimRequest{Task: fmt.Sprint(i), Key: ledgertest.Key(i), Lease: time.Minute})
				s.Close()
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var v, rows int
	if err := admin(t).QueryRow(context.Background(), "select max(schema_version), count(*) from "+name+".meta").Scan(&v, &rows); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion || rows != 1 {
		t.Fatalf("meta: version %d in %d rows", v, rows)
	}
	s := open(t, u, ledger.Config{})
	defer s.Close()
	if err := s.Init(context.Background()); err != nil {
		t.Fatal("Init again:", err)
	}
	if _, err := admin(t).Exec(context.Background(), "update "+name+".meta set schema_version = 99"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), u, ledger.Config{}); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("a newer schema: %v", err)
	}
}

func TestErrorsNameTheServerWithoutPassword(t *testing.T) {
	t.Parallel()
	u := "postgres://pat:s3cret@127.0.0.1:1/ledger?sslmode=disable&connect_timeout=2"
	_, err := Open(context.Background(), u, ledger.Config{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "postgres://pat:xxxxx@127.0.0.1:1/ledger") {
		t.Fatalf("error: %v", err)
	}
	// Registered: ledger.Open reaches this store.
	_, err = ledger.Open(context.Background(), u, ledger.Config{})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("ledger.Open: %v", err)
	}
	if _, err := Open(context.Background(), "postgres://pat:s3cret@127.0.0.1:1/ledger?pool_max_conns=x", ledger.Config{}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("a bad URL: %v", err)
	}
}

func TestWhere(t *testing.T) {
	t.Parallel()
	_, u := freshSchema(t)
	s := open(t, u, ledger.Config{})
	defer s.Close()
	if s.Where() != ledger.Redact(u) {
		t.Fatalf("Where: %s", s.Where())
	}
}
