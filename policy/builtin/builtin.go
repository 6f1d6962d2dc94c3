// Package builtin holds effectlint's built-in policy: the Rego rules that
// decide key scope states, findings and the gate (rules.rego), and their
// Rego unit tests (rules_test.rego), embedded so that every caller — the
// CLI, the scenario runner, the gate library — compiles the same text.
// The repository root links rules.rego and rules_test.rego here, where a
// reader looks for them first.
package builtin

import _ "embed"

// Rules is the source of rules.rego, package effectlint.
//
//go:embed rules.rego
var Rules string

// Tests is the source of rules_test.rego, the built-in rules' unit tests
// (run by `effectlint verify`).
//
//go:embed rules_test.rego
var Tests string

// RulesName and TestsName are the file names reports cite (rules.rego:NNN).
const (
	RulesName = "rules.rego"
	TestsName = "rules_test.rego"
)
