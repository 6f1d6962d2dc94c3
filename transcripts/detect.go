package transcripts

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Format names, as shown in reports and accepted by --input-format.
const (
	FormatClaudeCode = "claude-code"
	FormatOpenAI     = "openai"
	FormatOTel       = "otel"
	FormatTemporal   = "temporal"
	FormatProfile    = "profile"
	// FormatUnknown marks a JSON input no reader recognizes: it is listed
	// with a notice, not read, and is not a problem of any history.
	FormatUnknown = "unknown"
)

// Formats lists the names --input-format accepts.
var Formats = []string{FormatNative, FormatClaudeCode, FormatOpenAI, FormatOTel, FormatTemporal, FormatProfile,
	FormatStepFunctions, FormatInspect, FormatOpenInference, FormatLangSmith, FormatPlaywright}

var claudeCodeTypes = map[string]bool{"user": true, "assistant": true, "progress": true, "system": true,
	"file-history-snapshot": true, "summary": true, "queue-operation": true, "attachment": true,
	"last-prompt": true, "mode": true}

// formatHookPayloads marks JSON Lines of Claude Code hook payloads (what
// the CLI passes a hook on standard input, as a logging hook appends it):
// not a history. Such a file is listed with a notice and not read.
const formatHookPayloads = "claude-code-hook-payloads"

// detect names the format of an input from its first bytes (up to 64 KiB;
// whole is set when that is the entire input). JSON Lines and JSON
// documents are told apart by their first lines: in JSON Lines most lines
// are whole JSON objects, in a pretty-printed document they are fragments.
// A broken line therefore never turns a log into a "document" (which would
// lose every readable line). "document" means: decide on the whole text.
func detect(peek []byte, whole bool, p *Profile) string {
	if isZipArchive(peek) {
		return formatZip // read by its members (readZip, inspect_eval.go)
	}
	var lines [][]byte
	rest := peek
	for len(lines) < 10 && len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if !whole {
				break // a line longer than the peek
			}
			i = len(rest)
		}
		if l := bytes.TrimSpace(rest[:i]); len(l) > 0 {
			lines = append(lines, l)
		}
		if i == len(rest) {
			break
		}
		rest = rest[i+1:]
	}
	var objects []gjson.Result
	for _, l := range lines {
		if validJSON(l) && gjson.ParseBytes(l).IsObject() {
			objects = append(objects, gjson.ParseBytes(l))
		}
	}
	trimmed := bytes.TrimLeft(peek, " \t\r\n\ufeff")
	switch {
	case len(trimmed) == 0:
		return FormatNative // an empty file: the native reader says so
	case len(lines) == 1 && len(objects) == 1 && whole:
		// One line: a minified document, or a log of one event. An
		// object no reader knows either way is a document no reader
		// recognizes (a subagent's .meta.json, a config file), listed
		// with a notice, not a log of one broken event.
		if f := detectDocument(objects[0], p); f != FormatUnknown {
			return "document"
		}
		if recognizeLine(objects[0], p) == "" && !nativeShaped(objects[0]) {
			return "document"
		}
		return detectLine(objects[0], p)
	case len(objects) > 0 && 2*len(objects) >= len(lines):
		return detectLine(objects[0], p)
	case trimmed[0] == '{' || trimmed[0] == '[':
		return "document"
	}
	return FormatNative
}

// detectLine names a JSON Lines format from one of its records.
func detectLine(line gjson.Result, p *Profile) string {
	if f := recognizeLine(line, p); f != "" {
		return f
	}
	// JSON Lines of unknown records: the native reader reports each one.
	return FormatNative
}

// recognizeLine names the JSON Lines format a record is surely of, or "".
// The built-in formats win over a profile's source: a profile whose detect
// path also exists in a native log or a Claude Code session (task, type,
// sessionId, ...) would read it with its own paths and see fewer events,
// losing crossings. --input-format profile reads such a file as the
// profile's format anyway.
func recognizeLine(line gjson.Result, p *Profile) string {
	if f := builtinLine(line); f != "" {
		return f
	}
	if profileSource(p) != nil && p.Source.Records == "" && line.Get(p.Source.Detect).Exists() {
		return FormatProfile
	}
	return ""
}

// builtinLine names the built-in JSON Lines format of a record, or "".
func builtinLine(line gjson.Result) string {
	t := line.Get("type").String()
	switch {
	case line.Get("ts").Type == gjson.String && line.Get("task").Exists() && line.Get("type").Exists():
		return FormatNative
	case claudeCodeTypes[t] && (line.Get("sessionId").Exists() || t == "file-history-snapshot" || t == "summary"):
		return FormatClaudeCode
	case line.Get("resourceSpans").IsArray():
		return FormatOTel // OTLP/JSON export requests, one a line
	case pwContextLine(line):
		return FormatPlaywright // a Playwright .trace by itself
	case hookPayload(line):
		return formatHookPayloads
	}
	return ""
}

// nativeShaped: a record that names any field of a native event, so a
// broken native event (no ts, say) is read by the native reader and
// reported there, never taken for a foreign document.
func nativeShaped(line gjson.Result) bool {
	return line.Get("ts").Exists() || line.Get("task").Exists() || line.Get("type").Exists()
}

// firstRecognizedLine is the format of the first line of text that is a
// record some JSON Lines reader surely reads, or "".
func firstRecognizedLine(text []byte, p *Profile) string {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if line = bytes.Trim(line, " \t\r"); len(line) > 0 && line[0] == '{' && validJSON(line) {
			if f := recognizeLine(gjson.ParseBytes(line), p); f != "" {
				return f
			}
		}
	}
	return ""
}

// detectDocument names the format of a whole JSON document: a built-in
// format first (as for lines), then a profile's source.
func detectDocument(doc gjson.Result, p *Profile) string {
	if f := builtinDocument(doc); f != FormatUnknown {
		return f
	}
	if src := profileSource(p); src != nil && src.Records != "" {
		if recs := doc.Get(src.Records); recs.IsArray() && recs.Get("0").Get(src.Detect).Exists() {
			return FormatProfile
		}
	}
	return FormatUnknown
}

// formatAmbiguous marks a document with the shapes of two or more
// readers: it has two readings, and which one is meant cannot be told, so
// it is a problem of its input, not read (ambiguousDocument), unless
// --input-format says which.
const formatAmbiguous = "ambiguous"

func builtinDocument(doc gjson.Result) string {
	fs := builtinDocuments(doc)
	if len(fs) == 1 && doc.IsArray() && len(elementShapes(doc)) > 1 {
		return formatAmbiguous
	}
	switch len(fs) {
	case 0:
		return FormatUnknown
	case 1:
		return fs[0]
	}
	return formatAmbiguous
}

// elementShapes lists the formats whose shapes a top-level array's
// elements have, each judged as an array of itself (elements no reader
// knows by themselves, an OpenAI reasoning item, count for none). An
// array's format is told by its first element; a list of Phoenix spans
// followed by LangSmith runs was read as spans alone, and the runs'
// delivery was not seen (an adversarial review): with more than one shape
// among its elements, an array has two readings. It stops at the second.
func elementShapes(doc gjson.Result) []string {
	var out []string
	doc.ForEach(func(_, e gjson.Result) bool {
		for _, f := range builtinDocuments(gjson.Parse("[" + e.Raw + "]")) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		return len(out) < 2
	})
	return out
}

// builtinDocuments lists every built-in format whose shape the document
// has (each format once, in a fixed order).
func builtinDocuments(doc gjson.Result) []string {
	var out []string
	add := func(f string, ok bool) {
		if ok && (len(out) == 0 || out[len(out)-1] != f) {
			out = append(out, f)
		}
	}
	add(formatSubagentMeta, subagentMeta(doc))
	add(FormatStepFunctions, stepFunctionsDocument(doc))
	add(FormatInspect, inspectDocument(doc))
	add(FormatLangSmith, langSmithDocument(doc))
	add(FormatTemporal, doc.Get("events").IsArray() && doc.Get("events.0.eventType").Exists() ||
		doc.Get("history.events").IsArray() && doc.Get("history.events.0.eventType").Exists())
	add(FormatOTel, doc.Get("resourceSpans").IsArray())
	// Spans dumped by the OpenTelemetry Python SDK (ReadableSpan, as
	// any-agent writes them): not OTLP, read by the same reader.
	add(FormatOTel, doc.Get("spans").IsArray() && doc.Get("spans.0.context.span_id").Exists() ||
		doc.IsArray() && doc.Get("0.context.span_id").Exists())
	add(FormatOpenAI, doc.Get("messages").IsArray() && doc.Get("messages.0.role").Exists() ||
		doc.IsArray() && doc.Get("0.role").Exists() ||
		doc.Get("output").IsArray() && (doc.Get("output.0.type").Exists() || doc.Get("output.0.role").Exists()) ||
		doc.Get("input").IsArray() && (doc.Get("input.0.type").Exists() || doc.Get("input.0.role").Exists()) ||
		doc.IsArray() && doc.Get("0.type").Exists() && (doc.Get(`#(type%"*_call")`).Exists() || doc.Get(`#(type=="message")`).Exists()))
	// One refinement, not two readings: an Inspect AI sample (id, epoch,
	// input) holds chat messages, which the Inspect reader reads itself
	// (its events, else those messages); the OpenAI reading sees less.
	if len(out) == 2 && out[0] == FormatInspect && out[1] == FormatOpenAI {
		out = out[:1]
	}
	return out
}

// ambiguousDocument makes a document with two readers' shapes a problem
// of its input: reading it by either could lose the other's deliveries.
func (rn *run) ambiguousDocument(in *Input, doc gjson.Result) {
	in.Format = FormatUnknown
	in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("the document has the shapes of %s: it has two readings, so it is not read (a check fails closed on it); --input-format says which reader is meant",
		strings.Join(documentShapes(doc), " and "))})
}

// documentShapes are the readers' shapes a document has, its elements'
// when it is an array with more than one.
func documentShapes(doc gjson.Result) []string {
	fs := builtinDocuments(doc)
	if doc.IsArray() {
		if es := elementShapes(doc); len(es) > 1 {
			return es
		}
	}
	return fs
}

func profileSource(p *Profile) *Source {
	if p == nil {
		return nil
	}
	return p.Source
}

// describeShape says briefly what an unrecognized JSON document looks like.
func describeShape(doc gjson.Result) string {
	if doc.IsArray() {
		return fmt.Sprintf("a JSON array of %d item(s)", len(doc.Array()))
	}
	var keys []string
	doc.ForEach(func(k, _ gjson.Result) bool {
		if len(keys) < 5 {
			keys = append(keys, strconv.Quote(clip(k.Str, 40)))
		}
		return true
	})
	switch len(keys) {
	case 0:
		return "an empty JSON object"
	case 1:
		return "a JSON object with the key " + keys[0]
	}
	// In words, not Go's ["a" "b"].
	return "a JSON object with keys " + strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
}
