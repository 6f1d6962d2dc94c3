package transcripts

import (
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Calls that never ran. Claude Code (2.1.197) writes a call it did not
// run as an error result in place of the tool's output, the tool never
// started:
//
//   - a PreToolUse hook that exits 2: "PreToolUse:<tool> hook error:
//     [<command>]: <stderr>";
//   - a PreToolUse hook's JSON deny (permissionDecision "deny"): the
//     permissionDecisionReason alone, is_error true, toolUseResult
//     "Error: <reason>"; nothing else on the line says it was a hook
//     (the CLI has a toolDenialKind field for it, not written by this
//     version), so the result has the shape of the tool's own failure;
//   - a permission rule or the default prompt in a headless run: "This
//     command requires approval", "Permission to use <tool> has been
//     denied…".
//
// A JSON deny is therefore told from a failed call only where the tool's
// own failures have a known form. The built-in Bash tool's do: a command
// that ran and failed is the shell error "Exit code N" followed by its
// output, and what else can interrupt a running command is a short list
// (bashRan). An error result of a Bash call in none of these forms,
// written as the CLI writes the result of a call it did not run (the
// line's toolUseResult is "Error: " and the same text), is a call that
// never ran. A result without that record (a converter's or a proxy's
// line, say) is read as a failed call. For any other tool (MCP tools report their
// server's text), only the exit-2 form and effectlint's own denial
// ("effectlint: …", SPEC §10) say the call never ran; any other error is
// a failed call, which may have delivered (fail closed).

// hookError is the exit-2 form; what follows it is the hook's stderr.
var hookError = regexp.MustCompile(`^PreToolUse:\S+ hook error: (?:\[[^\]\n]*\]: )?`)

// bashRan: error texts of a Bash call that ran, or may have (a command
// interrupted or cut while it ran, a tool that threw while running it),
// and texts that look like any error report at all: read as calls that
// ran, so an unknown form of failure is never taken for a denial.
var bashRan = regexp.MustCompile(`(?i)^(?:` +
	`exit code -?\d+` + // the shell error of a command that ran
	`|\[request interrupted by user` + // interrupted while it ran
	`|the user doesn't want to ` + // rejected, or aborted while it ran
	`|<tool_use_error>error calling tool` + // the tool threw while running
	`|command (?:timed out|killed|failed)` +
	`|e[a-z0-9]{2,}:` + // a system error (ENOSPC: …)
	`|(?:error|exception|traceback|timeout|timed out|failed|failure|an error occurred)\b` +
	`)`)

// bashTools are the Claude Code tools whose failures have the shell
// error's form.
var bashTools = map[string]bool{"Bash": true}

// claudeDenied says whether the result of a call of tool name says the
// call never ran, and whether effectlint's own gate denied it; tur is the
// result line's toolUseResult.
func claudeDenied(name string, res toolResult, tur gjson.Result) (denied, byGate bool) {
	if !res.Error {
		return false, false
	}
	out := strings.TrimSpace(res.Output)
	if m := hookError.FindString(out); m != "" {
		return true, strings.HasPrefix(out[len(m):], "effectlint:")
	}
	if strings.HasPrefix(out, "effectlint:") {
		return true, true
	}
	if bashTools[name] && out != "" && !bashRan.MatchString(out) &&
		tur.Type == gjson.String && strings.TrimSpace(tur.Str) == "Error: "+out {
		return true, false
	}
	return false, false
}
