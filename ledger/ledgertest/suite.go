package ledgertest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/ledger"
	"pgregory.net/rapid"
)

// Opener opens a fresh, empty store for one test. cfg carries the suite's
// clock skew; the store must honour it.
type Opener func(t *testing.T, cfg ledger.Config) ledger.Store

// Clock is the suite's control of a store's clock: Advance moves it on.
type Clock struct{ skew atomic.Int64 }

// Advance moves the store's clock on by d.
func (c *Clock) Advance(d time.Duration) { c.skew.Add(int64(d)) }

// Config is a store configuration whose clock this Clock drives.
func (c *Clock) Config() ledger.Config {
	return ledger.Config{Skew: func() time.Duration { return time.Duration(c.skew.Load()) }}
}

// Key is a canonical key for tests, one per n.
func Key(n int) string {
	k, err := effect.NewKey(effect.Destination{Provider: "slack", ID: fmt.Sprintf("C%03d", n)}, fmt.Sprintf("%064x", n+1))
	if err != nil {
		panic(err)
	}
	return k.String()
}

type fixture struct {
	t     *testing.T
	ctx   context.Context
	clock *Clock
	s     ledger.Store
}

func newFixture(t *testing.T, open Opener) *fixture {
	c := &Clock{}
	s := open(t, c.Config())
	t.Cleanup(func() { _ = s.Close() })
	return &fixture{t: t, ctx: context.Background(), clock: c, s: s}
}

func (f *fixture) claim(task, key, scope string, lease time.Duration) ledger.Result {
	f.t.Helper()
	r, err := f.s.Claim(f.ctx, mustClaim(f.t, ledger.ClaimRequest{Task: task, Key: key, Scope: scope, Lease: lease}))
	if err != nil {
		f.t.Fatalf("claim %s: %v", task, err)
	}
	return r
}

func (f *fixture) cross(key, scope string, token int64) ledger.Result {
	f.t.Helper()
	r, err := f.s.Cross(f.ctx, ledger.CrossRequest{Key: key, Scope: scope, Token: token, Checkpoint: "send"})
	if err != nil {
		f.t.Fatalf("cross %d: %v", token, err)
	}
	return r
}

func (f *fixture) settle(key, scope string, token int64, o ledger.Outcome) ledger.Result {
	f.t.Helper()
	r, err := f.s.Settle(f.ctx, ledger.SettleRequest{Key: key, Scope: scope, Token: token, Outcome: o})
	if err != nil {
		f.t.Fatalf("settle %d %s: %v", token, o, err)
	}
	return r
}

func (f *fixture) now() time.Time {
	f.t.Helper()
	now, err := f.s.Now(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return now
}

func (f *fixture) journal(key string) []ledger.Entry {
	f.t.Helper()
	var got []ledger.Entry
	if err := f.s.Journal(f.ctx, key, func(e ledger.Entry) error { got = append(got, e); return nil }); err != nil {
		f.t.Fatal(err)
	}
	return got
}

func mustClaim(t *testing.T, req ledger.ClaimRequest) ledger.ClaimRequest {
	req, err := ledger.NormalizeClaim(req)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func want(t *testing.T, what string, r ledger.Result, granted bool, rule string, state ledger.State, token int64) {
	t.Helper()
	gotRule := ""
	if len(r.Reasons) > 0 {
		gotRule = r.Reasons[0].Rule
	}
	if r.Granted != granted || gotRule != rule || r.State != state || r.Token != token {
		t.Fatalf("%s: got granted=%v rule=%q state=%s token=%d, want granted=%v rule=%q state=%s token=%d (%+v)",
			what, r.Granted, gotRule, r.State, r.Token, granted, rule, state, token, r.Reasons)
	}
}

// Run runs the conformance suite against a store.
func Run(t *testing.T, open Opener) {
	o := ledger.OriginalScope
	k := Key(1)
	t.Run("WorkerLoop", func(t *testing.T) {
		f := newFixture(t, open)
		r := f.claim("a", k, o, time.Minute)
		want(t, "claim", r, true, "", ledger.Claimed, 1)
		if r.ProviderToken != ledger.ProviderToken(k, o) || r.Holder != "a" || !r.LeaseExpires.After(time.Now().Add(50*time.Second)) {
			t.Fatalf("claim record: %+v", r)
		}
		want(t, "cross", f.cross(k, o, 1), true, "", ledger.Crossing, 1)
		want(t, "cross again", f.cross(k, o, 1), true, "", ledger.Crossing, 1)
		want(t, "settle", f.settle(k, o, 1, ledger.Confirmed), true, "", ledger.SentVerified, 1)
		want(t, "claim after", f.claim("b", k, o, time.Minute), false, ledger.KeyConsumed, ledger.SentVerified, 1)
		rec, ok, err := f.s.Get(f.ctx, k, o)
		if err != nil || !ok || rec.State != ledger.SentVerified {
			t.Fatalf("get: %+v %v %v", rec, ok, err)
		}
	})
	t.Run("Fencing", func(t *testing.T) {
		f := newFixture(t, open)
		want(t, "A claims", f.claim("A", k, o, 10*time.Second), true, "", ledger.Claimed, 1)
		want(t, "B refused", f.claim("B", k, o, 10*time.Second), false, ledger.ClaimedByOther, ledger.Claimed, 1)
		f.clock.Advance(11 * time.Second)
		want(t, "B claims", f.claim("B", k, o, 10*time.Second), true, "", ledger.Claimed, 2)
		want(t, "A cross", f.cross(k, o, 1), false, ledger.Fenced, ledger.Claimed, 2)
		want(t, "A settle", f.settle(k, o, 1, ledger.NotCrossed), false, ledger.Fenced, ledger.Claimed, 2)
		want(t, "A confirm", f.settle(k, o, 1, ledger.Confirmed), false, ledger.Fenced, ledger.Claimed, 2)
		want(t, "B cross", f.cross(k, o, 2), true, "", ledger.Crossing, 2)
		want(t, "B settle", f.settle(k, o, 2, ledger.Confirmed), true, "", ledger.SentVerified, 2)
	})
	t.Run("RenewKeepsToken", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, 10*time.Second)
		f.clock.Advance(8 * time.Second)
		want(t, "renew", f.claim("A", k, o, 10*time.Second), true, "", ledger.Claimed, 1)
		f.clock.Advance(8 * time.Second)
		want(t, "still live", f.claim("B", k, o, 10*time.Second), false, ledger.ClaimedByOther, ledger.Claimed, 1)
	})
	t.Run("ExpiredCrossingIsNeverFreed", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, 10*time.Second)
		f.cross(k, o, 1)
		f.clock.Advance(11 * time.Second)
		want(t, "claim", f.claim("B", k, o, 10*time.Second), false, ledger.KeyConsumed, ledger.SendStatusUnknown, 1)
		want(t, "late confirm", f.settle(k, o, 1, ledger.Confirmed), true, "", ledger.SentVerified, 1)
	})
	t.Run("ReleaseBeforeCrossing", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, time.Minute)
		want(t, "release", f.settle(k, o, 1, ledger.NotCrossed), true, "", ledger.Free, 1)
		want(t, "cross released", f.cross(k, o, 1), false, ledger.NotClaimed, ledger.Free, 1)
		want(t, "next", f.claim("B", k, o, time.Minute), true, "", ledger.Claimed, 2)
		f.cross(k, o, 2)
		want(t, "release after cross", f.settle(k, o, 2, ledger.NotCrossed), false, ledger.AlreadyCrossed, ledger.Crossing, 2)
		want(t, "unknown", f.settle(k, o, 2, ledger.Unknown), true, "", ledger.SendStatusUnknown, 2)
		want(t, "claim", f.claim("C", k, o, time.Minute), false, ledger.KeyConsumed, ledger.SendStatusUnknown, 2)
	})
	t.Run("Authorization", func(t *testing.T) {
		f := newFixture(t, open)
		want(t, "unknown scope", f.claim("A", k, "re1", time.Minute), false, ledger.UnknownAuthorization, ledger.Free, 0)
		req, _ := ledger.NormalizeAuthorize(ledger.AuthorizeRequest{Key: k, Authorization: "re1", By: "pat", Reason: "customer lost it"})
		r, err := f.s.Authorize(f.ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "authorize", r, true, "", ledger.Free, 0)
		r, _ = f.s.Authorize(f.ctx, req)
		want(t, "authorize again", r, true, "", ledger.Free, 0)
		req.Reason = "other"
		r, _ = f.s.Authorize(f.ctx, req)
		want(t, "other words", r, false, ledger.AuthorizationExists, ledger.Free, 0)
		want(t, "claim", f.claim("A", k, "re1", time.Minute), true, "", ledger.Claimed, 1)
		if r.ProviderToken == ledger.ProviderToken(k, o) {
			t.Fatal("a new scope has a new provider token")
		}
		f.cross(k, "re1", 1)
		f.settle(k, "re1", 1, ledger.Confirmed)
		want(t, "once", f.claim("B", k, "re1", time.Minute), false, ledger.KeyConsumed, ledger.SentVerified, 1)
		want(t, "original untouched", f.claim("B", k, o, time.Minute), true, "", ledger.Claimed, 2) // the ledger's next token
		// A token of one scope never fits another's claim: a worker of
		// scope re1 (token 1) that forgets its scope is fenced off.
		want(t, "re1's token on original", f.cross(k, o, 1), false, ledger.Fenced, ledger.Claimed, 2)
	})
	t.Run("Journal", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, time.Minute)
		f.claim("B", k, o, time.Minute)
		f.cross(k, o, 1)
		f.settle(k, o, 1, ledger.Confirmed)
		f.claim("C", Key(2), o, time.Minute)
		var got []ledger.Entry
		if err := f.s.Journal(f.ctx, k, func(e ledger.Entry) error { got = append(got, e); return nil }); err != nil {
			t.Fatal(err)
		}
		wantOps := []string{"claim A granted", "claim B refused", "cross A granted", "settle A granted"}
		if len(got) != len(wantOps) {
			t.Fatalf("journal of %s: %d entries, want %d: %+v", k, len(got), len(wantOps), got)
		}
		for i, e := range got {
			g := map[bool]string{true: "granted", false: "refused"}[e.Granted]
			if s := fmt.Sprintf("%s %s %s", e.Op, e.Task, g); s != wantOps[i] {
				t.Errorf("entry %d: %s, want %s", i, s, wantOps[i])
			}
			if i > 0 && (e.Seq <= got[i-1].Seq || e.Time.Before(got[i-1].Time)) {
				t.Errorf("entry %d out of order: %+v after %+v", i, e, got[i-1])
			}
		}
		n := 0
		_ = f.s.Journal(f.ctx, "", func(ledger.Entry) error { n++; return nil })
		if n != 5 {
			t.Fatalf("whole journal: %d entries, want 5", n)
		}
	})
	t.Run("PruneKeepsTombstones", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, time.Minute)
		f.cross(k, o, 1)
		f.settle(k, o, 1, ledger.Confirmed)
		f.claim("B", Key(2), o, time.Minute) // live: kept whole
		f.clock.Advance(time.Hour)
		now, err := f.s.Now(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.s.Prune(f.ctx, now)
		if err != nil || n != 1 {
			t.Fatalf("prune: %d scopes, %v; want 1", n, err)
		}
		var got []ledger.Entry
		_ = f.s.Journal(f.ctx, k, func(e ledger.Entry) error { got = append(got, e); return nil })
		if len(got) != 1 || got[0].Op != ledger.OpTombstone || got[0].State != ledger.SentVerified || got[0].Task != "A" {
			t.Fatalf("after prune: %+v", got)
		}
		want(t, "claim after prune", f.claim("C", k, o, time.Minute), false, ledger.KeyConsumed, ledger.SentVerified, 1)
		f.claim("D", Key(3), o, time.Minute)
		n, _ = f.s.Prune(f.ctx, now)
		if n != 0 {
			t.Fatalf("second prune pruned %d", n)
		}
		// The tombstone alone again (C's refusal is detail too), and the
		// journal's order still the order of writing.
		if again := f.journal(k); len(again) != 1 || again[0] != got[0] {
			t.Fatalf("after a second prune: %+v, want %+v", again, got[0])
		}
		all := f.journal("")
		for i := 1; i < len(all); i++ {
			if all[i].Seq <= all[i-1].Seq {
				t.Fatalf("journal after prune out of order: seq %d after %d: %+v", all[i].Seq, all[i-1].Seq, all)
			}
		}
		if len(all) != 3 || all[2].Key != Key(3) {
			t.Fatalf("whole journal after prune: %+v", all)
		}
	})
	t.Run("PruneFollowsALateConfirmation", func(t *testing.T) {
		f := newFixture(t, open)
		f.claim("A", k, o, 10*time.Second)
		f.cross(k, o, 1)
		f.clock.Advance(11 * time.Second)
		want(t, "claim", f.claim("B", k, o, 10*time.Second), false, ledger.KeyConsumed, ledger.SendStatusUnknown, 1)
		f.clock.Advance(time.Hour)
		if n, err := f.s.Prune(f.ctx, f.now()); err != nil || n != 1 {
			t.Fatalf("prune: %d scopes, %v; want 1", n, err)
		}
		want(t, "late confirm", f.settle(k, o, 1, ledger.Confirmed), true, "", ledger.SentVerified, 1)
		f.clock.Advance(time.Hour)
		// The record changed since its tombstone: a new one says so.
		if n, err := f.s.Prune(f.ctx, f.now()); err != nil || n != 1 {
			t.Fatalf("prune after the confirmation: %d scopes, %v; want 1", n, err)
		}
		got := f.journal(k)
		if len(got) != 1 || got[0].Op != ledger.OpTombstone || got[0].State != ledger.SentVerified {
			t.Fatalf("after prune: %+v, want one sent_verified tombstone", got)
		}
	})
	t.Run("ConcurrentClaimsGrantOne", func(t *testing.T) {
		f := newFixture(t, open)
		// A scope with no record yet, then (released by its winner) the
		// same scope with its record: a store must lock both.
		for round := 0; round < 10; round++ {
			key := Key(100 + round/2)
			var granted atomic.Int32
			var winner atomic.Value
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for w := 0; w < 64; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					r, err := f.s.Claim(f.ctx, mustClaim(t, ledger.ClaimRequest{Task: fmt.Sprintf("w%d", w), Key: key, Lease: time.Minute}))
					if err != nil {
						errs <- err
						return
					}
					if r.Granted {
						granted.Add(1)
						winner.Store(r)
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("round %d: %v", round, err)
			}
			if g := granted.Load(); g != 1 {
				t.Fatalf("round %d: %d grants, want 1", round, g)
			}
			// Tokens are the ledger's: each round's grant takes the next.
			r := winner.Load().(ledger.Result)
			if r.Token != int64(1+round) {
				t.Fatalf("round %d: granted token %d, want %d", round, r.Token, 1+round)
			}
			if round%2 == 0 {
				want(t, "release", f.settle(key, o, r.Token, ledger.NotCrossed), true, "", ledger.Free, r.Token)
			}
		}
	})
	t.Run("MayBeTheSameDestination", func(t *testing.T) {
		// SPEC §2: destinations that differ only in letter case, or of
		// which one is known by a title the other carries, may be the
		// same. Keys stay exact; a claim is refused while such a scope is
		// held by another task or consumed.
		f := newFixture(t, open)
		sha := fmt.Sprintf("%064x", 77)
		mk := func(d effect.Destination) string {
			k, err := effect.NewKey(d, sha)
			if err != nil {
				t.Fatal(err)
			}
			return k.String()
		}
		upper, lower := mk(effect.Destination{Provider: "slack", ID: "C024BE91L"}), mk(effect.Destination{Provider: "slack", ID: "c024be91l"})
		titled := mk(effect.Destination{Title: "General"})
		other := mk(effect.Destination{Provider: "slack", ID: "C999"})
		claimT := func(task, key, title string) ledger.Result {
			t.Helper()
			r, err := f.s.Claim(f.ctx, mustClaim(t, ledger.ClaimRequest{Task: task, Key: key, Title: title, Lease: time.Minute}))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		want(t, "A claims upper", claimT("A", upper, "General"), true, "", ledger.Claimed, 1)
		want(t, "B claims lower", claimT("B", lower, ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		want(t, "B claims the title", claimT("B", titled, ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		want(t, "B claims another channel", claimT("B", other, ""), true, "", ledger.Claimed, 2)
		want(t, "A may hold both", claimT("A", lower, ""), true, "", ledger.Claimed, 3)
		want(t, "A releases lower", f.settle(lower, o, 3, ledger.NotCrossed), true, "", ledger.Free, 3)
		f.cross(upper, o, 1)
		f.settle(upper, o, 1, ledger.Confirmed)
		want(t, "C claims lower", claimT("C", lower, ""), false, ledger.KeyConsumed, ledger.Free, 3)
		want(t, "C claims the title", claimT("C", titled, ""), false, ledger.KeyConsumed, ledger.Free, 0)
		// Under an authorization, another scope name: not related.
		req, _ := ledger.NormalizeAuthorize(ledger.AuthorizeRequest{Key: lower, Authorization: "re1", By: "pat", Reason: "once more"})
		if _, err := f.s.Authorize(f.ctx, req); err != nil {
			t.Fatal(err)
		}
		r, err := f.s.Claim(f.ctx, mustClaim(t, ledger.ClaimRequest{Task: "C", Key: lower, Scope: "re1", Lease: time.Minute}))
		if err != nil {
			t.Fatal(err)
		}
		want(t, "C claims lower under re1", r, true, "", ledger.Claimed, 4)
		// A title-only scope consumed refuses a provider/id claim that
		// names that title, not one that names none.
		sha2 := fmt.Sprintf("%064x", 78)
		t2, _ := effect.NewKey(effect.Destination{Title: "Reports"}, sha2)
		p2, _ := effect.NewKey(effect.Destination{Provider: "slack", ID: "C5"}, sha2)
		want(t, "D claims the title", claimT("D", t2.String(), ""), true, "", ledger.Claimed, 5)
		f.cross(t2.String(), o, 5)
		f.settle(t2.String(), o, 5, ledger.Unknown)
		want(t, "E names the title", claimT("E", p2.String(), "reports"), false, ledger.KeyConsumed, ledger.Free, 0)
		want(t, "E names none", claimT("E", p2.String(), ""), true, "", ledger.Claimed, 6)
		// One URL under the providers https and http, or under its two
		// schemes (an adversarial review: the gate weighed them apart).
		sha3 := fmt.Sprintf("%064x", 79)
		hs, _ := effect.NewKey(effect.Destination{Provider: "https", ID: "https://example.com/hook"}, sha3)
		h, _ := effect.NewKey(effect.Destination{Provider: "http", ID: "https://example.com/hook"}, sha3)
		plain, _ := effect.NewKey(effect.Destination{Provider: "http", ID: "http://example.com/hook"}, sha3)
		elsewhere, _ := effect.NewKey(effect.Destination{Provider: "http", ID: "https://example.com/other"}, sha3)
		want(t, "F claims the https URL", claimT("F", hs.String(), ""), true, "", ledger.Claimed, 7)
		want(t, "G claims it under http", claimT("G", h.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		want(t, "G claims its http:// twin", claimT("G", plain.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		want(t, "G claims another path", claimT("G", elsewhere.String(), ""), true, "", ledger.Claimed, 8)
		// The same path with a backslash for a slash (a WHATWG parser's
		// request) or a trailing slash (the thirty-ninth review).
		back, _ := effect.NewKey(effect.Destination{Provider: "http", ID: `https://example.com\hook\`}, sha3)
		want(t, "G claims the backslashed spelling", claimT("G", back.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		// A backslash beside a dot segment: /x\..\hook is /hook (the fortieth).
		dotted, _ := effect.NewKey(effect.Destination{Provider: "http", ID: `https://example.com/x\..\hook`}, sha3)
		want(t, "G claims the spelling with a dot segment", claimT("G", dotted.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		popped, _ := effect.NewKey(effect.Destination{Provider: "http", ID: `https://example.com/hook\x/../`}, sha3)
		want(t, "G claims a spelling whose .. pops a backslashed segment", claimT("G", popped.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		userinfo, _ := effect.NewKey(effect.Destination{Provider: "http", ID: `https://u\@example.com/hook`}, sha3)
		want(t, "G claims curl's spelling with a backslash in the userinfo", claimT("G", userinfo.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		zeros, _ := effect.NewKey(effect.Destination{Provider: "http", ID: "https://example.com:0443/hook"}, sha3)
		want(t, "G claims the port written 0443", claimT("G", zeros.String(), ""), false, ledger.ClaimedByOther, ledger.Free, 0)
		// Titles and ids that differ by a simple case fold (the long s).
		longS, _ := effect.NewKey(effect.Destination{Title: "#ſales"}, sha3)
		s, _ := effect.NewKey(effect.Destination{Provider: "slack", ID: "C7"}, sha3)
		want(t, "H claims #ſales", claimT("H", longS.String(), ""), true, "", ledger.Claimed, 9)
		want(t, "I claims the channel titled #Sales", claimT("I", s.String(), "#Sales"), false, ledger.ClaimedByOther, ledger.Free, 0)
		// One task may hold two spellings, but it crosses only one (the
		// thirty-fourth review: both crossings were granted).
		sha4 := fmt.Sprintf("%064x", 80)
		m1, _ := effect.NewKey(effect.Destination{Provider: "mail", ID: "Finance@Example.com"}, sha4)
		m2, _ := effect.NewKey(effect.Destination{Provider: "mail", ID: "finance@example.com"}, sha4)
		want(t, "J claims one spelling", claimT("J", m1.String(), ""), true, "", ledger.Claimed, 10)
		want(t, "J claims the other", claimT("J", m2.String(), ""), true, "", ledger.Claimed, 11)
		want(t, "J crosses the first", f.cross(m1.String(), o, 10), true, "", ledger.Crossing, 10)
		want(t, "J crosses the second", f.cross(m2.String(), o, 11), false, ledger.KeyConsumed, ledger.Claimed, 11)
		// A renewal that would title a held channel as another task's
		// held title is refused: the two never both hold.
		t1, _ := effect.NewKey(effect.Destination{Provider: "slack", ID: "C9"}, sha4)
		t9, _ := effect.NewKey(effect.Destination{Title: "ops9"}, sha4)
		want(t, "K claims slack/C9", claimT("K", t1.String(), ""), true, "", ledger.Claimed, 12)
		want(t, "L claims ops9", claimT("L", t9.String(), ""), true, "", ledger.Claimed, 13)
		want(t, "K renews, titling C9 ops9", claimT("K", t1.String(), "ops9"), false, ledger.ClaimedByOther, ledger.Claimed, 12)
		// A title one claim gave a channel holds for every spelling of it
		// (the thirty-fourth review: an untitled claim of another spelling
		// was granted beside a crossing known by that title alone).
		sha5 := fmt.Sprintf("%064x", 81)
		hk, _ := effect.NewKey(effect.Destination{Provider: "https", ID: "https://h.com/hook"}, sha5)
		hkTitle, _ := effect.NewKey(effect.Destination{Title: "Hook"}, sha5)
		hkPlain, _ := effect.NewKey(effect.Destination{Provider: "http", ID: "http://h.com/hook"}, sha5)
		want(t, "M claims the hook, titled Hook", claimT("M", hk.String(), "Hook"), true, "", ledger.Claimed, 14)
		want(t, "M releases it", f.settle(hk.String(), o, 14, ledger.NotCrossed), true, "", ledger.Free, 14)
		want(t, "N claims Hook", claimT("N", hkTitle.String(), ""), true, "", ledger.Claimed, 15)
		want(t, "N crosses", f.cross(hkTitle.String(), o, 15), true, "", ledger.Crossing, 15)
		want(t, "P claims the hook's other spelling, untitled", claimT("P", hkPlain.String(), ""), false, ledger.KeyConsumed, ledger.Free, 0)
		// The same when the title was given under an authorization's
		// scope (a thirty-fifth review): a channel's title is its own,
		// whatever scope the claim that gave it was in.
		sha6 := fmt.Sprintf("%064x", 82)
		c1, _ := effect.NewKey(effect.Destination{Provider: "slack", ID: "C1"}, sha6)
		fin, _ := effect.NewKey(effect.Destination{Title: "fin"}, sha6)
		areq, _ := ledger.NormalizeAuthorize(ledger.AuthorizeRequest{Key: c1.String(), Authorization: "A1", By: "pat", Reason: "again"})
		if _, err := f.s.Authorize(f.ctx, areq); err != nil {
			t.Fatal(err)
		}
		r, err = f.s.Claim(f.ctx, mustClaim(t, ledger.ClaimRequest{Task: "Q", Key: c1.String(), Scope: "A1", Title: "fin", Lease: time.Minute}))
		if err != nil {
			t.Fatal(err)
		}
		want(t, "Q claims C1 under A1, titled fin", r, true, "", ledger.Claimed, 16)
		want(t, "Q releases it", f.settle(c1.String(), "A1", 16, ledger.NotCrossed), true, "", ledger.Free, 16)
		want(t, "R claims fin", claimT("R", fin.String(), ""), true, "", ledger.Claimed, 17)
		want(t, "R crosses", f.cross(fin.String(), o, 17), true, "", ledger.Crossing, 17)
		want(t, "S claims C1, untitled", claimT("S", c1.String(), ""), false, ledger.KeyConsumed, ledger.Free, 0)
	})
	t.Run("AgreesWithTheModel", func(t *testing.T) { Differential(t, open) })
}

// Differential drives a store and Model with the same random operations
// and requires the same answers. Time moves in steps of 4s against leases
// of 10s, so no check falls on an expiry instant and the store's own clock
// drift between calls (milliseconds) cannot change an answer.
func Differential(t *testing.T, open Opener) {
	rapid.Check(t, func(rt *rapid.T) {
		c := &Clock{}
		s := open(t, c.Config())
		defer s.Close()
		m := NewModel()
		ctx := context.Background()
		base := time.Now()
		keys := []string{Key(1), Key(2)}
		scopes := []string{ledger.OriginalScope, "a1"}
		tasks := []string{"t1", "t2", "t3"}
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			now := base.Add(time.Duration(c.skew.Load()))
			key := rapid.SampledFrom(keys).Draw(rt, "key")
			scope := rapid.SampledFrom(scopes).Draw(rt, "scope")
			// The scope's current token, a stale one, or any the ledger
			// gave (another scope's).
			token := rapid.SampledFrom([]int64{m.Token(key, scope), m.Token(key, scope) - 1,
				int64(rapid.IntRange(1, int(m.LastToken())+1).Draw(rt, "any"))}).Draw(rt, "token")
			if token < 1 {
				token = 1
			}
			var got ledger.Result
			var exp Answer
			var err error
			op := rapid.SampledFrom([]string{"claim", "claim", "cross", "settle", "authorize", "wait"}).Draw(rt, "op")
			switch op {
			case "wait":
				c.Advance(4 * time.Second * time.Duration(rapid.IntRange(1, 3).Draw(rt, "wait")))
				continue
			case "claim":
				task := rapid.SampledFrom(tasks).Draw(rt, "task")
				exp = m.Claim(task, key, scope, 10*time.Second, now)
				got, err = s.Claim(ctx, mustClaim(t, ledger.ClaimRequest{Task: task, Key: key, Scope: scope, Lease: 10 * time.Second}))
			case "cross":
				exp = m.Cross(key, scope, token, now)
				got, err = s.Cross(ctx, ledger.CrossRequest{Key: key, Scope: scope, Token: token, Checkpoint: "send"})
			case "settle":
				o := rapid.SampledFrom([]ledger.Outcome{ledger.Confirmed, ledger.Unknown, ledger.NotCrossed}).Draw(rt, "outcome")
				exp = m.Settle(key, scope, token, o, now)
				got, err = s.Settle(ctx, ledger.SettleRequest{Key: key, Scope: scope, Token: token, Outcome: o})
			case "authorize":
				words := rapid.SampledFrom([]string{"ok", "other"}).Draw(rt, "words")
				exp = m.Authorize(key, "a1", "pat", words)
				got, err = s.Authorize(ctx, ledger.AuthorizeRequest{Key: key, Authorization: "a1", By: "pat", Reason: words})
			}
			if err != nil {
				rt.Fatalf("step %d %s: %v", i, op, err)
			}
			rule := ""
			if len(got.Reasons) > 0 {
				rule = got.Reasons[0].Rule
			}
			g := Answer{Granted: got.Granted, Rule: rule, State: got.State, Token: got.Token, Holder: got.Holder}
			if g != exp {
				rt.Fatalf("step %d %s %s/%s token %d: store %+v, model %+v", i, op, key[len(key)-4:], scope, token, g, exp)
			}
		}
	})
}
