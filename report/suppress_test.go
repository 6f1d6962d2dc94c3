package report

import (
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

func TestFingerprint_IgnoresLinesAndMessagesNotWhatTheFindingIs(t *testing.T) {
	key, scope, task := "v1|dest=slack/C1|sha256=00", "original", "t2"
	rep := func(line int) *Report {
		return &Report{Keys: []KeyScope{{Key: key, Scope: scope,
			Tasks: []TaskSummary{{ID: "t2", Start: analyzer.Pointer{File: "t2.jsonl", Line: line}}},
			Evidence: []Evidence{
				{Task: "t1", Type: "send_fired", File: "t1.jsonl", Line: line + 4},
				{Task: "t2", Type: "send_fired", File: "t2.jsonl", Line: line + 6},
				{Task: "t2", Type: "picker_accepted", File: "t2.jsonl", Line: line + 5},
			}}}}
	}
	finding := func(line int, mod func(*policy.Finding)) policy.Finding {
		k, s, tk := key, scope, task
		f := policy.Finding{Rule: "DUPLICATE_DELIVERY", Severity: "critical", Key: &k, Scope: &s, Task: &tk,
			Message:  "at line " + string(rune('0'+line)),
			Evidence: []analyzer.Pointer{{File: "t1.jsonl", Line: line + 4}, {File: "t2.jsonl", Line: line + 6}}}
		if mod != nil {
			mod(&f)
		}
		return f
	}
	base := rep(1).Fingerprint(finding(1, nil))
	if got := rep(3).Fingerprint(finding(3, nil)); got != base {
		t.Errorf("lines and message moved, fingerprint changed: %s != %s", got, base)
	}
	for name, mod := range map[string]func(*policy.Finding){
		"rule":  func(f *policy.Finding) { f.Rule = "DUPLICATE_RISK_RESUME" },
		"key":   func(f *policy.Finding) { k := key + "1"; f.Key = &k },
		"scope": func(f *policy.Finding) { s := "A1"; f.Scope = &s },
		"task":  func(f *policy.Finding) { tk := "t1"; f.Task = &tk },
		"evidence kind": func(f *policy.Finding) {
			f.Evidence[1] = analyzer.Pointer{File: "t2.jsonl", Line: 6} // picker_accepted
		},
		"evidence task": func(f *policy.Finding) { f.Evidence = f.Evidence[1:] },
	} {
		if rep(1).Fingerprint(finding(1, mod)) == base {
			t.Errorf("a finding with another %s has the same fingerprint", name)
		}
	}
	// With no key the files tell findings apart (UNREADABLE_HISTORY of
	// which input).
	nokey := func(file string) policy.Finding {
		return policy.Finding{Rule: "UNREADABLE_HISTORY", Evidence: []analyzer.Pointer{{File: file, Line: 2}}}
	}
	if (&Report{}).Fingerprint(nokey("a.jsonl")) == (&Report{}).Fingerprint(nokey("b.jsonl")) {
		t.Error("keyless findings of two files share a fingerprint")
	}
}

func TestSuppress_AFingerprintWithOneNewFindingStillFails(t *testing.T) {
	k := "k"
	f := policy.Finding{Rule: "DUPLICATE_DELIVERY", Severity: "critical", Key: &k}
	r := &Report{Findings: []policy.Finding{f, f}, Summary: Summary{FailOn: "high", Events: 3}}
	fp := r.Fingerprint(f)
	r.Suppress(&Suppressions{Findings: []FindingStatus{{Fingerprint: fp, Status: StatusBaseline}, {Fingerprint: fp, Status: StatusNew}}})
	if !r.Summary.Failed || !r.Fails(f) {
		t.Errorf("failed=%v fails=%v: one of two identical findings is new, the run must fail", r.Summary.Failed, r.Fails(f))
	}
	r.Suppress(&Suppressions{Findings: []FindingStatus{{Fingerprint: fp, Status: StatusBaseline}, {Fingerprint: fp, Status: StatusWaived}}})
	if r.Summary.Failed || r.Fails(f) {
		t.Error("every finding suppressed, the run still fails")
	}
	r.Summary.Events = 0
	r.Suppress(&Suppressions{Findings: []FindingStatus{{Fingerprint: fp, Status: StatusBaseline}, {Fingerprint: fp, Status: StatusBaseline}}})
	if !r.Summary.Failed {
		t.Error("a run that read no event passed because of a baseline")
	}
}
