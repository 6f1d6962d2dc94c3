package report

import (
	"context"
	"io"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/corpus"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"

	"github.com/effectlint/effectlint/policy/builtin"
)

// BenchmarkRender builds the report model and renders it, for the
// benchmark corpus (as transcripts' BenchmarkRead), in each format.
func BenchmarkRender(b *testing.B) {
	dir, err := corpus.Cached(corpus.BenchConfig(corpus.Native))
	if err != nil {
		b.Fatal(err)
	}
	bl := analyzer.New()
	res, err := transcripts.Read([]string{dir}, transcripts.Options{}, bl.Add)
	if err != nil {
		b.Fatal(err)
	}
	f := bl.Build(res)
	e, err := policy.New(context.Background(), policy.Module{Name: builtin.RulesName, Source: builtin.Rules})
	if err != nil {
		b.Fatal(err)
	}
	a, err := e.Analyze(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif", "markdown", "html"} {
		b.Run(format, func(b *testing.B) {
			r, err := Get(format, Options{Color: "never"})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rep, err := Build(f, a, e.Rules(), "high")
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Analyze(io.Discard, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
