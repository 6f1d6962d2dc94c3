package cmd

import "github.com/spf13/cobra"

// Tree returns the command tree that Main runs, for tools that describe it
// (internal/gendocs writes docs/commands.md from it). Running it is Main's
// job: Tree's commands write to env but their exit codes are not mapped.
func Tree(env Env) *cobra.Command { return newRoot(env) }
