package report

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Reports never echo long transcript text. A task id, a key, a message or
// a notice longer than MaxText bytes is shown as an excerpt: its first
// excerptKeep bytes and a marker with its length and a digest, so that two
// long ids stay apart and the same id reads the same everywhere. A
// thousand-byte limit leaves every real id and message whole (and any id
// the command line can pass back, which takes at most 128 KiB an argument,
// is far from it); it bounds what a hostile transcript can make a report
// print. Every format cuts the same way; the JSON report too, where a key
// keeps its shape (only its destination part is cut).
const MaxText = 1024

const excerptKeep = 256

// excerpt cuts s when it is longer than MaxText.
func excerpt(s string) string {
	if len(s) <= MaxText {
		return s
	}
	n := excerptKeep
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s…[%d bytes, sha256:%x]", s[:n], len(s), sum[:6])
}

// excerptKey cuts a long key in its destination part, so that it keeps
// the form v1|dest=…|sha256=HEX.
func excerptKey(k string) string {
	parts := strings.SplitN(k, "|", 3)
	if len(k) <= MaxText || len(parts) != 3 || !strings.HasPrefix(parts[2], "sha256=") {
		return excerpt(k)
	}
	dest := excerpt(parts[1])
	if len(dest) < len(parts[1]) {
		return parts[0] + "|" + dest + "|" + parts[2]
	}
	return excerpt(k)
}

// cutLongStrings returns a copy of v (a report, by pointer) whose string
// fields longer than MaxText are excerpts, or v itself when none is. The
// copy goes through JSON, so it keeps exactly what the JSON report shows.
func cutLongStrings[T any](v *T, encode func(any) ([]byte, error), decode func([]byte, any) error) (*T, error) {
	if !hasLongString(reflect.ValueOf(v)) {
		return v, nil
	}
	b, err := encode(v)
	if err != nil {
		return nil, err
	}
	cp := new(T)
	if err := decode(b, cp); err != nil {
		return nil, err
	}
	cutStrings(reflect.ValueOf(cp))
	return cp, nil
}

func hasLongString(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() > MaxText
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasLongString(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if hasLongString(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if hasLongString(it.Key()) || hasLongString(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && hasLongString(v.Field(i)) {
				return true
			}
		}
	}
	return false
}

// cutStrings replaces, in place, every long exported string reachable
// from v (maps are rebuilt with cut keys and values).
func cutStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > MaxText && v.CanSet() {
			s := v.String()
			if strings.HasPrefix(s, "v1|") {
				v.SetString(excerptKey(s))
			} else {
				v.SetString(excerpt(s))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			cutStrings(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() && v.CanSet() {
			e := reflect.New(v.Elem().Type()).Elem()
			e.Set(v.Elem())
			cutStrings(e)
			v.Set(e)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			cutStrings(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			cutStrings(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			cutStrings(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				cutStrings(v.Field(i))
			}
		}
	}
}

// escapeJSONControls writes DEL, the C1 control characters and the
// invisible characters that reorder text (see invisible) as \u escapes:
// encoding/json leaves them raw (JSON allows it), and a terminal or viewer
// showing the report could act on them. Outside strings JSON is ASCII, so
// every such character is inside a string, and the escape means the same.
func escapeJSONControls(b []byte) []byte {
	// Every character escaped here is DEL or not ASCII: text below DEL
	// (nearly every report) is returned after one byte loop, without
	// decoding runes.
	if !hasByteFrom(b, 0x7f) {
		return b
	}
	if bytes.IndexFunc(b, func(r rune) bool { return r == 0x7f || invisible(r) }) < 0 {
		return b
	}
	var out bytes.Buffer
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0x7f || invisible(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[:size])
		}
		b = b[size:]
	}
	return out.Bytes()
}

// hasByteFrom reports whether b holds a byte >= min.
func hasByteFrom(b []byte, min byte) bool {
	for _, c := range b {
		if c >= min {
			return true
		}
	}
	return false
}

// invisible reports the characters shown escaped besides C0 and DEL: C1
// controls, and those that reorder or break what is shown (bidi embeddings,
// overrides, isolates and marks, as in "Trojan Source"; line and paragraph
// separators).
func invisible(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c
}
