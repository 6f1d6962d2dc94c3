// Package testsize sets how much random input the tests draw. The inner
// loop (go test ./...) draws fewer random cases per property than CI,
// which sets EFFECTLINT_TEST_SOAK=1 (.ci/run) and draws rapid's full
// default: every property and every example still runs in both.
package testsize

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// SoakEnv names the variable that asks for the soak sizes.
const SoakEnv = "EFFECTLINT_TEST_SOAK"

// Soak reports whether the soak sizes were asked for.
func Soak() bool { return os.Getenv(SoakEnv) == "1" }

// InnerLoopChecks is how many random cases each rapid property draws in
// the inner loop; rapid's own default, 100, under Soak.
const InnerLoopChecks = 50

// RapidChecks sets rapid's -rapid.checks to InnerLoopChecks, unless Soak
// is on or the command line set it. Call it from TestMain, before m.Run;
// it parses the command line.
func RapidChecks() {
	if !flag.Parsed() {
		flag.Parse()
	}
	if Soak() || flag.Lookup("rapid.checks") == nil {
		return
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		flag.Set("rapid.checks", strconv.Itoa(InnerLoopChecks))
	}
}

// Run is a TestMain for packages with property tests: RapidChecks, then
// the tests. Use it as os.Exit(testsize.Run(m)).
func Run(m *testing.M) int {
	RapidChecks()
	return m.Run()
}
