package transcripts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// An iterative JSON scanner. gjson validates recursively, one Go stack
// frame per nesting level: a hostile line of twenty million "[" overflows
// the goroutine stack, a fatal error no recover() catches. Every JSON text
// the readers take in is therefore checked here first, without recursion;
// gjson then only walks values that are known to be well formed (its
// getters skip nested values iteratively).
//
// The scanner also finds where a broken or cut document can be closed:
// a crash that cuts a Temporal history or an OTLP export leaves every
// record before the cut readable, and fail closed must not mean "lose
// them".

// MaxValueDepth bounds the nesting of a value kept in an event's fields:
// a deeper value is kept as its JSON text (a string), as numbers beyond
// float64 are, so that nothing is lost and nothing downstream (encoding/json,
// OPA, which refuse ten thousand levels) fails on it.
const MaxValueDepth = 100

// jsonScan is what scanJSON found.
type jsonScan struct {
	// ok: the text is exactly one JSON value, white space around allowed.
	ok bool
	// errAt is the offset of the first byte that breaks the JSON grammar,
	// len(text) when the text ends before the value does; -1 when ok.
	errAt int
	// depth is the deepest nesting seen (1 inside a top-level container).
	depth int
	// safe and closers: text[:safe] followed by closers is valid JSON
	// holding every value completed before errAt (safe is 0 when there is
	// no such prefix). Only meaningful when !ok.
	safe    int
	closers []byte
}

// validJSON reports whether b is one JSON value, like gjson.ValidBytes but
// without recursion.
func validJSON(b []byte) bool { return scanJSON(b).ok }

// validJSONString is validJSON for a string.
func validJSONString(s string) bool { return scanJSON(s).ok }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanJSON scans b in one pass. It accepts exactly what gjson.ValidBytes
// accepts (RFC 8259 syntax; strings are not checked for UTF-8), which the
// fuzz target FuzzScanJSON checks.
func scanJSON[T string | []byte](b T) jsonScan {
	const (
		sValue        = iota // a value must follow (document start, after ':' or ',' in an array)
		sValueOrClose        // after '[': a value or ']'
		sKeyOrClose          // after '{': a key or '}'
		sKey                 // after ',' in an object: a key
		sColon               // after a key
		sAfter               // after a value: ',' or a closer, or the end
	)
	res := jsonScan{errAt: -1}
	var stack []byte
	safeDepth := 0
	state := sValue
	n := len(b)
	i := 0
	// mark records that the text up to at can be closed.
	mark := func(at int) { res.safe, safeDepth = at, len(stack) }
	push := func(c byte) {
		stack = append(stack, c)
		if len(stack) > res.depth {
			res.depth = len(stack)
		}
	}
	// done is called after a value ends at end; complete says whether it
	// is certainly whole (a number at the very end may have been cut).
	done := func(end int, complete bool) {
		state = sAfter
		if complete || len(stack) == 0 {
			mark(end)
		}
	}
	fail := func(at int) jsonScan {
		res.errAt = at
		res.closers = make([]byte, 0, safeDepth)
		for k := safeDepth - 1; k >= 0; k-- {
			if stack[k] == '{' {
				res.closers = append(res.closers, '}')
			} else {
				res.closers = append(res.closers, ']')
			}
		}
		return res
	}
	for {
		for i < n && isSpace(b[i]) {
			i++
		}
		if i == n {
			break
		}
		c := b[i]
		switch state {
		case sValue, sValueOrClose:
			if c == ']' && state == sValueOrClose {
				stack = stack[:len(stack)-1]
				i++
				done(i, true)
				continue
			}
			switch {
			case c == '{':
				push('{')
				i++
				state = sKeyOrClose
				mark(i)
			case c == '[':
				push('[')
				i++
				state = sValueOrClose
				mark(i)
			case c == '"':
				end, ok := scanString(b, i+1)
				if !ok {
					return fail(end)
				}
				i = end
				done(i, true)
			case c == 't' || c == 'f' || c == 'n':
				lit := "null"
				if c == 't' {
					lit = "true"
				} else if c == 'f' {
					lit = "false"
				}
				if n-i < len(lit) || string(b[i:i+len(lit)]) != lit {
					for k := 1; k < len(lit) && i+k < n; k++ {
						if b[i+k] != lit[k] {
							return fail(i + k)
						}
					}
					return fail(n)
				}
				i += len(lit)
				done(i, true)
			case c == '-' || (c >= '0' && c <= '9'):
				end, ok := scanNumber(b, i)
				if !ok {
					return fail(end)
				}
				i = end
				done(i, i < n)
			default:
				return fail(i)
			}
		case sKeyOrClose, sKey:
			if c == '}' && state == sKeyOrClose {
				stack = stack[:len(stack)-1]
				i++
				done(i, true)
				continue
			}
			if c != '"' {
				return fail(i)
			}
			end, ok := scanString(b, i+1)
			if !ok {
				return fail(end)
			}
			i = end
			state = sColon
		case sColon:
			if c != ':' {
				return fail(i)
			}
			i++
			state = sValue
		case sAfter:
			if len(stack) == 0 {
				return fail(i) // more after the value
			}
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				if top == '{' {
					state = sKey
				} else {
					state = sValue
				}
			case (c == ']' && top == '[') || (c == '}' && top == '{'):
				stack = stack[:len(stack)-1]
				i++
				done(i, true)
			default:
				return fail(i)
			}
		}
	}
	if state == sAfter && len(stack) == 0 {
		res.ok = true
		return res
	}
	return fail(n)
}

// scanString scans a string body from i (after the opening quote) and
// returns the offset after the closing quote, or where it breaks.
func scanString[T string | []byte](b T, i int) (int, bool) {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c < ' ':
			return i, false
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i == len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 0; k < 4; k++ {
					i++
					if i >= len(b) || !ishex(b[i]) {
						return i, false
					}
				}
			default:
				return i, false
			}
		}
	}
	return i, false
}

func ishex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanNumber scans a JSON number starting at i.
func scanNumber[T string | []byte](b T, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i >= len(b) {
		return i, false
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// repairJSON returns the longest well-formed part of a broken JSON
// document, closed: every value completed before the break, in its
// containers. cut is the offset where the kept text ends (the appended
// closers follow it); ok is false when nothing can be kept.
func repairJSON(b []byte, s jsonScan) (fixed []byte, cut int, ok bool) {
	if s.ok || s.safe == 0 {
		return nil, 0, false
	}
	fixed = make([]byte, 0, s.safe+len(s.closers))
	fixed = append(append(fixed, b[:s.safe]...), s.closers...)
	if !scanJSON(fixed).ok {
		return nil, 0, false // cannot happen; never hand gjson broken text
	}
	return fixed, s.safe, true
}

// Repeated keys. `{"type":"picker_opened","type":"send_fired"}` is valid
// JSON with two readings: gjson (and so effectlint) takes the first value,
// encoding/json, Python and most other libraries the last. A writer that
// meant the second, or a tool downstream that reads the last, would see
// another event than the one judged: SPEC §3 makes such a line a problem
// of that line, whatever the depth of the repeat (a nested destination
// with two ids is just as ambiguous). repeatedKeys finds them; every
// reader calls it on each line or document it reads (repeatedKeyProblem
// for a line, docRepeats for a document's records).

// keyRepeat is one key that appears a second (or later) time in the same
// object.
type keyRepeat struct {
	at   int    // offset of the repeated key's opening quote
	path string // where it is, from the text's root: destination.id, events[3].eventType
}

// maxKeyRepeats bounds the repeats listed for one text: a hostile document
// of a million repeats is one problem per record up to the input's
// listing limit anyway.
const maxKeyRepeats = 1000

// keySpan is a key of an open object: an offset range of the text, or,
// for a key with escapes, its unescaped text.
type keySpan struct {
	start, end int
	unescaped  string
	escaped    bool
}

// keyFrame is an open object or array. It is small and holds no pointer:
// a hostile line millions of levels deep holds one a level (an object's
// key and key set are in keyObject, one per open object).
type keyFrame struct {
	object  bool
	wantKey bool
	base    int // an object's: first of its keys in the shared list
	obj     int // an object's: its keyObject
	index   int // an array's current element
}

// keyObject is what an open object holds besides its frame.
type keyObject struct {
	set map[string]struct{}
	key keySpan // the object's current key
}

// keysInMap is the number of keys from which an object's keys are looked
// up in a map instead of compared one by one.
const keysInMap = 16

// repeatedKeys lists the repeated keys of s, which must be valid JSON
// (scanJSON); more is set when there were more than limit. It does not
// recurse and allocates only for objects with many keys or escaped keys.
// Keys are compared after unescaping: "type" and "t\u0079pe" are one key.
func repeatedKeys(s string, limit int) (out []keyRepeat, more bool) {
	// On the stack for the usual depth and width: growing these from nil
	// was most of the scan's cost on a Claude Code line (issue 15).
	var frameBuf [16]keyFrame
	var objBuf [16]keyObject
	var keyBuf [64]keySpan
	frames, objs, keys := frameBuf[:0], objBuf[:0], keyBuf[:0]
	text := func(k keySpan) string {
		if k.escaped {
			return k.unescaped
		}
		return s[k.start:k.end]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSpace(c) || c == ':':
			i++
		case c == '{' || c == '[':
			f := keyFrame{object: c == '{', base: len(keys), wantKey: c == '{'}
			if f.object {
				f.obj = len(objs)
				objs = append(objs, keyObject{})
			}
			frames = append(frames, f)
			i++
		case c == '}' || c == ']':
			f := &frames[len(frames)-1]
			keys = keys[:f.base]
			if f.object {
				objs[f.obj] = keyObject{} // let the set go
				objs = objs[:f.obj]
			}
			frames = frames[:len(frames)-1]
			i++
		case c == ',':
			f := &frames[len(frames)-1]
			if f.object {
				f.wantKey = true
			} else {
				f.index++
			}
			i++
		case c == '"':
			end, _ := scanString(s, i+1)
			if n := len(frames); n > 0 && frames[n-1].object && frames[n-1].wantKey {
				f := &frames[n-1]
				o := &objs[f.obj]
				f.wantKey = false
				k := keySpan{start: i + 1, end: end - 1}
				if strings.IndexByte(s[k.start:k.end], '\\') >= 0 {
					k.escaped, k.unescaped = true, gjson.Parse(s[i:end]).Str
				}
				kt := text(k)
				repeated := false
				if o.set != nil {
					_, repeated = o.set[kt]
				} else {
					for _, o := range keys[f.base:] {
						if o.end-o.start == k.end-k.start || o.escaped || k.escaped {
							if text(o) == kt {
								repeated = true
								break
							}
						}
					}
				}
				o.key = k
				if repeated {
					if len(out) == limit {
						return out, true
					}
					out = append(out, keyRepeat{at: i, path: keyPath(frames, objs, text)})
				} else if o.set != nil {
					o.set[kt] = struct{}{}
				} else {
					keys = append(keys, k)
					if len(keys)-f.base > keysInMap {
						o.set = make(map[string]struct{}, 2*keysInMap)
						for _, x := range keys[f.base:] {
							o.set[text(x)] = struct{}{}
						}
						keys = keys[:f.base]
					}
				}
			}
			i = end
		default: // a number or a literal
			for i < len(s) && !isSpace(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']' {
				i++
			}
		}
	}
	return out, false
}

// keyPath names the current key of the innermost object: each enclosing
// object's key and array's index, from the root, clipped to 200 bytes.
// It stops writing once past them (clip reads no further): writing the
// whole path of each of a thousand repeats 100,000 levels deep took 16 s
// for a 406 KB Temporal history (issue 15, the 46th review).
func keyPath(frames []keyFrame, objs []keyObject, text func(keySpan) string) string {
	const most = 200
	var b strings.Builder
	var n [20]byte
	for _, f := range frames {
		if b.Len() > most {
			break
		}
		if !f.object {
			b.WriteByte('[')
			b.Write(strconv.AppendInt(n[:0], int64(f.index), 10))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(clip(text(objs[f.obj].key), 40))
	}
	return clip(b.String(), most)
}

// pathUnder reports whether a repeat at path makes the value at one of
// paths ambiguous: the repeated key is that value's key or one of its
// enclosing objects' (a repeated "data" makes data.agentId ambiguous).
func pathUnder(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// repeatedKeyProblem is the problem of a line (or of one record) with a
// repeated key, if it has one: ok is false when every key is unique. The
// line must be valid JSON. task is the line's task as the reader reads it;
// the problem names it unless the repeat is at one of taskPaths, the paths
// the task is read from (then the line may have been another task's, and
// the problem names none). Readers drop such a line, as they drop a line
// that is not JSON: both readings may be evidence, neither is taken.
func repeatedKeyProblem(file string, line int, raw []byte, task string, taskPaths ...string) (Problem, bool) {
	reps, _ := repeatedKeys(unsafe.String(unsafe.SliceData(raw), len(raw)), 1)
	if len(reps) == 0 {
		return Problem{}, false
	}
	if pathUnder(reps[0].path, taskPaths) {
		task = ""
	}
	return Problem{File: file, Line: line, Task: task, Message: repeatMessage(reps[0].path, "line")}, true
}

func repeatMessage(path, what string) string {
	return fmt.Sprintf("repeated key %s: this %s has two readings (the first value or the last), so it is not read", strconv.Quote(path), what)
}

// docRepeats are the repeated keys of one JSON document (a Temporal
// history, an OpenAI export, an OTLP request), each to be claimed by the
// record (event, item, span) that holds it: a repeat inside a record is a
// problem of that record, which is not read, and the rest of the document
// still is. A repeat no record claims (two "events" arrays, two
// conversation ids) is a problem of the whole document, of no task.
type docRepeats struct {
	list    []keyRepeat // by offset in the document
	claimed []bool
	more    bool
}

func findRepeats(d *document) *docRepeats {
	list, more := repeatedKeys(d.root.Raw, maxKeyRepeats)
	for i := range list {
		list[i].at += d.root.Index
	}
	return &docRepeats{list: list, claimed: make([]bool, len(list)), more: more}
}

// in returns the first repeat inside record r and claims all of them.
func (dr *docRepeats) in(r gjson.Result) (keyRepeat, bool) {
	if len(dr.list) == 0 || r.Raw == "" {
		return keyRepeat{}, false
	}
	lo := sort.Search(len(dr.list), func(k int) bool { return dr.list[k].at >= r.Index })
	hi := lo
	for hi < len(dr.list) && dr.list[hi].at < r.Index+len(r.Raw) {
		dr.claimed[hi] = true
		hi++
	}
	if hi == lo {
		return keyRepeat{}, false
	}
	return dr.list[lo], true
}

// rest adds a problem of no task for the repeats no record claimed, and
// for those beyond the listing limit.
func (dr *docRepeats) rest(d *document) {
	for k, rep := range dr.list {
		if !dr.claimed[k] {
			d.in.addProblem(Problem{File: d.in.Path, Line: d.repeatLine(rep),
				Message: repeatMessage(rep.path, "document") + "; what it holds may be any task's"})
		}
	}
	if dr.more {
		d.in.addProblem(Problem{File: d.in.Path, Line: max(d.first, 1),
			Message: fmt.Sprintf("more than %d repeated keys in this document: not all listed, and what they hold may be any task's", maxKeyRepeats)})
	}
}

// repeatLine is the line of a repeat.
func (d *document) repeatLine(rep keyRepeat) int {
	return d.lines.line(rep.at) + max(d.first, 1) - 1
}

// argumentsRepeat finds a repeated key in a tool call's arguments, JSON
// text that formats carry inside a string (OpenAI function arguments,
// OpenTelemetry gen_ai.tool.call.arguments), where a document's scan does
// not see: the conventions would read the first value of the repeated key.
func argumentsRepeat(args string) (string, bool) {
	if !validJSONString(args) {
		return "", false
	}
	reps, _ := repeatedKeys(args, 1)
	if len(reps) == 0 {
		return "", false
	}
	return "arguments." + reps[0].path, true
}

// jsonFingerprint is the SHA-256 of a JSON text without the white space
// between its tokens: two exports of one event, indented differently, are
// the same event. One pass, whatever the nesting (a canonical form with
// sorted keys took minutes on the bad-input matrix's 100,000-deep event).
func jsonFingerprint(raw string) string {
	h := sha256.New()
	var buf [4096]byte
	out := buf[:0]
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ', c == '\t', c == '\n', c == '\r':
			continue
		}
		out = append(out, c)
		if len(out) == cap(out) {
			h.Write(out)
			out = out[:0]
		}
	}
	h.Write(out)
	return hex.EncodeToString(h.Sum(nil))
}
