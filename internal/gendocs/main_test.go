package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsPageIsCurrent fails when docs/commands.md is not what the
// command tree gives now: a flag, a command or a help text changed without
// the page. Regenerate with `go run ./internal/gendocs` and read the diff.
func TestCommandsPageIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(Page)))
	if err != nil {
		t.Fatal(err)
	}
	want := Generate()
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s is stale (run go run ./internal/gendocs): first difference at line %d:\n  page:      %q\n  generated: %q", Page, i+1, gl, wl)
		}
	}
	t.Fatalf("%s is stale (run go run ./internal/gendocs)", Page)
}

// TestGenerateCoversEveryCommand: every available command of the tree has
// its section, and the page names no path of this machine.
func TestGenerateCoversEveryCommand(t *testing.T) {
	page := string(Generate())
	for _, name := range []string{"analyze", "check", "facts", "key", "profile", "verify", "test", "explain",
		"claim", "cross", "settle", "authorize", "ledger where", "ledger export", "hook claude-code", "mcp"} {
		if !strings.Contains(page, "\n## effectlint "+name+"\n") {
			t.Errorf("no section for effectlint %s", name)
		}
	}
	if wd, _ := os.Getwd(); strings.Contains(page, filepath.Dir(filepath.Dir(wd))) {
		t.Errorf("the page names the checkout's path %s", filepath.Dir(filepath.Dir(wd)))
	}
	if home, _ := os.UserHomeDir(); home != "" && home != "/" && strings.Contains(page, home) {
		t.Errorf("the page names the home directory %s", home)
	}
}
