package transcripts

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadNative: no input may panic the reader, and every non-blank line
// is either an event or a problem (nothing is silently lost). Seeds are the
// scenario logs; `go test` runs them as normal tests.
func FuzzReadNative(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/scenarios/*/*.jsonl")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(good + "\n" + `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"ui_ch`))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var events int
		res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(data), MaxLineBytes: 4096}, func(Event) { events++ })
		if err != nil {
			t.Fatal(err)
		}
		in := res.Inputs[0]
		if in.Events != events {
			t.Fatalf("input counts %d events, emitted %d", in.Events, events)
		}
		if events == 0 && len(in.Problems) == 0 {
			t.Fatalf("no events and no problem for %q", data)
		}
		for _, p := range in.Problems {
			if p.Line < 0 || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}

// FuzzReadDocuments: no JSON document (OpenAI, OpenTelemetry, ...) may
// panic a reader, and every event is counted by its input. Seeds are the
// scenario documents and the OpenTelemetry corpus when it is present.
func FuzzReadDocuments(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/scenarios/*/*.json")
	corpus, _ := filepath.Glob("../../shared/corpus/otel/*/*.json")
	top, _ := filepath.Glob("../../shared/corpus/otel/*.json")
	for _, s := range append(append(seeds, corpus...), top...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"send","arguments":"{"}}]},{"role":"tool","tool_call_id":"c","content":null}]`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AA==","spanId":1,"parentSpanId":1,"name":"invoke_agent"}]}]}]}` + "\n" + `{"resourceSpans":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var events int
		res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(data), MaxLineBytes: 1 << 16}, func(Event) { events++ })
		if err != nil {
			t.Fatal(err)
		}
		in := res.Inputs[0]
		if in.Events != events {
			t.Fatalf("input counts %d events, emitted %d", in.Events, events)
		}
		for _, p := range in.Problems {
			if p.Line < 0 || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}
