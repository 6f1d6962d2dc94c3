package cmd

import (
	"strings"
	"testing"
)

// analyze --show: by default a settled key scope with no finding is
// counted, not drawn; --show all draws it; anything else is a usage error.
// The JSON report carries every scope whatever --show says.
func TestAnalyze_ShowFindingsByDefaultAllOnRequest(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	t.Chdir("../testdata/scenarios/04-prior-sent-verified")
	def, _, code := run(t, "analyze", "--color", "never", ".")
	if code != ExitOK || strings.Contains(def, "K1 ● ") || !strings.Contains(def, "not drawn: 1 settled key scope(s) with no finding (1 sent_verified); --show all draws them") {
		t.Errorf("default (exit %d) draws the settled scope or does not say so:\n%s", code, def)
	}
	all, _, code := run(t, "analyze", "--color", "never", "--show", "all", ".")
	if code != ExitOK || !strings.Contains(all, "K1 ● sent_verified") || strings.Contains(all, "not drawn") {
		t.Errorf("--show all (exit %d) does not draw the scope:\n%s", code, all)
	}
	j1, _, _ := run(t, "analyze", "--format", "json", ".")
	j2, _, _ := run(t, "analyze", "--format", "json", "--show", "all", ".")
	if j1 != j2 || !strings.Contains(j1, `"state": "sent_verified"`) {
		t.Errorf("--show changed the JSON report")
	}
	_, stderr, code := run(t, "analyze", "--show", "some", ".")
	if code != ExitError || !strings.Contains(stderr, "--show must be findings or all") {
		t.Errorf("--show some: exit %d, stderr %q", code, stderr)
	}
	// Standard error is no terminal here: no progress line.
	if _, stderr, _ := run(t, "analyze", "--color", "never", "."); strings.Contains(stderr, "\x1b[K") || strings.Contains(stderr, "file(s)") {
		t.Errorf("progress drawn on a pipe: %q", stderr)
	}
}
