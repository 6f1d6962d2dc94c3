// Package ledgertest is the conformance suite every ledger store passes:
// examples of SPEC §9's rules, concurrency, and a differential property
// test against Model, a reference written from the spec's sentences
// independently of ledger's state machine.
package ledgertest

import (
	"time"

	"github.com/effectlint/effectlint/ledger"
)

// Model is the reference ledger: one map of scopes, each rule of SPEC §9
// written out plainly. It answers granted or not and the refusal's rule.
type Model struct {
	scopes map[[2]string]*modelScope
	// tokens is the last token granted: "an integer that grows with every
	// grant for that scope", taken here from one counter for the whole
	// ledger, so no token of one scope is another's.
	tokens int64
}

type modelScope struct {
	state      ledger.State
	token      int64
	holder     string
	expires    time.Time
	crossedBy  int64
	authorized bool
	words      [2]string
}

// NewModel is an empty reference ledger.
func NewModel() *Model { return &Model{scopes: map[[2]string]*modelScope{}} }

func (m *Model) scope(key, scope string) *modelScope {
	s := m.scopes[[2]string{key, scope}]
	if s == nil {
		s = &modelScope{state: ledger.Free}
		m.scopes[[2]string{key, scope}] = s
	}
	return s
}

// live: a lease runs strictly before its expiry instant.
func (s *modelScope) live(now time.Time) bool { return now.Before(s.expires) }

// Answer is what the model says of an operation.
type Answer struct {
	Granted bool
	Rule    string
	State   ledger.State
	Token   int64
	Holder  string
}

func (s *modelScope) answer(granted bool, rule string) Answer {
	return Answer{Granted: granted, Rule: rule, State: s.state, Token: s.token, Holder: s.holder}
}

// Claim: "a consumed scope refuses (KEY_CONSUMED); a live claim of another
// task refuses (CLAIMED); T's own live claim is renewed (same token, new
// expiry); a claim whose lease expired before any crossing is replaced
// (token N+1); a free scope is granted (the next token). A crossing whose
// lease expired is never freed: it becomes send_status_unknown."
func (m *Model) Claim(task, key, scope string, lease time.Duration, now time.Time) Answer {
	_, known := m.scopes[[2]string{key, scope}]
	s := m.scope(key, scope)
	if scope != ledger.OriginalScope && (!known || !s.authorized) {
		if !known {
			delete(m.scopes, [2]string{key, scope})
		}
		return Answer{Rule: ledger.UnknownAuthorization, State: ledger.Free}
	}
	if s.state == ledger.Crossing && !s.live(now) {
		s.state = ledger.SendStatusUnknown
	}
	switch s.state {
	case ledger.Crossing, ledger.SentVerified, ledger.SendStatusUnknown:
		return s.answer(false, ledger.KeyConsumed)
	case ledger.Claimed:
		if s.live(now) {
			if s.holder != task {
				return s.answer(false, ledger.ClaimedByOther)
			}
			s.expires = now.Add(lease)
			return s.answer(true, "")
		}
	}
	m.tokens++
	s.token = m.tokens
	s.state, s.holder, s.expires, s.crossedBy = ledger.Claimed, task, now.Add(lease), 0
	return s.answer(true, "")
}

// Cross: "atomically requires a live lease under token N; moves the scope
// to crossing. A stale token refuses (FENCED), an expired lease refuses
// (EXPIRED)."
func (m *Model) Cross(key, scope string, token int64, now time.Time) Answer {
	s, ok := m.scopes[[2]string{key, scope}]
	if !ok {
		return Answer{Rule: ledger.NotClaimed, State: ledger.Free}
	}
	if token != s.token {
		return s.answer(false, ledger.Fenced)
	}
	switch s.state {
	case ledger.Free:
		return s.answer(false, ledger.NotClaimed)
	case ledger.Claimed:
		if !s.live(now) {
			return s.answer(false, ledger.Expired)
		}
		s.state, s.crossedBy = ledger.Crossing, token
		return s.answer(true, "")
	case ledger.Crossing:
		if s.live(now) {
			return s.answer(true, "")
		}
		s.state = ledger.SendStatusUnknown
		return s.answer(false, ledger.Expired)
	}
	return s.answer(false, ledger.KeyConsumed)
}

// Settle: "confirmed → sent_verified; unknown → send_status_unknown. A
// confirmation under the token that crossed is accepted even after its
// lease expired. not_crossed releases the scope only from claimed under the
// live token. After cross it is refused and the scope stays consumed."
func (m *Model) Settle(key, scope string, token int64, outcome ledger.Outcome, now time.Time) Answer {
	s, ok := m.scopes[[2]string{key, scope}]
	if !ok {
		return Answer{Rule: ledger.NotClaimed, State: ledger.Free}
	}
	if token != s.token {
		return s.answer(false, ledger.Fenced)
	}
	if s.state == ledger.Free {
		return s.answer(false, ledger.NotClaimed)
	}
	switch outcome {
	case ledger.Confirmed:
		s.state = ledger.SentVerified
		return s.answer(true, "")
	case ledger.Unknown:
		if s.state == ledger.SentVerified {
			return s.answer(false, ledger.AlreadySettled)
		}
		s.state = ledger.SendStatusUnknown
		return s.answer(true, "")
	}
	if s.state == ledger.Crossing && !s.live(now) {
		s.state = ledger.SendStatusUnknown
	}
	if s.state != ledger.Claimed {
		return s.answer(false, ledger.AlreadyCrossed)
	}
	if !s.live(now) {
		return s.answer(false, ledger.Expired)
	}
	s.state = ledger.Free
	s.expires = now
	return s.answer(true, "")
}

// Authorize: "the scope A of K can then be claimed once."
func (m *Model) Authorize(key, auth, by, reason string) Answer {
	k := [2]string{key, auth}
	if s, ok := m.scopes[k]; ok {
		if s.authorized && s.words == [2]string{by, reason} {
			return s.answer(true, "")
		}
		return s.answer(false, ledger.AuthorizationExists)
	}
	s := &modelScope{state: ledger.Free, authorized: true, words: [2]string{by, reason}}
	m.scopes[k] = s
	return s.answer(true, "")
}

// Token is the scope's current token (0: never claimed).
func (m *Model) Token(key, scope string) int64 {
	if s, ok := m.scopes[[2]string{key, scope}]; ok {
		return s.token
	}
	return 0
}

// LastToken is the last token the ledger granted.
func (m *Model) LastToken() int64 { return m.tokens }
