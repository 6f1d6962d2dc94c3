package ledger

import (
	"strings"
	"testing"
	"time"
)

// A related record whose key no longer reads as canonical (a version
// whose canonical form differed wrote it: an http id without a scheme,
// before 7 December 2026) may be any destination of its content: a claim
// of the same content and scope fails closed on it.
func TestApplyClaim_AnUnreadableRelatedKeyConflicts(t *testing.T) {
	sha := strings.Repeat("a", 64)
	old := "v1|dest=http/ex.com%2Fhook|sha256=" + sha // canonical before; now http://ex.com/hook
	if checkKey(old) == nil {
		t.Fatalf("%s reads as canonical: the test needs a key that does not", old)
	}
	now := time.Now()
	related := []Record{{Key: old, Scope: OriginalScope, State: SendStatusUnknown, Token: 3, Holder: "w1"}}
	req := ClaimRequest{Task: "w2", Key: "v1|dest=slack/C1|sha256=" + sha, Scope: OriginalScope, Lease: time.Minute}
	r := ApplyClaim(Record{}, false, related, req, now)
	if r.Granted || len(r.Reasons) == 0 || r.Reasons[0].Rule != KeyConsumed {
		t.Errorf("claim beside an unreadable consumed key: %+v, want KEY_CONSUMED", r)
	}
	// Under another scope name it is only a source of titles.
	related[0].Scope = "A1"
	if r := ApplyClaim(Record{}, false, related, req, now); !r.Granted {
		t.Errorf("an unreadable key of another scope name refused the claim: %+v", r)
	}
}
