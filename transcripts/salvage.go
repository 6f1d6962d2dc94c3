package transcripts

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// A JSON document cut while it was written (a crash, a full disk, an export
// that stopped) or broken in the middle is still mostly readable: every
// record before the break is whole. salvage closes the document right
// after the last complete value (repairJSON), the readers skip the one
// record the break cut through (document.partial), and the break is a
// problem of no task: what followed it may have been any task's, so every
// check stops (fail closed) while the evidence before it is still used.

// salvage returns the repaired document when it is one a reader can read:
// a document of the forced format (an object or an array), or one whose
// shape detection recognizes.
func (rn *run) salvage(doc []byte, s jsonScan) ([]byte, int, bool) {
	fixed, cut, ok := repairJSON(doc, s)
	if !ok {
		return nil, 0, false
	}
	root := gjson.ParseBytes(fixed)
	if !root.IsObject() && !root.IsArray() {
		return nil, 0, false
	}
	if rn.opt.InputFormat == "" && detectDocument(root, rn.opt.Profile) == FormatUnknown {
		return nil, 0, false
	}
	return fixed, cut, true
}

// brokenProblem is the problem of a document broken at errAt (of its
// original text).
func brokenProblem(in *Input, orig []byte, s jsonScan) Problem {
	line := bytes.Count(orig[:s.errAt], []byte("\n")) + 1
	msg := fmt.Sprintf("the JSON document ends early at line %d (cut while it was written?): the records before are read, what followed is missing", line)
	if s.errAt < len(orig) {
		end := min(s.errAt+16, len(orig))
		msg = fmt.Sprintf("the JSON document is broken at line %d (at %q): the records before are read, nothing after it", line, clip(string(orig[s.errAt:end]), 16))
	}
	return Problem{File: in.Path, Line: line, Message: msg}
}

// utf8Problem reports the first invalid UTF-8 byte of a document: its text
// is read with replacement characters, so an id there may have been
// anything (the problem names no task).
func utf8Problem(in *Input, doc []byte) (Problem, bool) {
	if utf8.Valid(doc) {
		return Problem{}, false
	}
	at := 0
	for at < len(doc) {
		r, size := utf8.DecodeRune(doc[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	line := bytes.Count(doc[:at], []byte("\n")) + 1
	return Problem{File: in.Path, Line: line, Message: fmt.Sprintf("not valid UTF-8 at line %d: the text there is read with replacement characters", line)}, true
}

// partial reports whether a record of a salvaged document runs past the
// break: it was cut, and reading what is left of it could invent an
// outcome (an mcp_call "completed" whose error was never written).
func (d *document) partial(r gjson.Result) bool {
	return d.cut > 0 && r.Index+len(r.Raw) > d.cut
}

// readLines reads text as JSON Lines of a format detection first took for
// a broken document.
func (rn *run) readLines(format string, r io.Reader, in *Input) {
	in.Format = format
	switch format {
	case FormatClaudeCode:
		rn.readClaudeCode(r, in)
	case FormatOTel:
		rn.readOTelLines(r, in)
	case FormatProfile:
		rn.readProfileLines(r, in)
	case formatHookPayloads:
		rn.readHookPayloads(r, in)
	default:
		in.Format = FormatNative
		readNative(r, in, rn.opt.MaxLineBytes, rn.keep(), rn.emit)
	}
}
