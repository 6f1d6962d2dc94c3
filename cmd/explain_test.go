package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

const incidentKey = "v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"

// ruleLineRef is a citation of a line of the built-in rules.
var ruleLineRef = regexp.MustCompile(`rules\.rego:\d+`)

// ruleLinesNormalized is a report with every rules.rego:NNN as rules.rego:N,
// for goldens: a rule that moves (a helper placed beside its rule) must
// not change every golden that cites it. Which line is cited is tested
// apart (ruleLine).
func ruleLinesNormalized(out string) []byte {
	return []byte(ruleLineRef.ReplaceAllString(out, "rules.rego:N"))
}

// ruleLine finds the line of rules.rego that starts with prefix, so that
// the tests check the location explain names without fixing line numbers.
func ruleLine(t *testing.T, prefix string) string {
	t.Helper()
	for i, l := range strings.Split(builtinRules(t), "\n") {
		if strings.HasPrefix(l, prefix) {
			return fmt.Sprintf("rules.rego:%d", i+1)
		}
	}
	t.Fatalf("no line of rules.rego starts with %q", prefix)
	return ""
}

// explainIncident runs explain inside the incident's folder, so that paths
// are short and the same on every machine.
func explainIncident(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	dir, err := filepath.Abs(incident)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return runAll(t, append(append([]string{"explain"}, args...), ".")...)
}

func TestExplain_IncidentKey(t *testing.T) {
	out, stderr, code := explainIncident(t, "--key", incidentKey)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"scope original: sent_verified\n",
		// The branch of state_of that decided, and the fact that made it hold.
		ruleLine(t, `state_of(facts, tasks, within) := "sent_verified"`) + `  state_of(facts, tasks, within) := "sent_verified" if { some f in facts; confirmation(f) }` + "\n" +
			"      t2.jsonl:8  t2 readback confirmed",
		"CRITICAL DUPLICATE_DELIVERY task t2  (Duplicate delivery, " + ruleLine(t, "duplicate_delivery contains f if {") + ")",
		"      t1.jsonl:7  t1 send_fired",
		"      t2.jsonl:7  t2 send_fired",
		"HIGH NO_RECHECK_AFTER_INTERRUPTION task t2",
		"      t2.jsonl:3  t2 interrupted (overnight)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	goldie.New(t, goldie.WithFixtureDir(goldenDir(t)), goldie.WithNameSuffix(".golden")).Assert(t, "explain-key.txt", ruleLinesNormalized(out))
}

func TestExplain_IncidentGateTheMorningAfter(t *testing.T) {
	// t2 asks before resuming, the morning after: why stop?
	out, stderr, code := explainIncident(t, "--task", "t2", "--checkpoint", "resume", "--as-of", "2026-11-30T08:09:59Z")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"STOP task t2 at resume\n",
		"  KEY_CONSUMED  the scope is send_status_unknown by the evidence of task(s) t1\n" +
			"    rule  " + ruleLine(t, `stop contains reason(rego.metadata.rule(), "KEY_CONSUMED", msg, consumed_by)`) + `  Key consumed: stop contains reason(rego.metadata.rule(), "KEY_CONSUMED", msg, consumed_by)` + "\n",
		"why the other tasks' evidence is send_status_unknown\n",
		// t1 crossed, then its segment ended: the send may have happened.
		ruleLine(t, "status_unknown(facts, _, _) if {") + "  status_unknown(facts, _, _) if { some f in facts; crossing(f); f.segment_ended }\n" +
			"    t1.jsonl:5  t1 picker_accepted (segment ended)\n" +
			"    t1.jsonl:7  t1 send_fired (segment ended)\n" +
			"    t1.jsonl:9  t1 readback unavailable (segment ended)\n",
		"status_unknown(facts, _, _) if { some f in facts; label_claims_sent(f) }\n" +
			"    t1.jsonl:10  t1 status send_status_unknown (segment ended)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ALREADY_CROSSED") {
		t.Errorf("before resuming, t2 had not crossed:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n > 25 {
		t.Errorf("%d lines: an explanation should be short enough to read", n)
	}
	goldie.New(t, goldie.WithFixtureDir(goldenDir(t)), goldie.WithNameSuffix(".golden")).Assert(t, "explain-gate.txt", ruleLinesNormalized(out))
}

func TestExplain_AllowNamesTheAllowingBranch(t *testing.T) {
	out, _, code := runAll(t, "explain", "--task", "w-a", "--checkpoint", "send", "../testdata/scenarios/02-simultaneous-tasks")
	want := "  ELECTED_EXECUTOR  task w-a is the earliest running task of the scope\n    rule  " +
		ruleLine(t, `} else := "ELECTED_EXECUTOR" if {`) + `  else := "ELECTED_EXECUTOR" if { count(running_others) > 0 }`
	if code != ExitOK || !strings.HasPrefix(out, "ALLOW task w-a at send\n") || !strings.Contains(out, want) {
		t.Errorf("exit %d, want ALLOW and %q in:\n%s", code, want, out)
	}
}

func TestExplain_UserStopNamesItsRule(t *testing.T) {
	out, stderr, code := runAll(t, "explain", "--task", "t9", "--checkpoint", "send", "--destination", "slack/C0FROZEN1", "--sha256", strings.Repeat("ab", 32),
		"--policy", examplePolicies, "--data", exampleData, "../testdata/scenarios/03-prior-not-sent")
	if code != ExitOK || !strings.Contains(out, "FINANCE_FREEZE  finance channel C0FROZEN1 is frozen") ||
		!strings.Contains(out, "rule  ../examples/policies/finance.rego:") {
		t.Errorf("exit %d (%s):\n%s", code, stderr, out)
	}
}

func TestExplain_UsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", incident}, "either --key K or --task T"},
		{[]string{"explain", "--key", incidentKey, "--task", "t2", incident}, "either --key K or --task T"},
		{[]string{"explain", "--key", "nonsense", incident}, "--key"},
		{[]string{"explain", "--key", strings.Replace(incidentKey, "C024BE91L", "C0OTHER", 1), incident}, "no key scope"},
		{[]string{"explain", "--key", incidentKey, "--scope", "auth-9", incident}, `has no scope "auth-9"`},
		{[]string{"explain", "--key", incidentKey, "--checkpoint", "send", incident}, "--checkpoint goes with --task"},
		{[]string{"explain", "--task", "t2", "--checkpoint", "click", incident}, "--checkpoint must be"},
		{[]string{"explain", "--task", "t2"}, "no input"},
	} {
		_, stderr, code := runAll(t, c.args...)
		if code != ExitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args[1:], code, stderr, c.want)
		}
	}
}

func goldenDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Tests may run inside a scenario folder (t.Chdir); the goldens live
	// in testdata/golden/explain of the repository.
	for dir := wd; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "golden", "explain")
		}
	}
	t.Fatal("go.mod not found")
	return ""
}

func TestExplain_ReasonsFromTwoDefinitionsOfOneIdKeepTheirRules(t *testing.T) {
	// 07: HISTORY_UNREADABLE comes from the definition for unattributed
	// problems and from the one for incomplete tasks; each reason names its
	// own definition, and the unreadable line is described.
	out, _, code := runAll(t, "explain", "--task", "t2", "../testdata/scenarios/07-unreadable-history")
	if code != ExitOK || !strings.Contains(out, "unreadable: truncated last line") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	ruleAfter := func(reason string) string {
		i := strings.Index(out, "  HISTORY_UNREADABLE  "+reason)
		if i < 0 {
			t.Fatalf("no reason %q in\n%s", reason, out)
		}
		rest := out[i:]
		j := strings.Index(rest, "    rule  ")
		if j < 0 {
			t.Fatalf("reason %q names no rule", reason)
		}
		return strings.SplitN(rest[j:], "\n", 2)[0]
	}
	if r := ruleAfter("1 unreadable part(s)"); !strings.Contains(r, "count(input.unattributed_problems) > 0") {
		t.Errorf("unattributed problems: %s", r)
	}
	if r := ruleAfter("the history of task t1 is incomplete"); !strings.Contains(r, "some t in incomplete_tasks; not t.complete") {
		t.Errorf("incomplete task: %s", r)
	}
}
