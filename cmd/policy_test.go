package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/policy"
)

// Tests of users' rules on the command line: --policy, --data, --timeout
// on analyze and check, and verify.

const (
	examplePolicies = "../examples/policies"
	exampleData     = "../examples/data"
)

// runAll runs effectlint in-process with the built-in rules and tests, as
// main.go does.
func runAll(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

// writePolicy writes files (name, source, ...) into a new directory.
func writePolicy(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAnalyze_UserPolicyFindingShowsUpInJSON(t *testing.T) {
	out, stderr, code := runAll(t, "analyze", "--format", "json", "--policy", examplePolicies, "--data", exampleData, incident)
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	var rep struct {
		Findings []struct {
			Rule     string  `json:"rule"`
			Severity string  `json:"severity"`
			Key      *string `json:"key"`
			Scope    *string `json:"scope"`
			Task     *string `json:"task"`
			Message  string  `json:"message"`
			Evidence []struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"evidence"`
		} `json:"findings"`
		Summary struct {
			Findings map[string]int `json:"findings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var found int
	for _, f := range rep.Findings {
		if f.Rule != "FINANCE_UNCONFIRMED" {
			continue
		}
		found++
		// t1 fired send and its readback was "unavailable" (t1.jsonl:7).
		if f.Severity != "high" || f.Task == nil || *f.Task != "t1" || f.Key == nil || f.Scope == nil || *f.Scope != "original" ||
			len(f.Evidence) != 1 || !strings.HasSuffix(f.Evidence[0].File, "t1.jsonl") || f.Evidence[0].Line != 7 ||
			!strings.Contains(f.Message, "C024BE91L") {
			t.Errorf("user finding = %+v", f)
		}
	}
	if found != 1 || len(rep.Findings) != 6 || rep.Summary.Findings["high"] != 4 {
		t.Errorf("got %d user findings of %d, summary %v; want 1 of 6 and 4 high", found, len(rep.Findings), rep.Summary.Findings)
	}
}

func TestAnalyze_UserFindingCanFailTheRun(t *testing.T) {
	// 04: t1 sent and read back confirmed; a finding rule of severity
	// critical that fires on any send turns the clean run into a failure.
	dir := writePolicy(t, "any.rego", `package effectlint.custom.any

# METADATA
# title: Any send
# custom:
#   rule: ANY_SEND
#   severity: critical
finding contains {"rule": "ANY_SEND", "message": "a send", "evidence": [x.at]} if {
	some s in input.scopes
	some x in s.facts
	x.type == "send_fired"
}
`)
	clean := "../testdata/scenarios/04-prior-sent-verified"
	if _, stderr, code := runAll(t, "analyze", clean); code != ExitOK {
		t.Fatalf("without the policy: exit %d (%s)", code, stderr)
	}
	out, stderr, code := runAll(t, "analyze", "--color", "never", "--policy", dir, clean)
	if code != ExitFindings || !strings.Contains(out, "CRITICAL ANY_SEND") {
		t.Errorf("with the policy: exit %d, want 1 with ANY_SEND in\n%s%s", code, out, stderr)
	}
}

func TestCheck_UserGateRuleStops(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	prior := "../testdata/scenarios/03-prior-not-sent"
	args := []string{"check", "--format", "json", "--task", "t9", "--checkpoint", "send", "--destination", "slack/C0FROZEN1", "--sha256", sha}
	out, stderr, code := runAll(t, append(args, prior)...)
	if code != ExitOK || !strings.Contains(out, `"decision": "allow"`) {
		t.Fatalf("without the policy: exit %d, want allow\n%s%s", code, out, stderr)
	}
	out, stderr, code = runAll(t, append(args, "--policy", examplePolicies, "--data", exampleData, prior)...)
	var got struct {
		Decision string `json:"decision"`
		Reasons  []struct {
			Rule, Message string
		} `json:"reasons"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON (exit %d, %s): %v\n%s", code, stderr, err, out)
	}
	if code != ExitFindings || got.Decision != "stop" || len(got.Reasons) != 1 || got.Reasons[0].Rule != "FINANCE_FREEZE" ||
		!strings.Contains(got.Reasons[0].Message, "quarter-end") {
		t.Errorf("with the policy: exit %d, %+v; want stop for FINANCE_FREEZE", code, got)
	}
}

func TestPolicyFlags_Errors(t *testing.T) {
	sandboxed := writePolicy(t, "clock.rego", "package effectlint.custom.clock\n\nfinding contains {\"rule\": \"LATE\", \"severity\": \"low\", \"message\": \"m\"} if {\n\ttime.now_ns() > 0\n}\n")
	broken := writePolicy(t, "broken.rego", "package effectlint.custom.broken\n\nfinding contains f if {\n\tf := {\"rule\": \"X\",\n}\n")
	outside := writePolicy(t, "finance.rego", "package finance\n\nfinding contains 1 if true\n")
	onlyStop := writePolicy(t, "stop.rego", "package effectlint.custom.s\n\nstop contains {\"rule\": \"S\", \"message\": \"m\"} if true\n")
	onlyFinding := writePolicy(t, "f.rego", "package effectlint.custom.f\n\nfinding contains {\"rule\": \"F\", \"severity\": \"low\", \"message\": \"m\"} if false\n")
	empty := writePolicy(t, "notes.txt", "no rego here")
	unsafe := writePolicy(t, "unsafe.rego", "package effectlint.custom.u\n\nfinding contains f if {\n\tf.rule == \"X\"\n}\n")
	conflict := writePolicy(t, "conflict.rego", "package effectlint.custom.c\n\nlevel := \"high\"\n\nlevel := \"low\" if true\n\nfinding contains {\"rule\": \"C\", \"severity\": level, \"message\": \"m\"} if true\n")
	slow := writePolicy(t, "slow.rego", "package effectlint.custom.slow\n\nfinding contains {\"rule\": \"SLOW\", \"severity\": \"low\", \"message\": \"m\"} if never\n\nstop contains {\"rule\": \"SLOW\", \"message\": \"m\"} if never\n\nnever if {\n\tsome i in numbers.range(1, 5000)\n\tsome j in numbers.range(1, 5000)\n\ti * j == -1\n}\n")
	check := []string{"check", "--task", "t2"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"sandboxed builtin", []string{"analyze", "--policy", sandboxed, incident},
			[]string{"clock.rego:4:2: rego_type_error: builtin time.now_ns is not allowed"}},
		{"sandboxed builtin in check", append(check, "--policy", sandboxed, incident),
			[]string{"clock.rego:4:2", "time.now_ns is not allowed"}},
		{"syntax error", []string{"analyze", "--policy", broken, incident},
			[]string{"broken.rego:6:1: rego_parse_error"}},
		{"unsafe var", []string{"analyze", "--policy", unsafe, incident},
			[]string{"unsafe.rego:4:2: rego_unsafe_var_error: var f is unsafe"}},
		{"conflicting rules", []string{"analyze", "--policy", conflict, incident},
			[]string{"conflict.rego:5:1: eval_conflict_error", "conflicting values"}},
		{"package outside effectlint.custom", []string{"analyze", "--policy", outside, incident},
			[]string{"finance.rego:1:1", "user rules live in packages under effectlint.custom"}},
		{"path with no rego", []string{"analyze", "--policy", empty, incident},
			[]string{"contributes no rule"}},
		{"missing path", []string{"analyze", "--policy", "no/such/dir", incident},
			[]string{"no/such/dir"}},
		{"analyze with only stop rules", []string{"analyze", "--policy", onlyStop, incident},
			[]string{"defines a `finding` rule"}},
		{"check with only finding rules", append(check, "--policy", onlyFinding, incident),
			[]string{"defines a `stop` rule"}},
		{"missing data", []string{"analyze", "--policy", onlyFinding, "--data", "no/such.yaml", incident},
			[]string{"no/such.yaml"}},
		{"timeout", []string{"analyze", "--timeout", "50ms", "--policy", slow, incident},
			[]string{"did not finish within --timeout 50ms"}},
		{"timeout in check", append(check, "--timeout", "50ms", "--policy", slow, incident),
			[]string{"did not finish within --timeout 50ms"}},
		{"negative timeout", []string{"analyze", "--timeout", "-1s", incident},
			[]string{"--timeout must not be negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runAll(t, c.args...)
			if code != ExitError {
				t.Errorf("exit %d, want 2 (stdout %q)", code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if c.args[0] == "check" && strings.Contains(out, "ALLOW") {
				t.Errorf("check printed an allow on a policy error:\n%s", out)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	t.Parallel() // no working folder or environment of its own (docs/testing.md)
	failing := writePolicy(t, "x.rego", "package effectlint.custom.x\n\nfinding contains {\"rule\": \"X\", \"severity\": \"low\", \"message\": \"m\"} if input.flag\n",
		"x_test.rego", "package effectlint.custom.x_test\n\nimport data.effectlint.custom.x\n\ntest_flag_gives_one if {\n\tcount(x.finding) == 1 with input as {\"flag\": true}\n}\n\ntest_no_flag_gives_one if {\n\tprint(\"no flag\")\n\tfs := x.finding with input as {}\n\tcount(fs) == 1\n}\n\ntest_builtin_error if {\n\tto_number(\"ten\") == 10\n}\n")
	noTests := writePolicy(t, "x.rego", "package effectlint.custom.x\n\nfinding contains {\"rule\": \"X\", \"severity\": \"low\", \"message\": \"m\"} if input.flag\n")
	brokenTest := writePolicy(t, "x_test.rego", "package effectlint.custom.x_test\n\ntest_x if {\n")

	// The built-in tests are run once here, alone; with the example
	// policies and with the failing user tests, --run picks the user tests
	// (and, with the examples, one built-in test: both run in one call).
	// Each run of every built-in test costs seconds.
	t.Run("built-in only", func(t *testing.T) {
		out, stderr, code := runAll(t, "verify")
		if code != ExitOK || !strings.HasSuffix(out, " passed, 0 failed\n") || !strings.Contains(out, "PASS  rules_test.rego:") {
			t.Errorf("exit %d, stderr %q, tail %q", code, stderr, lastLines(out))
		}
		if n := passedCount(t, out); n < 100 {
			t.Errorf("%d built-in tests passed: they did not all run", n)
		}
	})
	t.Run("passing user tests", func(t *testing.T) {
		const oneBuiltin = "test_state_sent_verified_when_readback_confirmed"
		out, _, code := runAll(t, "verify", "--run", `custom\.|`+oneBuiltin+"$", examplePolicies)
		if code != ExitOK || !strings.Contains(out, "PASS  ../examples/policies/finance_test.rego:") ||
			!strings.Contains(out, "PASS  rules_test.rego:") || !strings.Contains(out, "data.effectlint."+oneBuiltin+"\n") {
			t.Errorf("exit %d, want the examples' tests and %s passed\n%s", code, oneBuiltin, lastLines(out))
		}
		if n, users := passedCount(t, out), strings.Count(out, "data.effectlint.custom."); n != users+1 || users < 2 {
			t.Errorf("%d passed, %d of them the examples': want the examples' tests and one built-in", n, users)
		}
	})
	t.Run("failing user tests", func(t *testing.T) {
		out, _, code := runAll(t, "verify", "--run", `^data\.effectlint\.custom\.`, failing)
		if code != ExitFindings {
			t.Errorf("exit %d, want 1", code)
		}
		for _, want := range []string{
			"PASS  " + failing + "/x_test.rego:5  data.effectlint.custom.x_test.test_flag_gives_one",
			"FAIL  " + failing + "/x_test.rego:9  data.effectlint.custom.x_test.test_no_flag_gives_one",
			"failed at line 12: count(fs) == 1",
			"no flag",
			"ERROR " + failing + "/x_test.rego:15  data.effectlint.custom.x_test.test_builtin_error",
			"x_test.rego:16:2: eval_builtin_error: to_number",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output does not say %q:\n%s", want, out)
			}
		}
		if !strings.HasSuffix(out, "1 passed, 2 failed\n") {
			t.Errorf("closing line: %q", lastLines(out))
		}
	})
	t.Run("no test ran", func(t *testing.T) {
		out, stderr, code := runAll(t, "verify", "--run", "no_such_test")
		if code != ExitError || !strings.HasSuffix(out, "0 passed, 0 failed\n") || !strings.Contains(stderr, "no test ran") {
			t.Errorf("exit %d, stderr %q, tail %q", code, stderr, lastLines(out))
		}
	})
	t.Run("policies without tests", func(t *testing.T) {
		// One built-in test runs (--run): the user's policies ran none.
		_, stderr, code := runAll(t, "verify", "--run", "test_state_sent_verified_when_readback_confirmed$", noTests)
		if code != ExitError || !strings.Contains(stderr, "no test of") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("test file that does not parse", func(t *testing.T) {
		_, stderr, code := runAll(t, "verify", brokenTest)
		if code != ExitError || !strings.Contains(stderr, "x_test.rego:4:") || !strings.Contains(stderr, "rego_parse_error") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("filter", func(t *testing.T) {
		out, _, code := runAll(t, "verify", "--run", "test_flag_gives_one", failing)
		if code != ExitOK || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
			t.Errorf("exit %d, %q", code, out)
		}
	})
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, "\n")
}

func passedCount(t *testing.T, out string) int {
	t.Helper()
	var passed, failed int
	last := lastLines(out)
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if _, err := fmt.Sscanf(last, "%d passed, %d failed", &passed, &failed); err != nil {
		t.Fatalf("closing line %q: %v", last, err)
	}
	return passed
}

func TestAnalyze_UserRuleMetadataReachesTheReport(t *testing.T) {
	// SARIF and other renderers describe rules from Report.Rules (the
	// engine's Rules()): a user rule's METADATA must be there.
	p := policyFlags{policies: []string{examplePolicies}, data: []string{exampleData}, timeout: DefaultTimeout}
	g, err := newGate(Env{}, &commonFlags{}, &p)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := g.Analyze(t.Context(), gate.AnalyzeRequest{Paths: []string{incident}})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]policy.RuleInfo{}
	for _, r := range rep.Rules {
		byID[r.ID] = r
	}
	for _, f := range rep.Findings {
		if _, ok := byID[f.Rule]; !ok {
			t.Errorf("finding %s has no rule description", f.Rule)
		}
	}
	r := byID["FINANCE_UNCONFIRMED"]
	if r.Title != "Finance delivery without readback" || r.Severity != "high" || r.Description == "" ||
		r.Package != "effectlint.custom.finance" || !strings.HasPrefix(r.Location, "../examples/policies/finance.rego:") {
		t.Errorf("FINANCE_UNCONFIRMED = %+v", r)
	}
	if byID["EXTERNAL_TWICE_A_DAY"].Severity != "medium" || byID["DUPLICATE_DELIVERY"].Package != "effectlint" {
		t.Errorf("rules: %+v", rep.Rules)
	}
}
