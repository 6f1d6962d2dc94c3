package report

import (
	"bytes"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
)

// The JSON report is written a key scope at a time; the bytes are
// encoding/json's.
func TestJSONAnalyze_SameAsOneEncoding(t *testing.T) {
	ev := []Evidence{{TS: "2026-11-30T07:00:00Z", Task: "t<1>", Type: "send_fired", Class: "crossing", File: "a&b.jsonl", Line: 3}}
	for _, keys := range [][]KeyScope{nil, {}, {{Key: "k1", Tasks: []TaskSummary{}, Evidence: ev}},
		{{Key: "k1", Destination: analyzer.Destination{Provider: "slack", ID: "C1"}, Evidence: ev}, {Key: "k2\u2028"}}} {
		r := &Report{Version: Version, Tool: CurrentTool(), Keys: keys, Skipped: []string{}}
		var want, got bytes.Buffer
		if err := writeJSON(&want, r); err != nil {
			t.Fatal(err)
		}
		if err := (jsonRenderer{}).Analyze(&got, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("streamed:\n%s\nencoding/json:\n%s", got.String(), want.String())
		}
	}
}
