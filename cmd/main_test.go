package cmd

import (
	"os"
	"runtime/debug"
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
	// Tests run the CLI in-process thousands of times: with the
	// collector's default, a third of their CPU was collecting a heap of a
	// few tens of MB at every doubling. They collect at 5× the live heap,
	// under a soft limit of 1 GiB (docs/testing.md gives the figures).
	// Verdicts do not depend on it; GOGC and GOMEMLIMIT override it.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
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
