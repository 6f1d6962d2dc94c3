package cmd

// examples are the Example sections of the commands that do not set their
// own, by command path. Every line that starts with "  effectlint" runs as
// shown from the repository's root (TestHelp_ExamplesRun), over the
// repository's examples/ folder.
var examples = map[string]string{
	"effectlint": `  # What happened to each delivery, and which tasks did something risky
  effectlint analyze examples/cases/incident

  # May task t2 cross the delivery boundary now? (exit 0 allow, 1 stop)
  effectlint check --task t2 examples/cases/incident`,

	"effectlint analyze": `  # Post-incident review: every key scope's state and the findings
  effectlint analyze examples/cases/incident

  # CI: fail on high findings or worse, and write SARIF and JUnit from the same run
  effectlint analyze --fail-on high --output sarif=effectlint.sarif --output junit=effectlint.xml examples/cases

  # Adopt in CI with findings already there: record them once, then fail only on new ones
  effectlint analyze --write-baseline effectlint-baseline.json examples/cases
  effectlint analyze --baseline effectlint-baseline.json examples/cases

  # Your own rules and data (waivers live in data too: docs/ci.md)
  effectlint analyze --policy examples/policies --data examples/data --format json examples/cases/incident`,

	"effectlint check": `  # May task t2, resuming, go on? (exit 0 allow, 1 stop, 2 error: treat every non-zero as stop)
  effectlint check --task t2 examples/cases/incident

  # A new task names what it will deliver and asks before pressing send
  effectlint check --task t3 --checkpoint send --destination slack/C024BE91L --file examples/cases/incident/report.pdf examples/cases/incident

  # The decision as JSON, for a program
  effectlint check --task t3 --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' --format json examples/cases/incident`,

	"effectlint explain": `  # Why has this key scope its state? (the rules that decided, with their lines)
  effectlint explain --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' examples/cases/incident

  # Why does the gate stop task t2?
  effectlint explain --task t2 examples/cases/incident`,

	"effectlint facts": `  # The exact input the Rego rules see, as JSON
  effectlint facts examples/cases/incident`,

	"effectlint key": `  # The key of a file to be posted to a Slack channel
  effectlint key --destination slack/C024BE91L --file examples/cases/incident/report.pdf

  # The same content by digest, to a destination known by title only (a weak key)
  effectlint key --title '#finance-reports' --sha256 56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332`,

	"effectlint profile": `  # Print the built-in tool conventions; save them to a file, edit it, pass it with --profile
  effectlint profile`,

	"effectlint claim": `  # Claim the key scope before crossing: a lease and a fencing token (exit 0), or a refusal (exit 1)
  effectlint claim --task t3 --destination slack/C024BE91L --file examples/cases/incident/report.pdf

  # With histories, the gate runs first over them and the ledger's journal
  effectlint claim --task t4 --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' examples/cases/incident`,

	"effectlint cross": `  # Right before the irreversible action, under the token claim granted
  effectlint cross --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' --token 1`,

	"effectlint settle": `  # The provider confirmed the delivery
  effectlint settle --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' --token 1 --outcome confirmed`,

	"effectlint authorize": `  # A person allows one more delivery of a consumed key: scope A1 can be claimed once
  effectlint authorize --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' --authorization A1 --by alice --reason 'the channel was purged; post it once more'`,

	"effectlint ledger": `  # Which ledger the commands use, and its journal
  effectlint ledger where
  effectlint ledger show`,

	"effectlint ledger where": `  effectlint ledger where`,

	"effectlint ledger init": `  # Create the schema (run once per ledger; safe to repeat)
  effectlint ledger init`,

	"effectlint ledger show": `  effectlint ledger show
  effectlint ledger show --key 'v1|dest=slack/C024BE91L|sha256=56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332' --format json`,

	"effectlint ledger export": `  # The journal as effectlint/v1 events: analyze reads it like any history
  effectlint ledger export`,

	"effectlint ledger prune": `  # Keep one tombstone per scope settled more than 90 days ago
  effectlint ledger prune --before 2160h`,

	"effectlint mcp": `  # Serve over stdio (the form MCP clients start)
  effectlint mcp --ledger ~/.local/state/effectlint/ledger.db --history ~/runs

  # Serve streamable HTTP on loopback
  effectlint mcp --http 127.0.0.1:8765`,

	"effectlint hook": `  # Print the settings.json entry that installs the Claude Code hook
  effectlint hook claude-code --print-settings`,

	"effectlint test": `  # Replay recorded cases and compare their verdicts with each expected.yaml
  effectlint test --policy examples/policies --data examples/data examples/cases`,

	"effectlint verify": `  # Run the Rego unit tests of the built-in rules and of your policies
  effectlint verify examples/policies`,

	"effectlint help": `  effectlint help analyze`,

	"effectlint completion": `  # Load completions in the current bash session
  source <(effectlint completion bash)`,

	"effectlint completion bash":       `  source <(effectlint completion bash)`,
	"effectlint completion zsh":        `  effectlint completion zsh > "${fpath[1]}/_effectlint"`,
	"effectlint completion fish":       `  effectlint completion fish > ~/.config/fish/completions/effectlint.fish`,
	"effectlint completion powershell": `  effectlint completion powershell | Out-String | Invoke-Expression`,
}
