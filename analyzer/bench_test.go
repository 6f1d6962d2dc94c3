package analyzer

import (
	"testing"

	"github.com/effectlint/effectlint/internal/corpus"
	"github.com/effectlint/effectlint/transcripts"
)

// BenchmarkExtract builds the facts (tasks, segments, keys, scopes) from
// events already read, the analyzer's share of analyze. The corpus is
// internal/corpus's, sized as transcripts' BenchmarkRead.
func BenchmarkExtract(b *testing.B) {
	dir, err := corpus.Cached(corpus.BenchConfig(corpus.Native))
	if err != nil {
		b.Fatal(err)
	}
	var events []transcripts.Event
	res, err := transcripts.Read([]string{dir}, transcripts.Options{}, func(e transcripts.Event) { events = append(events, e) })
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		bl := New()
		for _, e := range events {
			bl.Add(e)
		}
		if f := bl.Build(res); len(f.Scopes) == 0 {
			b.Fatal("no scopes")
		}
	}
	b.ReportMetric(float64(len(events)), "events")
}
