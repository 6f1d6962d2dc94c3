package transcripts

import "github.com/tidwall/gjson"

// claudeTop is a Claude Code line's top-level fields that the readers use,
// found in one pass over the line. Each r.Get("uuid") or r.Get("timestamp")
// scanned the line from its start, past the message (most of the line),
// and a line was looked up about fifteen times: a third of reading a
// session (issue 15).
//
// Each field is the first of its name, as gjson's Get finds it, so the
// pre-read (which reads lines with repeated keys too) sees what it saw
// before. A nested path ("message.content") is the field's own Get only
// on a line without repeated keys (gjson's path takes the first "message"
// that holds a "content"); the main reading never reads a line with a
// repeated key at any depth (repeatedKeyProblem), and the pre-read reads
// no nested path but forkedFrom's, which it took from the first
// forkedFrom before as well.
type claudeTop struct {
	r                                             gjson.Result
	sessionID, typ, subtype, timestamp, uuid      gjson.Result
	cwd, isSidechain, agentID, forkedFrom         gjson.Result
	message, data, parentToolUseID, toolUseResult gjson.Result
}

// claudeTopOf reads r's top-level fields; on anything but an object every
// field is absent, as every Get was.
func claudeTopOf(r gjson.Result) claudeTop {
	t := claudeTop{r: r}
	if !r.IsObject() {
		return t
	}
	r.ForEach(func(k, v gjson.Result) bool {
		var f *gjson.Result
		switch k.Str {
		case "sessionId":
			f = &t.sessionID
		case "type":
			f = &t.typ
		case "subtype":
			f = &t.subtype
		case "timestamp":
			f = &t.timestamp
		case "uuid":
			f = &t.uuid
		case "cwd":
			f = &t.cwd
		case "isSidechain":
			f = &t.isSidechain
		case "agentId":
			f = &t.agentID
		case "forkedFrom":
			f = &t.forkedFrom
		case "message":
			f = &t.message
		case "data":
			f = &t.data
		case "parentToolUseID":
			f = &t.parentToolUseID
		case "toolUseResult":
			f = &t.toolUseResult
		default:
			return true
		}
		if !f.Exists() {
			*f = v
		}
		return true
	})
	return t
}

// content is the line's message.content (for lines without repeated keys).
func (t *claudeTop) content() gjson.Result { return t.message.Get("content") }
