package analyzer

import (
	"encoding/json"
	"testing"
	"time"
)

func sameAsEncodingJSON(t *testing.T, m map[string]any) {
	t.Helper()
	want, err := json.Marshal(m)
	if err != nil {
		return
	}
	if got := NewFields(m); string(got) != string(want) {
		t.Fatalf("NewFields(%#v) = %s, encoding/json writes %s", m, got, want)
	}
}

func TestNewFields_AsEncodingJSONWritesThem(t *testing.T) {
	for _, m := range []map[string]any{
		{},
		{"a": "x", "b": json.Number("-1.5e+3"), "c": true, "d": false, "e": nil},
		{"<&>": "\u2028\u2029\x00\x1f\b\f\n\r\t\"\\/é😀\xff\xfe", "z": json.Number("0")},
		{"n": json.Number("01")}, {"n": json.Number("1.")}, {"n": json.Number("-")}, {"n": json.Number("1e")},
		{"nested": map[string]any{"k": []any{"v", json.Number("2")}}},
	} {
		sameAsEncodingJSON(t, m)
	}
}

func FuzzNewFields(f *testing.F) {
	f.Add("k", "v", "12.5e-3", true)
	f.Add("<", "\xff\u2028", "-0", false)
	f.Fuzz(func(t *testing.T, k, v, n string, b bool) {
		defer within(t, time.Second)()
		sameAsEncodingJSON(t, map[string]any{k: v, k + "n": json.Number(n), k + "b": b, k + "z": nil})
	})
}
