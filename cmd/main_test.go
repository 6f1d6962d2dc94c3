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
	os.Exit(m.Run())
}
