package transcripts

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// sameAsSlowPath fails when the fast path takes a line and reads it
// differently from the slow path (checkJSONLine, then parseNativeLine over
// a copy of the line, then clipping).
func sameAsSlowPath(t *testing.T, line []byte) {
	t.Helper()
	l := rawLine{bytes: line, num: 7}
	if spans, ok := scanFields(line, nil); ok {
		if !utf8.Valid(line) || !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
			t.Fatalf("fast scan accepts what the slow path refuses: %q", line)
		}
		if len(spans) != countFields(line) {
			t.Fatalf("fast scan found %d fields, gjson %d: %q", len(spans), countFields(line), line)
		}
	}
	// Every field kept, and only the fields SPEC names (analyze and check).
	for _, keep := range []func(string) bool{nil, SpecField} {
		nf := newNativeFast()
		nf.keep = keep
		fev, fprob, handled := nf.line("f.jsonl", l)
		if !handled {
			return
		}
		if msg, _ := checkJSONLine(l, "task"); msg != "" {
			t.Fatalf("fast path read a line the slow path refuses (%s): %q", msg, line)
		}
		sev, sprob := parseNativeLine("f.jsonl", 7, gjson.ParseBytes(bytes.Clone(line)), keep)
		for _, ev := range []*Event{fev, sev} {
			if ev != nil {
				clipFields(ev.Fields)
				if len(ev.Fields) == 0 {
					ev.Fields = nil // no field: a nil map or an empty one
				}
			}
		}
		if !reflect.DeepEqual(fev, sev) || !reflect.DeepEqual(fprob, sprob) {
			t.Fatalf("fast and slow paths differ for %q (spec fields only: %v):\nfast %+v %+v\nslow %+v %+v", line, keep != nil, fev, fprob, sev, sprob)
		}
	}
}

func countFields(line []byte) int {
	n := 0
	gjson.ParseBytes(line).ForEach(func(_, _ gjson.Result) bool { n++; return true })
	return n
}

var fastPathCases = []string{
	good,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat(`ab\"c\\d\n`, 40) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat(`é\u00e9\ud83d\ude00`, 40) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat(`λ`, 200) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat(`x`, 129) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":"` + strings.Repeat(`x`, 128) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":""}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"ui_changed","detail":5}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","output":"` + strings.Repeat(`x`, 5000) + `","exit_code":0}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","output":{"stdout":"` + strings.Repeat(`y`, 500) + `","n":[1,2.5e3,-0.1,true,false,null,{}]}}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"` + strings.Repeat(`t`, 300) + `","type":"send_fired"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"` + strings.Repeat(`z`, 300) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"status","label":"` + strings.Repeat(`n`, 300) + `"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1","title":"` + strings.Repeat(`#`, 300) + `"},"content":{"sha256":"ab"}}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"response","ok":true,"status":1e999999}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"response","ok":"yes"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","task":"t2","type":"send_fired"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"send_fired","x":1,"x":2}`,
	`{"t\u0073":"2026-11-30T07:00:00Z","task":"t1","type":"send_fired"}`,
	`{"ts":"2026-11-30 07:00","task":"t1","type":"send_fired"}`,
	`{"ts":"2026-11-30T07:00:00Z","type":"send_fired"}`,
	`{}`, ` { } `, `{"a":1,}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":[1,]}`, `{"a":[,1]}`,
	`{"a":{"b":}}`, `{"a":{"b" 1}}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}",
	`{"a":tru}`, `{"a":nul}`, `{"a":[[[[]]]]}`, `{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
	`[1]`, `"s"`, `{"a":1} x`, `{"a":1}` + "\t\r ",
	// Lines the bare reading takes (spec fields only) or must leave.
	`{"ts":"2026-11-30T07:00:00.123+01:00","task":"t1","type":"note","text":"x","n":1}`,
	`{"type":"note","task":"t1","ts":"2026-11-30T07:00:00Z"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t\"1","type":"note"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"n\u006fte"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"","type":"note"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":""}`,
	`{"ts":"2026-11-30T07:00:00Z","task":1,"type":"note"}`,
	`{"ts":20261130,"task":"t1","type":"note"}`,
	`{"ts":"2026-11-31T07:00:00Z","task":"t1","type":"note"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"note","intent":"i1"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"note","intent":5}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_ended","output":"x"}`,
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","detail":"` + strings.Repeat(`d`, 300) + `"}`,
}

func TestNativeFastPath_SameAsSlowPath(t *testing.T) {
	for _, c := range fastPathCases {
		sameAsSlowPath(t, []byte(c))
	}
	files, _ := filepath.Glob("../testdata/scenarios/*/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			sameAsSlowPath(t, bytes.TrimSuffix(line, []byte("\r")))
		}
	}
}

func TestNativeFastPath_TakesLongTextWithoutKeepingIt(t *testing.T) {
	line := `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","output":"` + strings.Repeat(`0123456789`, 1000) + `"}`
	ev, problem, handled := newNativeFast().line("f.jsonl", rawLine{bytes: []byte(line), num: 1})
	if !handled || problem != nil || ev == nil {
		t.Fatalf("handled %v problem %+v event %+v", handled, problem, ev)
	}
	want := "[10000 bytes not kept]"
	if ev.Fields["output"] != want {
		t.Fatalf("output = %q, want %q", ev.Fields["output"], want)
	}
}

func FuzzNativeFastPath(f *testing.F) {
	for _, c := range fastPathCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer within(t, fastBudget)()
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		sameAsSlowPath(t, line)
	})
}

func TestSpecial8_FlagsTheFirstSpecialByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			m := special8(binary.LittleEndian.Uint64(w))
			want := !plain[c]
			if got := m != 0 && bits.TrailingZeros64(m)>>3 == pos; got != want {
				t.Fatalf("byte %#x at %d: flagged first %v, want %v (mask %x)", c, pos, got, want, m)
			}
		}
	}
}
