package transcripts

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The fast path of the native reader. A month of logs is gigabytes, most
// of it tool output and screen text that no rule reads. The slow path
// (checkJSONLine, then gjson over a copy of the line) walks every byte three
// or four times and unescapes every long string. The fast path walks the line
// once: scanFields validates it (JSON as gjson.ValidBytes accepts it, UTF-8
// as utf8.Valid does) and records where each top-level field is. Long text
// never reaches gjson: it is replaced by a placeholder of the same type for
// parseNativeLine, the one place that turns a line into an event, and only
// its length is kept (ClipText). Anything unusual (an escaped or repeated key, deep
// nesting, any invalid byte) goes to the slow path, which gives the same
// event or the exact problem; TestNativeFastPath_SameAsSlowPath and
// FuzzNativeFastPath hold the two paths to the same result.

// MaxTextBytes is the longest free text kept in an event: a `detail` or a
// field SPEC §3 does not name (tool output, screen text). Short text (a
// status, an exit reason) is kept as it is; longer text is transcript text
// and is not kept at all, only its length (ClipText), so memory follows the
// number of events, not the bytes of the logs.
const MaxTextBytes = 128

// ClipText returns s when it is at most MaxTextBytes long, else
// "[N bytes not kept]".
func ClipText(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	return notKept(len(s))
}

func notKept(n int) string {
	b := make([]byte, 0, 32)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(n), 10)
	return string(append(b, " bytes not kept]"...))
}

// specFields are the extra fields SPEC §3 names; their values are kept
// exactly. Every other field, and `detail`, is free text and is clipped
// (and left out with Options.SpecFieldsOnly).
var specFields = map[string]bool{
	"relation": true, "parent": true, "resumes": true, "child": true, "status": true,
	"reason": true, "intent": true, "destination": true, "content": true,
	"authorization": true, "by": true, "key": true, "checkpoint": true, "decision": true,
	"file": true, "idempotency_token": true, "ok": true, "result": true, "label": true,
}

// SpecField says whether a field of native events (other than ts, task and
// type) is one SPEC §3 gives a meaning to, not free text: the fields
// Options.SpecFieldsOnly keeps, and all that the analyzer and the built-in
// rules read. `detail`, which SPEC §3 names as free text, is not one.
func SpecField(field string) bool { return specFields[field] }

func clipped(field string) bool {
	return !specFields[field] && field != "ts" && field != "task" && field != "type"
}

// clipFields clips the free text of an event's fields, nested values too.
func clipFields(fields map[string]any) {
	for k, v := range fields {
		if clipped(k) {
			fields[k] = clipValue(v)
		}
	}
}

func clipValue(v any) any {
	switch x := v.(type) {
	case string:
		return ClipText(x)
	case []any:
		for i := range x {
			x[i] = clipValue(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = clipValue(e)
		}
	}
	return v
}

// span is one top-level field of a line.
type span struct {
	key []byte // without quotes; never escaped on the fast path
	val []byte // the raw value
	str bool   // the value is a string
	// escapes counts the backslash escapes of a string value; uesc is set
	// when one of them is \u (unescaped by gjson, not here).
	escapes int
	uesc    bool
}

// nativeFast reads lines of one native input on the fast path. Its
// buffers are reused line after line.
type nativeFast struct {
	spans    []span
	synth    []byte
	interned map[string]string
	keep     func(string) bool // as parseNativeLine's
}

func newNativeFast() *nativeFast { return &nativeFast{interned: map[string]string{}} }

// line returns the event and problem of one line as parseNativeLine would
// for the slow path, or handled false when the slow path must read it.
func (nf *nativeFast) line(file string, l rawLine) (ev *Event, problem *Problem, handled bool) {
	if l.tooLong {
		return nil, nil, false
	}
	spans, ok := scanFields(l.bytes, nf.spans[:0])
	nf.spans = spans
	if !ok {
		return nil, nil, false
	}
	for i := range spans {
		// Two spellings of a field (Type and type): the slow path says so.
		if fieldVariantOf(spans[i].key) != "" {
			return nil, nil, false
		}
	}
	if ev := nf.bare(file, l.num, spans); ev != nil {
		return ev, nil, true
	}
	// Free text longer than MaxTextBytes is replaced by a placeholder of
	// the same type (a non-empty string no check accepts as a keyword)
	// before gjson sees the line.
	view := l.bytes
	long := false
	for i := range spans {
		if spans[i].str && len(spans[i].val) > MaxTextBytes+2 && clipped(string(spans[i].key)) {
			long = true
			break
		}
	}
	if long {
		b := append(nf.synth[:0], '{')
		for i := range spans {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, spans[i].key...)
			b = append(b, '"', ':')
			if spans[i].str && len(spans[i].val) > MaxTextBytes+2 && clipped(string(spans[i].key)) {
				b = append(b, `"…"`...)
			} else {
				b = append(b, spans[i].val...)
			}
		}
		b = append(b, '}')
		nf.synth, view = b, b
	}
	// The view is not copied: everything kept is cloned below.
	ev, problem = parseNativeLine(file, l.num, gjson.Parse(unsafe.String(unsafe.SliceData(view), len(view))), nf.keep)
	if problem != nil {
		problem.Task = strings.Clone(problem.Task)
	}
	if ev == nil {
		return nil, problem, true
	}
	ev.Task, ev.Type = nf.intern(ev.Task), nf.intern(ev.Type)
	fields := make(map[string]any, len(ev.Fields))
	for k, v := range ev.Fields {
		fields[nf.intern(k)] = cloneValue(v)
	}
	ev.Fields = fields
	if long {
		for i := range spans {
			s := &spans[i]
			if s.str && len(s.val) > MaxTextBytes+2 && clipped(string(s.key)) && (nf.keep == nil || nf.keep(string(s.key))) {
				ev.Fields[nf.intern(string(s.key))] = longText(s)
			}
		}
	}
	return ev, problem, true
}

// bare reads, without gjson, the commonest line of a long history when
// only the fields SPEC names are kept: an event of a type SPEC does not
// define (a tool's output), so with no type-specific check, and with no
// field to keep but ts, task and type, all three plain strings. It returns
// nil for any other line, which parseNativeLine then reads; the event is
// the one parseNativeLine gives (TestNativeFastPath_SameAsSlowPath).
func (nf *nativeFast) bare(file string, num int, spans []span) *Event {
	if nf.keep == nil {
		return nil
	}
	var ts, task, typ *span
	for i := range spans {
		s := &spans[i]
		switch string(s.key) {
		case "ts":
			ts = s
		case "task":
			task = s
		case "type":
			typ = s
		default:
			if nf.keep(string(s.key)) {
				return nil
			}
		}
	}
	plain := func(s *span) bool { return s != nil && s.str && s.escapes == 0 && len(s.val) > 2 }
	if !plain(ts) || !plain(task) || !plain(typ) {
		return nil
	}
	typeName := typ.val[1 : len(typ.val)-1]
	if knownTypes[string(typeName)] != nil || typeVariant(string(typeName)) != "" || variantTypes.near(string(typeName)) != "" {
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, string(ts.val[1:len(ts.val)-1]))
	if err != nil {
		return nil
	}
	return &Event{File: file, Line: num, TS: at, Task: nf.intern(string(task.val[1 : len(task.val)-1])),
		Type: nf.intern(string(typeName)), Source: FormatNative}
}

// intern interns short strings that repeat (task ids, types, field names).
func (nf *nativeFast) intern(s string) string {
	if k, ok := nf.interned[s]; ok {
		return k
	}
	k := strings.Clone(s)
	if len(nf.interned) < 1<<16 {
		nf.interned[k] = k
	}
	return k
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case string:
		return strings.Clone(x)
	case json.Number:
		return json.Number(strings.Clone(string(x)))
	case []any:
		for i := range x {
			x[i] = cloneValue(x[i])
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[strings.Clone(k)] = cloneValue(e)
		}
		return m
	}
	return v
}

// longText is the clipped value of a long string field: its length
// counted from the escapes, unescaped only when it is short after all.
func longText(s *span) string {
	raw := s.val[1 : len(s.val)-1]
	if s.uesc {
		// \u escapes: let gjson unescape (surrogates, invalid ones) exactly
		// as the slow path would.
		return ClipText(gjson.ParseBytes(s.val).Str)
	}
	total := len(raw) - s.escapes
	if total <= MaxTextBytes {
		return unescapeSimple(raw, total)
	}
	return notKept(total)
}

// unescapeSimple unescapes the first n bytes of a string without \u.
func unescapeSimple(raw []byte, n int) string {
	out := make([]byte, 0, n)
	for i := 0; i < len(raw) && len(out) < n; i++ {
		c := raw[i]
		if c == '\\' {
			i++
			switch raw[i] {
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			default: // " \ /
				c = raw[i]
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash, a control character or the start of a multi-byte character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// fastScanString reads a string whose opening quote is at b[i-1]. It returns
// the index after the closing quote; ok is false for a control character,
// a bad escape, invalid UTF-8 or a missing quote.
func fastScanString(b []byte, i int) (end, escapes int, uesc, ok bool) {
	for i < len(b) {
		// Eight plain bytes at a time; the lowest flagged byte of a word
		// is always a real special one (borrows only move up).
		for i+8 <= len(b) {
			if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		if plain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1, escapes, uesc, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, escapes, uesc, false
			}
			escapes++
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !fastIsHex(b[i+2]) || !fastIsHex(b[i+3]) || !fastIsHex(b[i+4]) || !fastIsHex(b[i+5]) {
					return i, escapes, uesc, false
				}
				uesc = true
				i += 6
			default:
				return i, escapes, uesc, false
			}
		case c < 0x20:
			return i, escapes, uesc, false
		default: // c >= 0x80
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, escapes, uesc, false
			}
			i += size
		}
	}
	return i, escapes, uesc, false
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// special8 flags (high bit of the byte) the bytes of x that are a quote,
// a backslash, a control character or not ASCII.
func special8(x uint64) uint64 {
	q := x ^ ('"' * lo8)
	bs := x ^ ('\\' * lo8)
	ctl := (x - 0x20*lo8) &^ x
	quote := (q - lo8) &^ q
	back := (bs - lo8) &^ bs
	return (ctl | quote | back | x) & hi8
}

func fastIsHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// fastScanNumber reads a number as gjson's validator does.
func fastScanNumber(b []byte, i int) (int, bool) {
	digit := func(i int) bool { return i < len(b) && b[i] >= '0' && b[i] <= '9' }
	if b[i] == '-' {
		i++
		if !digit(i) {
			return i, false
		}
	}
	if b[i] == '0' {
		i++
	} else {
		for digit(i) {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digit(i) {
			return i, false
		}
		for digit(i) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digit(i) {
			return i, false
		}
		for digit(i) {
			i++
		}
	}
	return i, true
}

var literals = [][]byte{[]byte("true"), []byte("false"), []byte("null")}

// scanScalar reads a string, number or literal starting at b[i].
func scanScalar(b []byte, i int) (end int, ok bool) {
	switch c := b[i]; {
	case c == '"':
		end, _, _, ok = fastScanString(b, i+1)
		return end, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return fastScanNumber(b, i)
	default:
		for _, lit := range literals {
			if bytes.HasPrefix(b[i:], lit) {
				return i + len(lit), true
			}
		}
	}
	return i, false
}

// maxFastDepth bounds the nesting the fast path reads; deeper values go to
// the slow path.
const maxFastDepth = 32

// maxFastKeys bounds the keys of the open objects inside one value that
// the fast path compares to find a repeated key; a value with more (or
// with an escaped key) goes to the slow path, which looks up keys in a map.
const maxFastKeys = 64

// scanValue reads any JSON value starting at b[i] (not whitespace) without
// recursion: containers keep a stack of their closing brackets. ok is also
// false for a value with a repeated key in one of its objects (the slow
// path reports it).
func scanValue(b []byte, i int) (int, bool) {
	if b[i] != '{' && b[i] != '[' {
		return scanScalar(b, i)
	}
	var stack [maxFastDepth]byte
	// The keys of the open objects, and where each object's keys begin.
	var keys [maxFastKeys][2]int32
	var base [maxFastDepth]int8
	nkeys := 0
	depth := 0
	// key reads a key of the innermost object and checks it is new.
	key := func(i int) (int, bool) {
		start := i + 1
		i, kend, ok := scanKey(b, i)
		if !ok || nkeys == maxFastKeys || len(b) > 1<<31-1 {
			return i, false
		}
		n := kend - start
		for _, k := range keys[base[depth-1]:nkeys] {
			if int(k[1]-k[0]) == n && bytes.Equal(b[k[0]:k[1]], b[start:kend]) {
				return i, false
			}
		}
		keys[nkeys] = [2]int32{int32(start), int32(kend)}
		nkeys++
		return i, true
	}
	for {
		// At the start of a value.
		switch b[i] {
		case '{', '[':
			if depth == maxFastDepth {
				return i, false
			}
			closer := byte('}')
			if b[i] == '[' {
				closer = ']'
			}
			stack[depth] = closer
			base[depth] = int8(nkeys)
			depth++
			i = skipWS(b, i+1)
			if i >= len(b) {
				return i, false
			}
			if b[i] == closer {
				i++
				depth--
				break
			}
			if closer == '}' {
				var ok bool
				if i, ok = key(i); !ok {
					return i, false
				}
			}
			if i >= len(b) {
				return i, false
			}
			continue
		default:
			end, ok := scanScalar(b, i)
			if !ok {
				return end, false
			}
			i = end
		}
		// After a value: a comma and the next value, or closing brackets.
		for {
			if depth == 0 {
				return i, true
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			closer := stack[depth-1]
			if b[i] == closer {
				i++
				depth--
				nkeys = int(base[depth])
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipWS(b, i+1)
			if i >= len(b) {
				return i, false
			}
			if closer == '}' {
				var ok bool
				if i, ok = key(i); !ok {
					return i, false
				}
				if i >= len(b) {
					return i, false
				}
			}
			break
		}
	}
}

// scanKey reads `"key" :` at b[i] and returns the index after the colon and
// the end of the key's text; ok is false for an escaped key too (it cannot
// be compared byte by byte).
func scanKey(b []byte, i int) (next, keyEnd int, ok bool) {
	if b[i] != '"' {
		return i, 0, false
	}
	end, esc, _, ok := fastScanString(b, i+1)
	if !ok || esc > 0 {
		return end, 0, false
	}
	next = skipWS(b, end)
	if next >= len(b) || b[next] != ':' {
		return next, 0, false
	}
	return skipWS(b, next+1), end - 1, true
}

// scanFields validates a line holding one JSON object and lists its
// top-level fields. ok is false when the line is not valid, not an object,
// or not for the fast path (an escaped or repeated key at any depth, deep
// nesting, many keys).
func scanFields(b []byte, out []span) ([]span, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return out, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return out, false
		}
		kend, kesc, _, ok := fastScanString(b, i+1)
		if !ok || kesc > 0 {
			return out, false
		}
		key := b[i+1 : kend-1]
		if len(out) == maxFastKeys {
			return out, false // the slow path finds a repeat among many in a map
		}
		for _, s := range out {
			if bytes.Equal(s.key, key) {
				return out, false
			}
		}
		i = skipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return out, false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return out, false
		}
		sp := span{key: key}
		start := i
		if b[i] == '"' {
			sp.str = true
			i, sp.escapes, sp.uesc, ok = fastScanString(b, i+1)
		} else {
			i, ok = scanValue(b, i)
		}
		if !ok {
			return out, false
		}
		sp.val = b[start:i]
		out = append(out, sp)
		i = skipWS(b, i)
		if i >= len(b) {
			return out, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return out, skipWS(b, i+1) == len(b)
		default:
			return out, false
		}
	}
}
