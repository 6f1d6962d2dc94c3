package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"pgregory.net/rapid"
)

func wantIndent(t interface{ Fatal(...any) }, src []byte, prefix, ind string) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, src, prefix, ind); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// indent writes what json.Indent writes for what json.Marshal writes:
// random values (strings with quotes, escapes and brackets, empty and
// nested objects and arrays) and every JSON golden of the reports.
func TestIndent_AsEncodingJSON(t *testing.T) {
	var value func(rt *rapid.T, depth int) any
	value = func(rt *rapid.T, depth int) any {
		kind := rapid.IntRange(0, 6).Draw(rt, "kind")
		if depth > 3 {
			kind %= 4
		}
		switch kind {
		case 0:
			return rapid.StringOf(rapid.SampledFrom([]rune(`ab"\{}[],: <>&é`+"\n\t\u2028"))).Draw(rt, "s")
		case 1:
			return rapid.Float64().Draw(rt, "f")
		case 2:
			return rapid.Bool().Draw(rt, "b")
		case 3:
			return nil
		case 4, 5:
			n := rapid.IntRange(0, 3).Draw(rt, "n")
			m := map[string]any{}
			for i := 0; i < n; i++ {
				m[rapid.StringOf(rapid.SampledFrom([]rune(`k"\:{,`))).Draw(rt, "key")] = value(rt, depth+1)
			}
			return m
		default:
			n := rapid.IntRange(0, 3).Draw(rt, "n")
			a := make([]any, n)
			for i := range a {
				a[i] = value(rt, depth+1)
			}
			return a
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		src, err := json.Marshal(value(rt, 0))
		if err != nil {
			rt.Skip("unencodable")
		}
		for _, p := range [][2]string{{"", "  "}, {"    ", "  "}, {"", "\t"}} {
			if got, want := indent(nil, src, p[0], p[1]), wantIndent(rt, src, p[0], p[1]); !bytes.Equal(got, want) {
				rt.Fatalf("%s\nindent:\n%s\njson.Indent:\n%s", src, got, want)
			}
		}
	})
	goldens, _ := filepath.Glob("../testdata/golden/*/*.json.golden")
	if len(goldens) < 20 {
		t.Fatalf("only %d JSON goldens", len(goldens))
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			continue // not one JSON value (JSON Lines)
		}
		if got, want := indent(nil, compact.Bytes(), "", "  "), wantIndent(t, compact.Bytes(), "", "  "); !bytes.Equal(got, want) {
			t.Errorf("%s: indent differs from json.Indent", g)
		}
	}
}

// encodeEach writes every item once, in order, however the workers finish,
// and stops at the first error.
func TestEncodeEach_InOrderAndStopsAtAnError(t *testing.T) {
	for _, n := range []int{0, 1, 2, 63, 64, 65, 1000} {
		var got []int
		err := encodeEach(n, func(i int) ([]byte, error) {
			if i%7 == 0 {
				runtime.Gosched()
			}
			return []byte{byte(i)}, nil
		}, func(i int, b []byte) {
			if b[0] != byte(i) {
				t.Fatalf("item %d got the bytes of another", i)
			}
			got = append(got, i)
		})
		if err != nil || len(got) != n {
			t.Fatalf("n=%d: wrote %d items, err %v", n, len(got), err)
		}
		for i, x := range got {
			if x != i {
				t.Fatalf("n=%d: item %d written at %d", n, x, i)
			}
		}
	}
	wrote := 0
	err := encodeEach(500, func(i int) ([]byte, error) {
		if i == 200 {
			return nil, errors.New("boom")
		}
		return nil, nil
	}, func(int, []byte) { wrote++ })
	if err == nil || wrote != 200 {
		t.Errorf("an error at item 200: err %v after %d written, want boom after 200", err, wrote)
	}
}
