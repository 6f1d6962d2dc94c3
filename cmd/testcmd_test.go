package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleCases = "../examples/cases"

// copyDir copies a case folder (flat) into a new temporary directory and
// returns the copy's path.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestTest_ExampleCasesMatch(t *testing.T) {
	out, stderr, code := runAll(t, "test", "--policy", examplePolicies, "--data", exampleData, exampleCases)
	want := "PASS  ../examples/cases/incident\nPASS  ../examples/cases/partner-mail\n2 passed, 0 failed\n"
	if code != ExitOK || out != want {
		t.Errorf("exit %d, stderr %q, output:\n%s\nwant:\n%s", code, stderr, out, want)
	}
}

func TestTest_MismatchWithoutTheUserPolicies(t *testing.T) {
	// The example expectations include the findings of the example policies:
	// without them, each case lacks its user finding.
	out, _, code := runAll(t, "test", exampleCases)
	if code != ExitFindings {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"FAIL  ../examples/cases/incident  (1 difference(s) from ../examples/cases/incident/expected.yaml)\n" +
			"  finding FINANCE_UNCONFIRMED, task t1\n    expected  1 finding\n    actual    0 findings\n",
		"  finding EXTERNAL_TWICE_A_DAY, task m2\n    expected  1 finding\n    actual    0 findings\n",
		"0 passed, 2 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTest_MismatchNamesKeyTaskAndCheck_ThenUpdateRewrites(t *testing.T) {
	dir := copyDir(t, exampleCases+"/incident")
	exp := filepath.Join(dir, "expected.yaml")
	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(
		"original: sent_verified", "original: not_sent",
		"UNCHECKED_CROSSING: [t2, t2]", "UNCHECKED_CROSSING: [t2]",
		"reasons: [KEY_CONSUMED]\n", "reasons: [ELECTED_EXECUTOR]\n",
	).Replace(string(b))
	if edited == string(b) {
		t.Fatal("the edit changed nothing")
	}
	edited = strings.Replace(edited, "decision: stop", "decision: allow", 1)
	if err := os.WriteFile(exp, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"test", "--policy", examplePolicies, "--data", exampleData, dir}
	out, _, code := runAll(t, args...)
	key := "v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"
	for _, want := range []string{
		"FAIL  " + filepath.ToSlash(dir) + "  (3 difference(s) from ",
		"  state of key " + key + ", scope original\n    expected  not_sent\n    actual    sent_verified\n",
		"  finding UNCHECKED_CROSSING, task t2\n    expected  1 finding\n    actual    2 findings\n",
		"  check --task t2 --checkpoint resume --as-of 2026-11-30T08:09:59Z\n    expected  allow ELECTED_EXECUTOR\n    actual    stop KEY_CONSUMED\n",
		"0 passed, 1 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != ExitFindings {
		t.Errorf("exit %d, want 1", code)
	}

	out, _, code = runAll(t, append([]string{"test", "--update"}, args[1:]...)...)
	if code != ExitOK || !strings.Contains(out, "UPDATED "+filepath.ToSlash(dir)) || !strings.HasSuffix(out, "1 updated\n1 passed, 0 failed\n") {
		t.Errorf("--update: exit %d\n%s", code, out)
	}
	after, _ := os.ReadFile(exp)
	for _, want := range []string{"original: sent_verified", "UNCHECKED_CROSSING: [t2, t2]", "as_of: \"2026-11-30T08:09:59Z\"", "reasons: [KEY_CONSUMED]\n"} {
		if !strings.Contains(string(after), want) {
			t.Errorf("updated expected.yaml lacks %q:\n%s", want, after)
		}
	}
	out, _, code = runAll(t, args...)
	if code != ExitOK || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
		t.Errorf("after --update: exit %d\n%s", code, out)
	}
}

func TestTest_UpdateRecordsANewCase(t *testing.T) {
	root := t.TempDir()
	src := copyDir(t, "../testdata/scenarios/02-simultaneous-tasks")
	if err := os.Rename(src, filepath.Join(root, "race")); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runAll(t, "test", root); code != ExitError {
		t.Errorf("a folder without expectations is a case only for --update: exit %d, want 2", code)
	}
	out, _, code := runAll(t, "test", "--update", root)
	if code != ExitOK || !strings.Contains(out, "(recorded ") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(root, "race", "expected.yaml"))
	if err != nil || !strings.Contains(string(b), "original: open") {
		t.Errorf("recorded expectations: %v\n%s", err, b)
	}
	if out, _, code := runAll(t, "test", root); code != ExitOK || !strings.Contains(out, "PASS  ") {
		t.Errorf("the recorded case does not pass: exit %d\n%s", code, out)
	}
}

func TestTest_NoCase(t *testing.T) {
	out, stderr, code := runAll(t, "test", t.TempDir())
	if code != ExitError || out != "0 passed, 0 failed\n" || !strings.Contains(stderr, "no case in") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if _, _, code := runAll(t, "test", "no/such/dir"); code != ExitError {
		t.Errorf("missing dir: exit %d, want 2", code)
	}
}

func TestTest_ExpectedFileIsNotPartOfTheHistory(t *testing.T) {
	// A user rule that reports every skipped file sees report.pdf (an
	// attachment of the case) but not expected.yaml (the harness's).
	dir := copyDir(t, exampleCases+"/incident")
	pol := writePolicy(t, "skipped.rego", "package effectlint.custom.skipped\n\nfinding contains {\"rule\": \"SKIPPED\", \"severity\": \"info\", \"message\": p} if some p in input.skipped\n")
	if _, _, code := runAll(t, "test", "--update", "--policy", pol, dir); code != ExitOK {
		t.Fatalf("--update: exit %d", code)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "expected.yaml"))
	if !strings.Contains(string(b), "SKIPPED: [\"-\"]") && !strings.Contains(string(b), "SKIPPED: ['-']") {
		t.Errorf("want exactly one SKIPPED finding (report.pdf):\n%s", b)
	}
}

func TestTest_BrokenExpectationsAreErrors(t *testing.T) {
	dir := copyDir(t, exampleCases+"/incident")
	if err := os.WriteFile(filepath.Join(dir, "expected.yaml"), []byte("finding:\n  X: [t1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runAll(t, "test", dir)
	if code != ExitFindings || !strings.Contains(out, "ERROR ") || !strings.Contains(out, "field finding not found") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
