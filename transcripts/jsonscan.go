package transcripts

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
