package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/policy/builtin"
)

const incident = "../testdata/scenarios/06-overnight-resume-duplicate"

func runWith(t *testing.T, stdin string, rules string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut}
	if rules != builtin.Rules {
		env.rules = rules
	}
	code := Main(args, env)
	return out.String(), errOut.String(), code
}

func TestCLI_ExitCodes(t *testing.T) {
	rules := builtinRules(t)
	cases := []struct {
		name    string
		stdin   string
		args    []string
		code    int
		errText string
	}{
		{"analyze without input", "", []string{"analyze"}, ExitError, "no input"},
		{"nonexistent path", "", []string{"analyze", "no/such/dir"}, ExitError, "no/such/dir"},
		{"directory without transcripts", "", []string{"analyze", "../analyzer"}, ExitError, "no transcript files"},
		{"unknown format", "", []string{"analyze", "--format", "yaml", incident}, ExitError, "unknown format"},
		{"bad fail-on", "", []string{"analyze", "--fail-on", "severe", incident}, ExitError, "--fail-on"},
		{"bad color", "", []string{"analyze", "--color", "sometimes", incident}, ExitError, "--color"},
		{"unknown flag", "", []string{"analyze", "--nope", incident}, ExitError, "unknown flag"},
		{"incident fails at high", "", []string{"analyze", incident}, ExitFindings, ""},
		{"incident fails at critical", "", []string{"analyze", "--fail-on", "critical", incident}, ExitFindings, ""},
		{"fail-on none", "", []string{"analyze", "--fail-on", "none", incident}, ExitOK, ""},
		{"clean history passes", "", []string{"analyze", "../testdata/scenarios/04-prior-sent-verified"}, ExitOK, ""},
		{"empty stdin read no event: nothing judged", "", []string{"analyze", "-"}, ExitError, "no event was read"},
		{"check needs a task", "", []string{"check", incident}, ExitError, "--task"},
		{"check bad checkpoint", "", []string{"check", "--task", "t2", "--checkpoint", "click", incident}, ExitError, "--checkpoint"},
		{"check on empty stdin stops", "", []string{"check", "--task", "t1", "--key", "v1|dest=a/b|sha256=" + strings.Repeat("0", 64), "-"}, ExitFindings, ""},
		{"check both key and destination", "", []string{"check", "--task", "t9", "--key", "k", "--destination", "a/b", "--sha256", strings.Repeat("0", 64), incident}, ExitFindings, ""},
		{"key without content", "", []string{"key", "--destination", "slack/C1"}, ExitError, "no content"},
		{"key with bad destination", "", []string{"key", "--destination", "slack", "--sha256", strings.Repeat("0", 64)}, ExitError, "PROVIDER/ID"},
		{"huge number on stdin", `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"response","ok":true,"status":1e999999}` + "\n", []string{"analyze", "--fail-on", "none", "-"}, ExitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runWith(t, c.stdin, rules, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.errText) {
				t.Errorf("stderr %q does not say %q", stderr, c.errText)
			}
		})
	}
}

func TestCLI_PolicyErrorExits2AndCheckFailsClosed(t *testing.T) {
	for _, cmd := range [][]string{{"analyze", incident}, {"check", "--task", "t2", incident}} {
		_, stderr, code := runWith(t, "", "package effectlint\n\nbroken := {", cmd...)
		if code != ExitError || !strings.Contains(stderr, "rules.rego") {
			t.Errorf("%v: exit %d stderr %q, want 2 with the file named", cmd, code, stderr)
		}
	}
}

func TestCLI_KeyPrintsTheCanonicalKey(t *testing.T) {
	out, _, code := runWith(t, "", builtinRules(t), "key", "--destination", "Slack/C024BE91L", "--file", incident+"/report.pdf")
	want := "v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332\n"
	if code != 0 || out != want {
		t.Fatalf("key: %q (exit %d), want %q", out, code, want)
	}
}

func TestCLI_SameInputsInAnyOrderGiveTheSameBytes(t *testing.T) {
	rules := builtinRules(t)
	files := []string{incident + "/t1.jsonl", incident + "/t2.jsonl", incident + "/request.jsonl"}
	a, _, _ := runWith(t, "", rules, append([]string{"analyze", "--format", "json"}, files...)...)
	b, _, _ := runWith(t, "", rules, "analyze", "--format", "json", files[2], files[1], files[0], files[1])
	if a != b || a == "" {
		t.Fatalf("output depends on argument order")
	}
}

func TestCLI_Color(t *testing.T) {
	rules := builtinRules(t)
	never, _, _ := runWith(t, "", rules, "analyze", "--color", "never", incident)
	always, _, _ := runWith(t, "", rules, "analyze", "--color", "always", incident)
	if strings.Contains(never, "\x1b[") {
		t.Error("--color never printed escape sequences")
	}
	if !strings.Contains(always, "\x1b[") {
		t.Error("--color always printed no color")
	}
	t.Setenv("NO_COLOR", "1")
	auto, _, _ := runWith(t, "", rules, "analyze", incident)
	if strings.Contains(auto, "\x1b[") {
		t.Error("NO_COLOR was not honoured")
	}
}

func TestCLI_TranscriptTextCannotInjectTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	evil := `{"ts":"2026-11-30T07:00:00Z","task":"t\u001b[2J\u001b]0;pwned\u0007","type":"intent","destination":{"provider":"slack","id":"C\u001b[31m"},"content":{"sha256":"` + strings.Repeat("0", 64) + `"}}
{"ts":"2026-11-30T07:00:01Z","task":"t\u001b[2J\u001b]0;pwned\u0007","type":"send_fired"}
`
	if err := os.WriteFile(filepath.Join(dir, "evil.jsonl"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"analyze", "--color", "never", dir},
		{"check", "--color", "never", "--task", "t\x1b[2J\x1b]0;pwned\x07", dir},
	} {
		out, _, _ := runWith(t, "", builtinRules(t), args...)
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s output carries raw control characters:\n%q", args[0], out)
		}
		if !strings.Contains(out, `\x1b`) {
			t.Errorf("%s output does not show the escaped task id", args[0])
		}
	}
}

// TestCLI_DeepNestingIsNeitherACrashNorAPolicyError: a value nested 20000
// levels deep used to reach OPA, which refuses 10000 (exit 2); twenty
// million "[" overflowed gjson's recursion, a fatal error.
func TestCLI_DeepNestingIsNeitherACrashNorAPolicyError(t *testing.T) {
	t.Parallel() // no working folder or environment of its own (docs/testing.md)
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	deep := `{"ts":"2026-11-30T07:00:00Z","task":"t5","type":"ui_changed","x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n"
	_, stderr, code := runWith(t, deep, builtinRules(t), "analyze", "--fail-on", "none", "-")
	if code != ExitOK {
		t.Errorf("exit %d, want 0 (stderr %q)", code, stderr)
	}
	// An unreadable line and nothing else: reported, and, since no event
	// was read, exit 2 (SPEC §7) with that said, not a policy error.
	out, stderr, code := runWith(t, strings.Repeat("[", 20<<20)+"\n", builtinRules(t), "analyze", "-")
	if code != ExitError || !strings.Contains(stderr, "no event was read") || !strings.Contains(out, "UNREADABLE_HISTORY") {
		t.Errorf("exit %d, want 2 after reporting an unreadable line (stderr %q)", code, stderr)
	}
}
