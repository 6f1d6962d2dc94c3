// Command effectlint is a transcript forensics analyzer and policy linter
// for automation that performs external side effects. See README.md.
package main

import (
	_ "embed"
	"os"

	"github.com/effectlint/effectlint/cmd"
)

// rules is the built-in policy; it lives at the repository root so that a
// reader finds every rule in one file.
//
//go:embed rules.rego
var rules string

// rulesTests are the built-in rules' Rego unit tests, run by
// `effectlint verify` next to the users' own.
//
//go:embed rules_test.rego
var rulesTests string

func main() {
	os.Exit(cmd.Main(os.Args[1:], cmd.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Rules: rules, RulesTests: rulesTests}))
}
