package cmd

import "github.com/spf13/cobra"

// addPolicyCommands adds the commands of "policy as a product": Rego unit
// tests (verify), scenario regression tests (test) and explanations
// (explain). They live apart from root.go so that it stays small.
func addPolicyCommands(root *cobra.Command, env Env) {
	root.AddCommand(newVerify(env), newTest(env), newExplain(env))
}
