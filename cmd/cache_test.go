package cmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
	"github.com/effectlint/effectlint/transcripts"
)

// The cache of parsed facts never changes a verdict (SPEC §5): every
// command gives the same bytes and exit code without it (--no-cache), with
// a cold cache and with a warm one.

// cacheServed counts the native logs the warm runs of sameWithCache read
// from the cache: a test whose warm runs never hit it proves nothing.
var cacheServed int64

func requireServed(t *testing.T, before int64) {
	t.Helper()
	if cacheServed == before {
		t.Fatal("no warm run was served by the cache: the comparison proves nothing")
	}
}

type outcome struct {
	out, errOut string
	code        int
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.out, o.errOut)
}

// sameWithCache runs args without the cache, then twice with the cache in
// dir, and fails on any difference.
func sameWithCache(t *testing.T, dir string, args ...string) outcome {
	t.Helper()
	do := func(flags ...string) outcome {
		a := append(append(args[:1:1], flags...), args[1:]...)
		out, errOut, code := run(t, a...)
		return outcome{out, errOut, code}
	}
	want := do("--no-cache")
	for _, pass := range []string{"cold", "warm"} {
		s0, m0 := transcripts.CacheUse()
		if got := do("--cache", dir); got != want {
			t.Fatalf("%v, %s cache: the cache changed the result\nwithout:\n%s\nwith:\n%s", args, pass, want, got)
		}
		s1, m1 := transcripts.CacheUse()
		if pass == "warm" {
			cacheServed += s1 - s0
		}
		if s1 == s0 && m1 == m0 {
			// No input was one the cache keeps (the cold run neither
			// read nor wrote an entry): a warm run would take the cold
			// run's path again, so it is not run.
			break
		}
	}
	return want
}

// checkArgsOf are the questions of a scenario: its expected checks, and
// one at each checkpoint for every task its facts name.
func checkArgsOf(t *testing.T, dir string, flags []string) [][]string {
	t.Helper()
	out, _, _ := run(t, append(append([]string{"facts"}, flags...), dir)...)
	var f struct {
		Tasks map[string]json.RawMessage `json:"tasks"`
	}
	json.Unmarshal([]byte(out), &f)
	var qs [][]string
	for task := range f.Tasks {
		for _, cp := range []string{"resume", "picker", "send"} {
			qs = append(qs, []string{"--task", task, "--checkpoint", cp})
		}
	}
	qs = append(qs, []string{"--task", "nobody-at-all"})
	return qs
}

func TestCache_SameBytesOverEveryScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario three times")
	}
	t.Setenv("COLUMNS", "100")
	root, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadDir(filepath.Join(root, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	for _, d := range dirs {
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			var exp expectation
			if b, err := os.ReadFile(filepath.Join(root, "expect", name+".json")); err == nil {
				json.Unmarshal(b, &exp)
			}
			t.Chdir(filepath.Join(root, "scenarios", name))
			with := func(args ...string) []string {
				return append(append(append(args[:1:1], exp.Flags...), args[1:]...), ".")
			}
			served := cacheServed
			o := sameWithCache(t, cacheDir, with("analyze", "--format", "json")...)
			if hasPlainNative(o.out) {
				// Only plain native logs are cached.
				defer requireServed(t, served)
			}
			sameWithCache(t, cacheDir, with("analyze", "--color", "never")...)
			sameWithCache(t, cacheDir, with("facts")...)
			for _, c := range exp.Checks {
				sameWithCache(t, cacheDir, with(append([]string{"check", "--format", "json"}, c.Args...)...)...)
			}
			for _, q := range checkArgsOf(t, ".", exp.Flags) {
				sameWithCache(t, cacheDir, with(append([]string{"check", "--format", "json"}, q...)...)...)
			}
		})
	}
}

func TestCache_SameBytesOverTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the corpus three times")
	}
	corpus := sharedtest.Path(t, "corpus")
	cacheDir := t.TempDir()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(corpus, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			sameWithCache(t, cacheDir, "analyze", "--format", "json", dir)
			sameWithCache(t, cacheDir, "facts", dir)
			qs := checkArgsOf(t, dir, nil)
			if len(qs) > 12 {
				qs = qs[:12]
			}
			for _, q := range qs {
				sameWithCache(t, cacheDir, append(append([]string{"check", "--format", "json"}, q...), dir)...)
			}
		})
	}
}

// hasPlainNative reports whether an analyze report read a native log
// that is not compressed.
func hasPlainNative(report string) bool {
	var r struct {
		Inputs []struct{ Path, Format string } `json:"inputs"`
	}
	json.Unmarshal([]byte(report), &r)
	for _, in := range r.Inputs {
		if in.Format == transcripts.FormatNative && !strings.HasSuffix(in.Path, ".gz") && !strings.HasPrefix(in.Path, "ledger:") {
			return true
		}
	}
	return false
}

// copyScenario copies a scenario of the repository into a folder of the
// test's own, to be changed.
func copyScenario(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "scenarios", name)
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A history that changes between checks, as a worker's does: each step is
// judged the same with and without the cache, and the verdicts move as
// the evidence does (the test would see a stale cache: the check after
// t1's send must stop).
func TestCache_SameVerdictsAsTheHistoryChanges(t *testing.T) {
	dir := copyScenario(t, "06-overnight-resume-duplicate")
	cacheDir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no history")
	}
	check := func(step string) outcome {
		t.Helper()
		defer requireServed(t, cacheServed)
		o := sameWithCache(t, cacheDir, "check", "--format", "json", "--task", "t-new", "--checkpoint", "send",
			"--destination", "slack/C024BE91L", "--sha256", strings.Repeat("ab", 32), dir)
		sameWithCache(t, cacheDir, "analyze", "--format", "json", dir)
		sameWithCache(t, cacheDir, "facts", dir)
		return o
	}
	before := check("as recorded")
	f := files[0]
	appendLine := func(s string) {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(s)
		fh.Close()
	}
	appendLine(`{"ts":"2026-12-01T09:00:00Z","task":"tz","type":"intent","destination":{"provider":"slack","id":"C024BE91L"},"content":{"sha256":"` + strings.Repeat("ab", 32) + `"}}` + "\n")
	appendLine(`{"ts":"2026-12-01T09:00:01Z","task":"tz","type":"send_fired"}` + "\n")
	after := check("after another task's send")
	if after.code == 0 || after == before {
		t.Fatalf("the check after another task's send must stop:\n%s", after)
	}
	appendLine(`{"ts":"2026-12-01T09:00:02Z","task":"tz","type":"respo`)
	check("half a line")
	b, _ := os.ReadFile(f)
	st, _ := os.Stat(f)
	os.WriteFile(f, []byte(strings.Replace(string(b), `"send_fired"`, `"ui_changed"`, 1)), 0o644)
	os.Chtimes(f, st.ModTime(), st.ModTime())
	check("rewritten, same size and mtime")
	os.Truncate(f, 10)
	check("truncated")
	os.Remove(f)
	check("deleted")
}

// Concurrent processes writing one cache give the answer of no cache.
func TestCache_ConcurrentProcessesWritingTheCache(t *testing.T) {
	dir := copyScenario(t, "06-overnight-resume-duplicate")
	cacheDir := t.TempDir()
	args := []string{"check", "--format", "json", "--task", "t2", "--checkpoint", "send", dir}
	wantOut, wantErr, wantCode := cli(t, append([]string{args[0], "--no-cache"}, args[1:]...)...)
	var wg sync.WaitGroup
	got := make([]outcome, 6)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o, e, c := cli(t, append([]string{args[0], "--cache", cacheDir}, args[1:]...)...)
			got[i] = outcome{o, e, c}
		}(i)
	}
	wg.Wait()
	want := outcome{wantOut, wantErr, wantCode}
	for i, g := range got {
		if g != want {
			t.Fatalf("process %d: the cache changed the result\nwithout:\n%s\nwith:\n%s", i, want, g)
		}
	}
	if o := sameWithCache(t, cacheDir, args...); o != want {
		t.Fatalf("after the concurrent writers:\n%s", o)
	}
	leftovers, _ := filepath.Glob(filepath.Join(cacheDir, "*", "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

// The default: check uses the cache under the user's cache folder;
// analyze (one pass over a corpus) only with --cache DIR.
func TestCache_OnByDefaultForCheckOptInForAnalyze(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	entries := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(home, "effectlint"), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	dir := copyScenario(t, "06-overnight-resume-duplicate")
	run(t, "analyze", "--format", "json", dir)
	if n := entries(); n != 0 {
		t.Fatalf("analyze without --cache wrote %d cache entries", n)
	}
	run(t, "check", "--task", "t2", dir)
	if n := entries(); n == 0 {
		t.Fatal("check wrote no cache entry under the default folder")
	}
}
