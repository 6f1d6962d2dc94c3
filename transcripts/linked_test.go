package transcripts

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoPolicyEngine: this package's test binary links what reading
// needs, not the policy engine, the ledger's drivers or the terminal
// styles. go test -fuzz instruments every package linked into the binary
// for coverage, and each execution costs in proportion to all those
// counters: while two tests here judged histories through the gate (450
// packages linked instead of 168), FuzzScanJSON made about 1,650
// executions a second instead of about 7,000, and every reader's target
// slowed alike. Tests that go through the gate live in gate/ or cmd/.
func TestLinksNoPolicyEngine(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the go command is not on PATH: %v", err)
		}
		t.Skipf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, banned := range []string{"github.com/open-policy-agent/opa/", "modernc.org/sqlite", "github.com/jackc/pgx/", "github.com/charmbracelet/lipgloss", "github.com/effectlint/effectlint/gate"} {
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, banned) {
				t.Errorf("the test binary links %s: keep tests that need it out of package transcripts (the fuzz targets slow down with every package linked)", p)
				break
			}
		}
	}
}
