package transcripts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// The canonical digest of a JSON value: two serializations of one value
// (keys in another order, other white space, other escapes) have one
// digest, and two different values have different ones. Claude Code lines
// copied between sessions, and calls copied into lines that are no copies,
// are told apart by it (lineFingerprint, the "call:" key of claudeRecord).
//
// It is a hash tree, computed in one pass without recursion. A container
// (object or array) is hashed on its own, over its members in canonical
// form: an object's in the order of their keys (stable: a repeated key
// keeps its place), an array's in order; a string is "s", its length in
// bytes, ":" and its decoded text; a number, true, false or null is its
// text. A nested container stands in its parent as "h" and its 32-byte
// SHA-256. Every part is self-delimiting, so no value can pass for
// another. Each byte of the value is scanned once and hashed about once.
//
// It replaced a canonical text written by walking the value with gjson,
// which re-scanned each nested value once for every container around it:
// a 10 MB line of nested arrays had not finished after 24 minutes (issue 15,
// "no input is a denial of service"). The digests are compared only within
// one run, never stored, so their form could change.

// canonicalState is the reusable state of one digest.
type canonicalState struct {
	h       hash.Hash
	buf     []byte // the canonical form of the open containers' members
	frames  []canonicalFrame
	members []canonicalMember
	sum     [sha256.Size]byte
}

// canonicalFrame is an open container: its members start at buf[start]
// (and, for an object, at members[mem]). It is small and holds no
// pointer: a hostile value millions of levels deep holds one a level.
type canonicalFrame struct {
	start, mem int
	object     bool
	wantKey    bool // an object, before a key
}

// canonicalMember is one member of an object: buf[start:end] is its key in
// canonical form, ":" and its value; buf[keyStart:keyEnd] its decoded key.
// end is -1 while the value is being read.
type canonicalMember struct {
	start, keyStart, keyEnd, end int
}

var canonicalStates = sync.Pool{New: func() any { return &canonicalState{h: sha256.New()} }}

// canonicalDigest is the hex SHA-256 of each head followed by a zero byte,
// then r's canonical form. r must be valid JSON: the readers validate every
// line before they read it, and the scan trusts that (it reads separators
// loosely). A text it cannot follow at all is digested as written, under
// another prefix; nothing panics.
func canonicalDigest(r gjson.Result, head ...string) string {
	st := canonicalStates.Get().(*canonicalState)
	defer func() {
		if cap(st.buf) <= 1<<20 && cap(st.frames) <= 1<<16 && cap(st.members) <= 1<<16 { // a huge value's buffers are not kept
			canonicalStates.Put(st)
		}
	}()
	st.buf, st.frames, st.members = st.buf[:0], st.frames[:0], st.members[:0]
	root, ok := st.canonical(r.Raw)
	out := st.h // the containers are hashed: it is free again
	out.Reset()
	for _, h := range head {
		out.Write([]byte(h))
		out.Write([]byte{0})
	}
	if !ok {
		out.Write([]byte("raw\x00"))
		out.Write([]byte(r.Raw))
	} else {
		out.Write(root) // a scalar's form, or "h" and a digest
	}
	return hex.EncodeToString(out.Sum(nil))
}

// canonical returns the canonical form of the value in s: a scalar's, or
// "h" and a container's digest. ok is false when s is not one JSON value.
func (st *canonicalState) canonical(s string) (form []byte, ok bool) {
	done := false
	// begin readies buf for a value of the open container (or the root);
	// end records it.
	begin := func() bool {
		n := len(st.frames)
		switch {
		case n == 0:
			return !done // a second value is not one value
		case st.frames[n-1].object:
			return !st.frames[n-1].wantKey && st.pendingKey(st.frames[n-1]) // not a value where a key belongs
		default:
			if len(st.buf) > st.frames[n-1].start {
				st.buf = append(st.buf, ',')
			}
			return true
		}
	}
	end := func() {
		n := len(st.frames)
		switch {
		case n == 0:
			done = true
		case st.frames[n-1].object:
			st.members[len(st.members)-1].end = len(st.buf)
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			i++
		case ',':
			if n := len(st.frames); n > 0 && st.frames[n-1].object {
				st.frames[n-1].wantKey = true
			}
			i++
		case '{', '[':
			if !begin() {
				return nil, false
			}
			st.frames = append(st.frames, canonicalFrame{object: c == '{', wantKey: c == '{', start: len(st.buf), mem: len(st.members)})
			i++
		case '}', ']':
			n := len(st.frames)
			if n == 0 || st.frames[n-1].object != (c == '}') || st.pendingKey(st.frames[n-1]) {
				return nil, false
			}
			sum := st.close(st.frames[n-1])
			st.frames = st.frames[:n-1]
			st.buf = append(append(st.buf, 'h'), sum...) // begin was called at the opening
			end()
			i++
		case '"':
			e, ok := scanString(s, i+1)
			if !ok {
				return nil, false
			}
			quoted := s[i:e]
			i = e
			if n := len(st.frames); n > 0 && st.frames[n-1].object && st.frames[n-1].wantKey {
				if st.pendingKey(st.frames[n-1]) {
					return nil, false // a key where a value belongs
				}
				m := canonicalMember{start: len(st.buf), end: -1}
				st.buf, m.keyStart = appendCanonicalQuoted(st.buf, quoted)
				m.keyEnd = len(st.buf)
				st.buf = append(st.buf, ':')
				st.members = append(st.members, m)
				st.frames[n-1].wantKey = false
				continue
			}
			if !begin() {
				return nil, false
			}
			st.buf, _ = appendCanonicalQuoted(st.buf, quoted)
			end()
		default:
			j := i
			for j < len(s) && !scalarEnds(s[j]) {
				j++
			}
			if j == i || !begin() {
				return nil, false
			}
			st.buf = append(st.buf, s[i:j]...)
			end()
			i = j
		}
	}
	if len(st.frames) > 0 || !done {
		return nil, false
	}
	return st.buf, true
}

// pendingKey reports whether the object f has read a key whose value is
// not read yet.
func (st *canonicalState) pendingKey(f canonicalFrame) bool {
	return len(st.members) > f.mem && st.members[len(st.members)-1].end < 0
}

// close digests a finished container and drops its members from buf.
func (st *canonicalState) close(f canonicalFrame) []byte {
	h := st.h
	h.Reset()
	if f.object {
		ms := st.members[f.mem:]
		slices.SortStableFunc(ms, func(a, b canonicalMember) int {
			return bytes.Compare(st.buf[a.keyStart:a.keyEnd], st.buf[b.keyStart:b.keyEnd])
		})
		h.Write([]byte{'{'})
		for k, m := range ms {
			if k > 0 {
				h.Write([]byte{','})
			}
			h.Write(st.buf[m.start:m.end])
		}
		h.Write([]byte{'}'})
		st.members = st.members[:f.mem]
	} else {
		h.Write([]byte{'['})
		h.Write(st.buf[f.start:])
		h.Write([]byte{']'})
	}
	st.buf = st.buf[:f.start]
	return h.Sum(st.sum[:0])
}

// appendCanonicalString appends "s", the length of text in bytes, ":" and
// text.
func appendCanonicalString(b []byte, text string) []byte {
	b = append(b, 's')
	b = strconv.AppendInt(b, int64(len(text)), 10)
	b = append(b, ':')
	return append(b, text...)
}

// appendCanonicalQuoted appends the canonical form of the JSON string
// quoted (with its quotes) and returns where its decoded text begins in b.
// The usual escapes (\n, \", \\ …) are decoded here, without a copy; a
// \u escape or anything odd is left to gjson's decoding, which the
// readers use everywhere else.
func appendCanonicalQuoted(b []byte, quoted string) ([]byte, int) {
	raw := quoted[1 : len(quoted)-1]
	if strings.IndexByte(raw, '\\') < 0 {
		b = appendCanonicalString(b, raw)
		return b, len(b) - len(raw)
	}
	n, ok := len(raw), true
	for k := 0; k < len(raw) && ok; k++ {
		switch {
		case raw[k] < ' ':
			ok = false
		case raw[k] == '\\':
			k++
			if k >= len(raw) || simpleEscape(raw[k]) == 0 {
				ok = false
			}
			n--
		}
	}
	if !ok {
		text := gjson.Parse(quoted).Str
		b = appendCanonicalString(b, text)
		return b, len(b) - len(text)
	}
	b = append(b, 's')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ':')
	at := len(b)
	for k := 0; k < len(raw); k++ {
		if c := raw[k]; c != '\\' {
			b = append(b, c)
			continue
		}
		k++
		b = append(b, simpleEscape(raw[k]))
	}
	return b, at
}

// simpleEscape is the byte a one-letter JSON escape stands for (after the
// backslash); 0 for \u and anything else.
func simpleEscape(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

func scalarEnds(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}
