// Package model holds the spin model of the key ledger's protocol
// (ledger.pml, README.md); this test runs scripts/spin.sh over it.
package model

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// spinPath is the spin binary: EFFECTLINT_SPIN, else spin on PATH. Without
// one the test skips, or fails when EFFECTLINT_REQUIRE_SPIN=1 (CI).
func spinPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EFFECTLINT_SPIN"); p != "" {
		abs, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("EFFECTLINT_SPIN=%s: %v", p, err)
		}
		return abs
	}
	p, err := exec.LookPath("spin")
	if err == nil {
		return p
	}
	if os.Getenv("EFFECTLINT_REQUIRE_SPIN") == "1" {
		t.Fatalf("EFFECTLINT_REQUIRE_SPIN=1 but there is no spin on PATH and EFFECTLINT_SPIN is unset: apt-get install spin")
	}
	t.Skip("no spin on PATH (EFFECTLINT_SPIN names another): apt-get install spin")
	return ""
}

// The runs scripts/spin.sh must report, each with what it must have found:
// the model verifies with no error; each broken variant fails on the named
// property with a counterexample.
var wantRuns = []struct{ name, found string }{
	{"model", "errors 0,"},
	{"model-scope-a", "errors 0,"},
	{"model-4-workers", "errors 0,"},
	{"broken-expiry", "P2: consumed scope freed or claimed after "},
	{"broken-expiry-effect", "P1: effect performed twice after "},
	{"broken-fence", "P3: stale token wrote after "},
	{"broken-fence-effect", "P1: effect performed twice after "},
}

var (
	errorsField = regexp.MustCompile(`errors (\d+)[ ,]`)
	statesField = regexp.MustCompile(`, (\d+) states stored,`)
)

func TestSpinModel(t *testing.T) {
	if testing.Short() {
		t.Skip("model checking takes about 10 s; runs without -short (as in CI)")
	}
	spin := spinPath(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("spin is here but bash is not: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "spin.sh"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, script)
	// pan is built under TMPDIR, which the test removes; never in the repo
	cmd.Env = append(os.Environ(), "EFFECTLINT_SPIN="+spin, "TMPDIR="+t.TempDir(), "SPIN_KEEP=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("scripts/spin.sh (%s):\n%s", time.Since(start).Round(time.Second), out)
	if err != nil {
		t.Fatalf("scripts/spin.sh: %v", err)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "ok   "); ok {
			if name, summary, ok := strings.Cut(rest, ": "); ok {
				lines[name] = summary
			}
		}
	}
	for _, w := range wantRuns {
		got, ok := lines[w.name]
		if !ok {
			t.Errorf("no ok line for run %s", w.name)
			continue
		}
		if !strings.Contains(got, w.found) {
			t.Errorf("run %s: want %q in %q", w.name, w.found, got)
		}
		m := errorsField.FindStringSubmatch(got)
		s := statesField.FindStringSubmatch(got)
		if m == nil || s == nil {
			t.Errorf("run %s: no errors or states figure in %q", w.name, got)
			continue
		}
		broken := strings.HasPrefix(w.name, "broken-")
		if broken == (m[1] == "0") {
			t.Errorf("run %s: errors %s", w.name, m[1])
		}
		if !broken && len(s[1]) < 5 {
			// the correct model's search is exhaustive over its bounds:
			// far fewer states would mean the workers no longer run
			t.Errorf("run %s: only %s states", w.name, s[1])
		}
	}
	if len(lines) != len(wantRuns) {
		t.Errorf("scripts/spin.sh reported %d ok runs, want %d", len(lines), len(wantRuns))
	}
}
