package report

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/corpus"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"
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
	src, err := os.ReadFile("../rules.rego")
	if err != nil {
		b.Fatal(err)
	}
	e, err := policy.New(context.Background(), policy.Module{Name: "rules.rego", Source: string(src)})
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
