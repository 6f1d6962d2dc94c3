package policy

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/corpus"
)

// BenchmarkEvaluate runs the built-in rules (analyze) over facts of
// native corpora of growing size, keys and tasks scaled together (a task
// has about 46 facts). EFFECTLINT_BENCH_FACTS lists the sizes (default
// 10000,20000,40000); scripts/bench.sh goes up to 10⁶ and compares each
// size with its double.
func BenchmarkEvaluate(b *testing.B) {
	sizes := []int{10000, 20000, 40000}
	if v := os.Getenv("EFFECTLINT_BENCH_FACTS"); v != "" {
		sizes = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	e := builtinEngine(b)
	for _, n := range sizes {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			f := evalFacts(b, n)
			facts := 0
			for _, s := range f.Scopes {
				facts += len(s.Facts)
			}
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := e.Analyze(context.Background(), f); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time, next to the wall time: other processes on the
			// machine change the one, hardly the other.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(facts), "facts")
			b.ReportMetric(float64(len(f.Scopes)), "scopes")
		})
	}
}

// evalFacts builds facts from a native corpus of about n facts (text is
// short: evaluation never sees it).
func evalFacts(b *testing.B, n int) *analyzer.Facts {
	b.Helper()
	tasks := max(n/46, 1)
	dir, err := corpus.Cached(corpus.Config{Tasks: tasks, Events: tasks * 50, OutputBytes: 64, Format: corpus.Native, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return factsOf(b, dir)
}

// BenchmarkCheck asks the gate once over the benchmark corpus (as
// transcripts' BenchmarkRead): the policy's share of check.
func BenchmarkCheck(b *testing.B) {
	dir, err := corpus.Cached(corpus.BenchConfig(corpus.Native))
	if err != nil {
		b.Fatal(err)
	}
	f := factsOf(b, dir)
	e := builtinEngine(b)
	f.Query = f.Ask("w0000500", "send", analyzer.IntentSpec{})
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Check(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateShapes runs the built-in rules over native corpora of
// each shape (internal/corpus.Shapes) at growing sizes, so that a term
// growing with more than one scope's facts (keys sharing a destination,
// families of tasks) shows as a ratio above 2 between a size and its
// double. EFFECTLINT_BENCH_SHAPES (default: every shape) and
// EFFECTLINT_BENCH_TASKS_SERIES (default 500,1000,2000 tasks) choose.
func BenchmarkEvaluateShapes(b *testing.B) {
	shapes := []string{"friendly", "families", "hot-destinations", "messy"}
	if v := os.Getenv("EFFECTLINT_BENCH_SHAPES"); v != "" {
		shapes = strings.Split(v, ",")
	}
	sizes := []int{500, 1000, 2000}
	if v := os.Getenv("EFFECTLINT_BENCH_TASKS_SERIES"); v != "" {
		sizes = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	e := builtinEngine(b)
	for _, name := range shapes {
		sh, ok := corpus.Shapes[name]
		if !ok {
			b.Fatalf("no shape %q", name)
		}
		for _, n := range sizes {
			b.Run(fmt.Sprintf("shape=%s/tasks=%d", name, n), func(b *testing.B) {
				dir, err := corpus.Cached(corpus.Config{Tasks: n, Events: n * 50, OutputBytes: 64, Format: corpus.Native, Seed: 1, Shape: sh})
				if err != nil {
					b.Fatal(err)
				}
				f := factsOf(b, dir)
				b.ResetTimer()
				cpu := cpuTime()
				for b.Loop() {
					if _, err := e.Analyze(context.Background(), f); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(len(f.Scopes)), "scopes")
				b.ReportMetric(float64(evaluationWork(b, e, f)), "exprs/op")
			})
		}
	}
}

// evaluationWork counts the expressions OPA evaluates to analyze f, part by
// part as Engine.Analyze does: the rules' work, which the machine's load
// does not change. On this shared machine the time of the same rules over
// the same facts varied by up to 2× between runs; this count does not vary.
func evaluationWork(b *testing.B, e *Engine, f *analyzer.Facts) int {
	b.Helper()
	c := &evalCounter{}
	gs := groups(f)
	byKey := authorizationsByKey(f)
	for j := 0; j <= len(gs); j++ {
		p := e.wholePart(f)
		if j > 0 {
			p = groupPart(f, gs[j-1], e.scopeTypes, byKey)
		}
		if _, err := e.analyze.Eval(context.Background(), rego.EvalParsedInput(p.value()), rego.EvalQueryTracer(c)); err != nil {
			b.Fatal(err)
		}
	}
	return c.n
}
