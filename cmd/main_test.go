package cmd

import (
	"os"
	"testing"
)

// asCLI makes the test binary act as effectlint itself, so tests can run
// whole processes (64 claims racing, a worker killed with SIGKILL) without
// building the binary first.
const asCLI = "EFFECTLINT_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(Main(os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	// The cache of parsed facts is on by default: tests keep theirs out
	// of the user's cache folder (child processes inherit it).
	dir, err := os.MkdirTemp("", "effectlint-test-cache-")
	if err != nil {
		os.Exit(m.Run())
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
