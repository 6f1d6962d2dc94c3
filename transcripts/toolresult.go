package transcripts

import (
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Formats that record a tool's output but no error flag (OpenAI tool
// messages and call outputs, the result attribute of an OpenTelemetry
// execute_tool span) share one convention for "this output is an error":
//
//   - text that begins with Error, Exception, Traceback, Timeout, Timed out,
//     Failed, Failure or "An error occurred" (case-insensitive, as a word:
//     "Errors: 0" is not an error);
//   - JSON whose top-level object has a non-empty "error", "ok": false,
//     "success": false, "is_error"/"isError": true, a "status" of error,
//     failed, failure or timeout, or a non-zero "exit_code" (also under
//     "metadata" or "outcome", as shell tools report it; an outcome of type
//     "timeout" too);
//   - a JSON array (content parts, shell outputs) when any element says so.
//
// An error makes the provider's answer a response with ok: false: the
// effect may have happened and is not confirmed.

var errorText = regexp.MustCompile(`(?i)^\s*(error|exception|traceback|timeout|timed out|failed|failure|an error occurred)\b`)

// outputSaysError applies the convention to an output value: a string
// (which may hold JSON), an object, or an array of parts.
func outputSaysError(out gjson.Result) bool {
	switch {
	case out.Type == gjson.String:
		s := strings.TrimSpace(out.Str)
		if (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && validJSONString(s) {
			return outputSaysError(gjson.Parse(s))
		}
		return errorText.MatchString(s)
	case out.IsObject():
		return objectSaysError(out)
	case out.IsArray():
		bad := false
		out.ForEach(func(_, part gjson.Result) bool {
			switch {
			case part.Type == gjson.String:
				bad = outputSaysError(part)
			case part.IsObject() && part.Get("text").Type == gjson.String:
				// A content part: its text, unless it is itself a result object.
				bad = objectSaysError(part) || outputSaysError(part.Get("text"))
			case part.IsObject():
				bad = objectSaysError(part)
			}
			return !bad
		})
		return bad
	}
	return false
}

func objectSaysError(o gjson.Result) bool {
	if truthy(o.Get("error")) {
		return true
	}
	for _, k := range []string{"ok", "success"} {
		if o.Get(k).Type == gjson.False {
			return true
		}
	}
	for _, k := range []string{"is_error", "isError"} {
		if o.Get(k).Type == gjson.True {
			return true
		}
	}
	switch strings.ToLower(o.Get("status").String()) {
	case "error", "failed", "failure", "timeout", "timed_out":
		return true
	}
	for _, k := range []string{"exit_code", "metadata.exit_code", "outcome.exit_code"} {
		if c := o.Get(k); c.Type == gjson.Number && c.Raw != "0" {
			return true
		}
	}
	return o.Get("outcome.type").String() == "timeout"
}

// truthy: present and not null, false, 0, "", {} or [].
func truthy(r gjson.Result) bool {
	switch r.Type {
	case gjson.Null, gjson.False:
		return false
	case gjson.String:
		return strings.TrimSpace(r.Str) != ""
	case gjson.Number:
		return r.Float() != 0
	case gjson.JSON:
		empty := true
		r.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
		return !empty
	}
	return r.Exists()
}
