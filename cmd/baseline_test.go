package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/baseline"
)

// Baselines and waivers (issue 16, docs/ci.md): a baseline fails a run
// only on findings not in it; a waiver excuses a finding until it expires.

// shiftedIncident copies the incident and puts the lines of an unrelated,
// finished task before every history, so every evidence line moves.
func shiftedIncident(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "incident")
	if err := os.CopyFS(dir, os.DirFS(incident)); err != nil {
		t.Fatal(err)
	}
	extra := `{"ts":"2026-11-01T00:00:00Z","task":"zz","type":"task_started","relation":"root"}` + "\n" +
		`{"ts":"2026-11-01T00:00:01Z","task":"zz","type":"task_ended","status":"completed"}` + "\n"
	for _, name := range []string{"t1.jsonl", "t2.jsonl"} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append([]byte(extra), b...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type suppressedReport struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Evidence []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"evidence"`
	} `json:"findings"`
	Summary struct {
		Failed bool `json:"failed"`
	} `json:"summary"`
	Suppressions *struct {
		Findings []struct {
			Fingerprint string `json:"fingerprint"`
			Status      string `json:"status"`
		} `json:"findings"`
		Tally struct {
			New, Baseline, Waived int
			Expired               int `json:"expired_waivers"`
			Gone                  int `json:"baseline_gone"`
		} `json:"tally"`
	} `json:"suppressions"`
}

func suppressedOf(t *testing.T, out string) suppressedReport {
	t.Helper()
	var a suppressedReport
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return a
}

func TestBaseline_KnownFindingsPassNewOnesFail(t *testing.T) {
	b := filepath.Join(t.TempDir(), "baseline.json")
	// Without a baseline the incident fails.
	if _, _, code := run(t, "analyze", incident); code != ExitFindings {
		t.Fatalf("incident without baseline: exit %d, want 1", code)
	}
	out, stderr, code := run(t, "analyze", "--write-baseline", b, incident)
	if code != ExitOK {
		t.Fatalf("--write-baseline: exit %d, want 0 (its findings are the baseline): %s", code, stderr)
	}
	if !strings.Contains(out, "suppressions: 0 new finding(s), 5 in the baseline "+b) {
		t.Errorf("text report has no tally:\n%s", out)
	}
	txt := filepath.Join(t.TempDir(), "report.txt")
	if _, _, code := run(t, "analyze", "--baseline", b, "--format", "json", "--output", "text="+txt, incident); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got, _ := os.ReadFile(txt); !strings.Contains(string(got), "suppressions: 0 new finding(s), 5 in the baseline") {
		t.Errorf("--output text= has no tally:\n%s", got)
	}
	f, err := baseline.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Findings) != 5 {
		t.Fatalf("baseline holds %d findings, the incident has 5", len(f.Findings))
	}
	out, stderr, code = run(t, "analyze", "--baseline", b, "--format", "json", incident)
	if code != ExitOK {
		t.Fatalf("--baseline over the same run: exit %d, want 0: %s", code, stderr)
	}
	a := suppressedOf(t, out)
	if len(a.Findings) != 5 || a.Suppressions == nil || a.Suppressions.Tally.Baseline != 5 || a.Suppressions.Tally.New != 0 {
		t.Fatalf("findings must stay in the report, marked baseline: %+v", a)
	}

	// Drop the critical DUPLICATE_DELIVERY from the baseline: it is new.
	var kept []baseline.Entry
	for _, e := range f.Findings {
		if e.Rule != "DUPLICATE_DELIVERY" {
			kept = append(kept, e)
		}
	}
	f.Findings = kept
	if err := f.WriteFile(b); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, "analyze", "--baseline", b, "--format", "json", incident)
	if code != ExitFindings {
		t.Fatalf("a finding not in the baseline: exit %d, want 1", code)
	}
	a = suppressedOf(t, out)
	if a.Suppressions.Tally.New != 1 || a.Suppressions.Tally.Baseline != 4 || !a.Summary.Failed {
		t.Errorf("tally %+v failed=%v, want 1 new, 4 baseline, failed", a.Suppressions.Tally, a.Summary.Failed)
	}
	// Below --fail-on a new finding does not fail the run.
	if _, _, code := run(t, "analyze", "--baseline", b, "--fail-on", "none", incident); code != ExitOK {
		t.Errorf("--fail-on none with a new finding: exit %d, want 0", code)
	}
}

func TestBaseline_SurvivesLineShifts(t *testing.T) {
	b := filepath.Join(t.TempDir(), "baseline.json")
	if _, stderr, code := run(t, "analyze", "--write-baseline", b, incident); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	shifted := shiftedIncident(t)
	before, _, _ := run(t, "analyze", "--format", "json", incident)
	after, _, _ := run(t, "analyze", "--format", "json", shifted)
	x, y := suppressedOf(t, before), suppressedOf(t, after)
	if len(x.Findings) != len(y.Findings) || x.Findings[0].Evidence[0].Line == y.Findings[0].Evidence[0].Line {
		t.Fatalf("the shifted copy must have the same findings on other lines: %+v / %+v", x.Findings, y.Findings)
	}
	out, stderr, code := run(t, "analyze", "--baseline", b, "--format", "json", shifted)
	if code != ExitOK {
		t.Fatalf("lines moved, findings did not: exit %d, want 0: %s\n%s", code, stderr, out)
	}
	if a := suppressedOf(t, out); a.Suppressions.Tally.Baseline != 5 || a.Suppressions.Tally.Gone != 0 {
		t.Errorf("tally %+v, want all 5 matched", a.Suppressions.Tally)
	}
}

func TestBaseline_OneEntrySuppressesOneFinding(t *testing.T) {
	// Two findings with one fingerprint need two entries: a baseline made
	// when the effect happened twice must not pass a third time.
	b := filepath.Join(t.TempDir(), "baseline.json")
	if _, stderr, code := run(t, "analyze", "--write-baseline", b, incident); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := baseline.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	// The same baseline with one entry twice, the other gone: the first
	// counts once more (gone), the other is new.
	f.Findings[1] = f.Findings[0]
	if err := f.WriteFile(b); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "analyze", "--baseline", b, "--format", "json", incident)
	a := suppressedOf(t, out)
	if code != ExitFindings || a.Suppressions.Tally.New != 1 || a.Suppressions.Tally.Gone != 1 {
		t.Errorf("exit %d tally %+v: want exit 1, 1 new, 1 baseline entry gone", code, a.Suppressions.Tally)
	}
}

func TestBaseline_BadFilesAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"--baseline", filepath.Join(dir, "none.json")}, "none.json"},
		{"not JSON", []string{"--baseline", write("a.json", "{")}, "a.json: not a baseline file"},
		{"other version", []string{"--baseline", write("b.json", `{"version":"x","fingerprint":"effectlint-fingerprint/v1","findings":[]}`)}, `version "x"`},
		{"other recipe", []string{"--baseline", write("c.json", `{"version":"effectlint.baseline/v1","fingerprint":"v0","findings":[]}`)}, "write it again with --write-baseline"},
		{"bad fingerprint", []string{"--baseline", write("d.json", `{"version":"effectlint.baseline/v1","fingerprint":"effectlint-fingerprint/v1","findings":[{"fingerprint":"XYZ","rule":"R","severity":"high","message":""}]}`)}, "finding 1"},
		{"unknown field", []string{"--baseline", write("e.json", `{"version":"effectlint.baseline/v1","fingerprint":"effectlint-fingerprint/v1","findings":[],"extra":1}`)}, "e.json"},
		{"same file twice", []string{"--baseline", "x.json", "--write-baseline", "x.json"}, "same file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, append(append([]string{"analyze"}, c.args...), incident)...)
			if code != ExitError || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d stderr %q, want 2 naming %q", code, stderr, c.want)
			}
		})
	}
}

// waiverData writes a --data file with the given waivers (YAML).
func waiverData(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "waivers.yaml")
	if err := os.WriteFile(p, []byte("waivers:\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const incidentKeyB = "v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"

func TestWaivers_ApplyUntilTheyExpire(t *testing.T) {
	// Every finding of the incident is of this one key; waive its rules
	// one by one, all until far in the future but one, expired.
	rules := []string{"DUPLICATE_DELIVERY", "DUPLICATE_RISK_RESUME", "UNCHECKED_CROSSING", "NO_RECHECK_AFTER_INTERRUPTION"}
	var y strings.Builder
	for i, r := range rules {
		y.WriteString("  - id: W" + string(rune('1'+i)) + "\n    rule: " + r + "\n    key: \"" + incidentKeyB + "\"\n    reason: reviewed in INC-42\n    expires: 2999-12-31\n")
	}
	live := waiverData(t, y.String())
	out, stderr, code := run(t, "analyze", "--data", live, "--format", "json", incident)
	if code != ExitOK {
		t.Fatalf("every finding waived: exit %d, want 0: %s", code, stderr)
	}
	if a := suppressedOf(t, out); a.Suppressions.Tally.Waived != 5 || len(a.Findings) != 5 {
		t.Errorf("tally %+v, want 5 waived and the 5 findings still listed", a.Suppressions.Tally)
	}

	expired := waiverData(t, strings.Replace(y.String(), "expires: 2999-12-31", "expires: 2001-01-31", 1))
	out, _, code = run(t, "analyze", "--data", expired, incident)
	if code != ExitFindings {
		t.Fatalf("an expired waiver still applied: exit %d, want 1", code)
	}
	if !strings.Contains(out, "expired waiver W1 (expires 2001-01-31): no longer applies") {
		t.Errorf("the text report does not say the waiver expired:\n%s", out)
	}
	out, _, _ = run(t, "analyze", "--data", expired, "--format", "json", incident)
	a := suppressedOf(t, out)
	if a.Suppressions.Tally.Expired != 1 || a.Suppressions.Tally.New != 1 || a.Suppressions.Tally.Waived != 4 {
		t.Errorf("tally %+v, want 1 expired waiver, 1 new, 4 waived", a.Suppressions.Tally)
	}

	// By fingerprint: the one DUPLICATE_DELIVERY.
	var fp string
	for i, f := range a.Findings {
		if f.Rule == "DUPLICATE_DELIVERY" {
			fp = a.Suppressions.Findings[i].Fingerprint
		}
	}
	byFP := waiverData(t, "  - fingerprint: "+fp+"\n    reason: accepted\n    expires: \"2999-01-01T00:00:00+01:00\"\n")
	out, _, code = run(t, "analyze", "--data", byFP, "--fail-on", "critical", "--format", "json", incident)
	a = suppressedOf(t, out)
	if a.Suppressions.Tally.Waived != 1 || code != ExitFindings {
		// DUPLICATE_RISK_RESUME is critical too and not waived.
		t.Errorf("by fingerprint: exit %d tally %+v, want 1 waived and exit 1", code, a.Suppressions.Tally)
	}
}

func TestWaivers_IncompleteWaiversAreUsageErrors(t *testing.T) {
	cases := map[string]string{
		"no reason":        "  - rule: DUPLICATE_DELIVERY\n    key: k\n    expires: 2999-01-01\n",
		"no expires":       "  - rule: DUPLICATE_DELIVERY\n    key: k\n    reason: r\n",
		"bad date":         "  - rule: DUPLICATE_DELIVERY\n    key: k\n    reason: r\n    expires: next week\n",
		"rule without key": "  - rule: DUPLICATE_DELIVERY\n    reason: r\n    expires: 2999-01-01\n",
		"misspelt field":   "  - rule: DUPLICATE_DELIVERY\n    key: k\n    reason: r\n    expire: 2999-01-01\n",
		"both names":       "  - fingerprint: 00000000000000000000000000000000\n    rule: R\n    key: k\n    reason: r\n    expires: 2999-01-01\n",
	}
	for name, y := range cases {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := run(t, "analyze", "--data", waiverData(t, y), incident)
			if code != ExitError || !strings.Contains(stderr, "data.waivers[0]") && !strings.Contains(stderr, "data.waivers:") {
				t.Errorf("exit %d stderr %q, want 2 naming the waiver", code, stderr)
			}
		})
	}
}

func TestSuppressions_ValidateInJSONAndSARIF(t *testing.T) {
	b := filepath.Join(t.TempDir(), "baseline.json")
	if _, stderr, code := run(t, "analyze", "--write-baseline", b, incident); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, _ := baseline.Read(b)
	f.Findings = f.Findings[:3] // 2 findings new
	if err := f.WriteFile(b); err != nil {
		t.Fatal(err)
	}
	w := waiverData(t, "  - id: W1\n    rule: DUPLICATE_DELIVERY\n    key: \""+incidentKeyB+"\"\n    reason: reviewed in INC-42\n    expires: 2999-12-31\n"+
		"  - id: W0\n    rule: UNKNOWN_AUTHORIZATION\n    key: k\n    reason: old\n    expires: 2001-01-01\n")
	args := []string{"analyze", "--baseline", b, "--data", w, incident}

	analyzeSchema, _ := reportSchemas(t)
	out, _, _ := run(t, append(args, "--format", "json")...)
	if err := validate(t, analyzeSchema, "json", []byte(out)); err != nil {
		t.Errorf("JSON report with suppressions: %v", err)
	}
	if validate(t, analyzeSchema, "bad status", []byte(strings.Replace(out, `"status": "waived"`, `"status": "ignored"`, 1))) == nil {
		t.Error("the report schema accepted status ignored: the check is blind")
	}

	out, _, _ = run(t, append(args, "--format", "sarif")...)
	if err := validate(t, sarifSchema(t), "sarif", []byte(out)); err != nil {
		t.Fatalf("SARIF with suppressions: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID        string `json:"ruleId"`
				BaselineState string `json:"baselineState"`
				Suppressions  []struct {
					Kind, Status, Justification string
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range log.Runs[0].Results {
		count[r.BaselineState]++
		for _, s := range r.Suppressions {
			if s.Kind != "external" || s.Status != "accepted" {
				t.Errorf("%s: suppression %+v, want external/accepted", r.RuleID, s)
			}
			if r.RuleID == "DUPLICATE_DELIVERY" && !strings.Contains(s.Justification, "reviewed in INC-42") {
				t.Errorf("waiver justification %q does not give its reason", s.Justification)
			}
			count["suppressed"]++
		}
	}
	// 3 in the baseline; of the 2 new, DUPLICATE_DELIVERY is waived.
	if count["unchanged"] != 3 || count["new"] != 2 || count["suppressed"] != 4 {
		t.Errorf("SARIF results %v, want 3 unchanged, 2 new, 4 suppressed", count)
	}
}

func TestSuppressions_JUnitAndAnnotationsDoNotFailKnownFindings(t *testing.T) {
	b := filepath.Join(t.TempDir(), "baseline.json")
	if _, stderr, code := run(t, "analyze", "--write-baseline", b, incident); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ format, failing, known string }{
		{"github", "::error ", "(baseline)"},
		{"junit", "<failure", "<testcase"},
	} {
		plain, _, _ := run(t, "analyze", "--format", c.format, incident)
		if !strings.Contains(plain, c.failing) {
			t.Fatalf("%s without a baseline has no %q: the check is blind\n%s", c.format, c.failing, plain)
		}
		out, _, code := run(t, "analyze", "--baseline", b, "--format", c.format, incident)
		if code != ExitOK || strings.Contains(out, c.failing) || !strings.Contains(out, c.known) {
			t.Errorf("%s with every finding in the baseline: exit %d, want 0, no %q and %q shown:\n%s", c.format, code, c.failing, c.known, out)
		}
	}
}
