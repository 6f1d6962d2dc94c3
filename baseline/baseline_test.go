package baseline

import (
	"testing"
	"time"

	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/report"
)

func findings(keys ...string) *report.Report {
	r := &report.Report{Summary: report.Summary{FailOn: "high", Events: 1}}
	for _, k := range keys {
		k := k
		r.Findings = append(r.Findings, policy.Finding{Rule: "DUPLICATE_DELIVERY", Severity: "critical", Key: &k})
	}
	return r
}

func TestApply_WaiverWinsBaselineHoldsAfterItExpires(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := findings("k1", "k2", "k3")
	base := FromReport(findings("k1", "k2"))
	ws, err := Waivers(map[string]any{"waivers": []any{
		map[string]any{"id": "W1", "rule": "DUPLICATE_DELIVERY", "key": "k1", "reason": "r", "expires": "2026-12-02"},
		map[string]any{"id": "W2", "rule": "DUPLICATE_DELIVERY", "key": "k3", "reason": "r", "expires": "2026-12-01"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	Apply(r, base, "b.json", ws, now)
	s := r.Suppressions
	got := []string{s.Findings[0].Status, s.Findings[1].Status, s.Findings[2].Status}
	want := []string{report.StatusWaived, report.StatusBaseline, report.StatusNew}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	}
	// W2 expired at 00:00 UTC on its date: listed, attached to k3, failing.
	if len(s.Expired) != 1 || s.Expired[0].ID != "W2" || s.Findings[2].Waiver == nil || s.Findings[2].Waiver.ID != "W2" {
		t.Errorf("expired %+v, k3's waiver %+v", s.Expired, s.Findings[2].Waiver)
	}
	if s.Tally != (report.Tally{New: 1, Baseline: 1, Waived: 1, Expired: 1, Gone: 0}) || !r.Summary.Failed {
		t.Errorf("tally %+v failed=%v", s.Tally, r.Summary.Failed)
	}

	// A day later W1 has expired too; k1 is still in the baseline.
	r = findings("k1", "k2")
	Apply(r, base, "b.json", ws, now.Add(24*time.Hour))
	if st := r.Suppressions.Findings[0].Status; st != report.StatusBaseline || r.Summary.Failed {
		t.Errorf("k1 after W1 expired: %s failed=%v, want baseline and pass", st, r.Summary.Failed)
	}
	if r.Suppressions.Tally.Expired != 2 {
		t.Errorf("expired waivers %d, want 2", r.Suppressions.Tally.Expired)
	}
}

func TestUntil(t *testing.T) {
	for s, want := range map[string]time.Time{
		"2026-12-31":                time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC),
		"2026-12-31T00:00:00Z":      time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC),
		"2026-12-31T08:00:00+02:00": time.Date(2026, 12, 31, 6, 0, 0, 0, time.UTC),
	} {
		got, err := until(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("until(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "31.12.2026", "2026-13-01", "tomorrow"} {
		if _, err := until(s); err == nil {
			t.Errorf("until(%q) accepted", s)
		}
	}
}
