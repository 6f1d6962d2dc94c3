package transcripts

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestScanJSON_AgreesWithGJSONAndFindsTheBreak(t *testing.T) {
	cases := []struct {
		in    string
		ok    bool
		errAt int    // when !ok
		fixed string // repairJSON's result, "" when nothing can be kept
	}{
		{`{}`, true, -1, ""},
		{` [1, -2.5e+3, "a\u00e9\n", true, false, null, {"k": []}] `, true, -1, ""},
		{`"x"`, true, -1, ""},
		{`0`, true, -1, ""},
		{``, false, 0, ""},
		{`   `, false, 3, ""},
		{`01`, false, 1, "0"},
		{`[1,]`, false, 3, "[1]"},
		{`{"a":1,"b":`, false, 11, `{"a":1}`},
		{`{"a":1,"b":"cut`, false, 15, `{"a":1}`},
		{`[{"a":1},{"b":2},{"c":`, false, 22, `[{"a":1},{"b":2},{}]`},
		{`[1,2,3`, false, 6, "[1,2]"}, // 3 may have been 30: not kept
		{`[tru`, false, 4, "[]"},
		{`[trux]`, false, 4, "[]"},
		{"[\"a\nb\"]", false, 3, "[]"},
		{`{"a":1}{"b":2}`, false, 7, `{"a":1}`},
		{`{"a" 1}`, false, 5, "{}"},
		{`[1 2]`, false, 3, "[1]"},
		{`["\x"]`, false, 3, "[]"},
		{`["\u12G4"]`, false, 6, "[]"},
		{`{"a":[1,{"b":[2,3]}],"c"`, false, 24, `{"a":[1,{"b":[2,3]}]}`},
		{`-`, false, 1, ""},
		{`1.`, false, 2, ""},
		{`1e+`, false, 3, ""},
		{"\x00", false, 0, ""},
	}
	for _, c := range cases {
		s := scanJSON([]byte(c.in))
		if s.ok != c.ok || s.ok != gjson.Valid(c.in) {
			t.Errorf("%q: ok %v, gjson %v, want %v", c.in, s.ok, gjson.Valid(c.in), c.ok)
		}
		if !c.ok && s.errAt != c.errAt {
			t.Errorf("%q: breaks at %d, want %d", c.in, s.errAt, c.errAt)
		}
		fixed, cut, ok := repairJSON([]byte(c.in), s)
		if string(fixed) != c.fixed || ok != (c.fixed != "") {
			t.Errorf("%q: repaired to %q (%v), want %q", c.in, fixed, ok, c.fixed)
		}
		if ok && !bytes.HasPrefix([]byte(c.in), fixed[:cut]) {
			t.Errorf("%q: the kept part %q is not a prefix", c.in, fixed[:cut])
		}
	}
}

func TestScanJSON_NoRecursion(t *testing.T) {
	deep := strings.Repeat("[", 20<<20) // twenty million levels: gjson would overflow the stack
	s := scanJSON([]byte(deep))
	if s.ok || s.depth != 20<<20 || s.errAt != len(deep) {
		t.Fatalf("ok %v depth %d errAt %d", s.ok, s.depth, s.errAt)
	}
	valid := strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20)
	if !validJSONString(valid) {
		t.Fatal("a million nested arrays are valid JSON")
	}
}

func TestDecode_KeepsDeepValuesAsText(t *testing.T) {
	deep := strings.Repeat("[", MaxValueDepth+5) + strings.Repeat("]", MaxValueDepth+5)
	v := decode(gjson.Parse(`{"x":`+deep+`}`), 1).(map[string]any)
	inner := v["x"]
	for d := 2; d <= MaxValueDepth; d++ {
		list, ok := inner.([]any)
		if !ok || len(list) != 1 {
			t.Fatalf("depth %d: %T %v", d, inner, inner)
		}
		inner = list[0]
	}
	if s, ok := inner.(string); !ok || s != strings.Repeat("[", 6)+strings.Repeat("]", 6) {
		t.Fatalf("the value below depth %d is %T %v, want its JSON text", MaxValueDepth, inner, inner)
	}
}

// FuzzScanJSON: the iterative scanner accepts exactly what gjson accepts
// (gjson is asked only when nesting is shallow enough for its recursion),
// and a repaired document is valid JSON made of a prefix of the input and
// closing brackets.
func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1,2`, `{"a":"\u00e9"`, `[true,false,nul`, "\"\xff\"", `-0.5e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer within(t, fastBudget)()
		s := scanJSON(data)
		if s.depth < 10000 && s.ok != gjson.ValidBytes(data) {
			t.Fatalf("scanJSON ok %v, gjson %v for %q", s.ok, gjson.ValidBytes(data), data)
		}
		if s.ok != validJSONString(string(data)) {
			t.Fatal("the string and byte scanners disagree")
		}
		if s.ok {
			if s.errAt != -1 {
				t.Fatalf("valid with errAt %d", s.errAt)
			}
			return
		}
		if s.errAt < 0 || s.errAt > len(data) || s.safe > s.errAt {
			t.Fatalf("errAt %d safe %d len %d", s.errAt, s.safe, len(data))
		}
		fixed, cut, ok := repairJSON(data, s)
		if !ok {
			return
		}
		if !gjson.ValidBytes(fixed) || !bytes.Equal(fixed[:cut], data[:cut]) || strings.Trim(string(fixed[cut:]), "]}") != "" {
			t.Fatalf("repair of %q gave %q (cut %d)", data, fixed, cut)
		}
	})
}
