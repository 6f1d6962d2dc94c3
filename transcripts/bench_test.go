package transcripts

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/effectlint/effectlint/internal/bench"
	"github.com/effectlint/effectlint/internal/corpus"
)

// Benchmarks of reading (scripts/bench.sh runs them; `go test` does not).
// The corpus is internal/corpus's, sized by EFFECTLINT_BENCH_TASKS,
// EFFECTLINT_BENCH_EVENTS and EFFECTLINT_BENCH_OUTPUT_BYTES, or the
// directory EFFECTLINT_BENCH_DIR.

func benchCorpus(b *testing.B, format string) (dir string, files []string, bytes int64) {
	b.Helper()
	dir = os.Getenv("EFFECTLINT_BENCH_DIR")
	if dir == "" || format != corpus.Native {
		var err error
		if dir, err = corpus.Cached(corpus.BenchConfig(format)); err != nil {
			b.Fatal(err)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !IsTranscriptName(d.Name()) {
			return err
		}
		info, err := d.Info()
		files, bytes = append(files, p), bytes+info.Size()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return dir, files, bytes
}

// BenchmarkRead reads a corpus into events on every core, keeping every
// field (as facts and runs with users' rules do) and only the fields SPEC
// names (as analyze and check without them do).
func BenchmarkRead(b *testing.B) {
	for _, format := range []string{corpus.Native, corpus.ClaudeCode} {
		for _, lean := range []bool{false, true} {
			name := format + "/all-fields"
			if lean {
				name = format + "/spec-fields-only"
			}
			b.Run(name, func(b *testing.B) { benchRead(b, format, Options{SpecFieldsOnly: lean}) })
		}
	}
}

func benchRead(b *testing.B, format string, opt Options) {
	dir, _, size := benchCorpus(b, format)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := Read([]string{dir}, opt, func(Event) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// BenchmarkGJSONScan is the bare scan analyze is measured against
// (internal/bench.GJSONScan): every line of every native file, every
// top-level field extracted with one gjson ForEach, one goroutine.
func BenchmarkGJSONScan(b *testing.B) {
	_, files, size := benchCorpus(b, corpus.Native)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		fields, sink, err := bench.GJSONScan(files)
		if err != nil {
			b.Fatal(err)
		}
		if fields == 0 || sink == 0 {
			b.Fatal("nothing scanned")
		}
	}
}
