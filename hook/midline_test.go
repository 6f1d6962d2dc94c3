package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// midLine tells a transcript being written (empty, or its last line not
// ended) from one between lines: the hook reads the former once more.
func TestMidLine(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		content string
		want    bool
	}{
		"empty": {"", true}, "line not ended": {`{"a":1}` + "\n" + `{"b"`, true},
		"lines ended": {`{"a":1}` + "\n", false},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := midLine(p); got != c.want {
			t.Errorf("%s: midLine %v, want %v", name, got, c.want)
		}
	}
	if midLine(filepath.Join(dir, "missing.jsonl")) || midLine("") || midLine(dir) {
		t.Error("a missing path, no path or a folder is not a transcript being written")
	}
}
