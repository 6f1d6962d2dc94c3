// Package sharedtest finds, for tests, the folder beside the repository
// that holds the product contract and the corpus of real transcripts
// written by other projects (../shared). It is never part of the
// repository: outside CI a test that needs it skips, saying so; in CI
// (EFFECTLINT_REQUIRE_SHARED set, as .ci/run does) it fails instead, so
// nothing there skips silently.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv names the variable that turns a missing folder into a failure.
const RequireEnv = "EFFECTLINT_REQUIRE_SHARED"

// Path returns ../shared/rel beside the module root, or skips (fails
// under RequireEnv) the test when it is not there.
func Path(t testing.TB, rel string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("sharedtest: %v", err)
	}
	p := filepath.Join(root, "..", "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("%s is required here (%s is set) but missing: %v", p, RequireEnv, err)
		}
		t.Skipf("%s is not here (%v): skipped; it is beside the repository in CI", p, err)
	}
	return p
}

// moduleRoot is the nearest folder above the working directory with a
// go.mod: tests run in their package's folder.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
