package transcripts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/effectlint/effectlint/transcripts/cache"
	"pgregory.net/rapid"
)

// The lines the cache tests write: every kind of line the native reader
// treats differently (fast path, slow path, problems, unknown types, nested
// and numeric fields, long text, blank lines, CRLF, a too-long line).
var cacheLines = []string{
	`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"root"}`,
	`{"ts":"2026-11-30T07:00:01+02:00","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1","title":"#a"},"content":{"sha256":"` + strings.Repeat("ab", 32) + `"}}`,
	`{"ts":"2026-11-30T07:00:02.5Z","task":"t1","type":"gate_check","checkpoint":"send","decision":"allow"}`,
	`{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"send_fired"}`,
	`{"ts":"2026-11-30T07:00:04Z","task":"t2","type":"response","ok":true,"status":200,"extra":[1,2.5,{"x":null,"y":false}]}`,
	`{"ts":"2026-11-30T07:00:05Z","task":"t2","type":"tool_output","output":"` + strings.Repeat("x", 300) + `"}`,
	`{"ts":"2026-11-30T07:00:06Z","task":"t3","type":"Send_Fired"}`,
	`{"ts":"2026-11-30T07:00:07Z","task":"t3","type":"send_fi`,
	`not json at all`,
	``,
	`   `,
	`{"ts":"2026-11-30T07:00:08Z","task":"t4","type":"ui_changed","detail":"a\"b\u00e9"}` + "\r",
	`{"ts":"2026-11-30T07:00:09Z","task":"t4","type":"weird","a":1,"a":2}`,
	`{"ts":"2026-11-30T07:00:10Z","task":"t5","type":"readback","result":"maybe"}`,
	`{"ts":"2026-11-30T07:00:11Z","task":"t5","type":"status","label":"not_sent","n":1e999999}`,
	`{"ts":"2026-11-30T07:00:12Z","task":"t6","type":"interrupted","reason":"overnight","blob":"` + strings.Repeat("y", 5000) + `"}`,
}

// tb is what the tests and rapid's checks share.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// dump renders everything a Read gave, so two reads compare as text.
func dump(t tb, res Result, evs []Event) string {
	t.Helper()
	var b strings.Builder
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(j)
	for _, in := range res.Inputs {
		fmt.Fprintf(&b, "\n%s records=%d omittedFrom=%d notices=%q", in.Path, in.Records, in.OmittedFrom, in.Notices)
	}
	for _, e := range evs {
		f, err := json.Marshal(e.Fields)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n%s:%d %s %s %s %s nil=%t %s", e.File, e.Line, e.TS.String(), e.Task, e.Type, e.Source, e.Fields == nil, f)
	}
	return b.String()
}

func readWith(t tb, paths []string, opt Options) string {
	t.Helper()
	var mu sync.Mutex
	var evs []Event
	res, err := Read(paths, opt, func(e Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() })
	if err != nil {
		return "error: " + err.Error()
	}
	return dump(t, res, evs)
}

// cacheTrace counts how the cache served each read.
type cacheCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func traceCache(t *testing.T) *cacheCounts {
	c := &cacheCounts{n: map[string]int{}}
	cacheTrace = func(path, how string) { c.mu.Lock(); c.n[how]++; c.mu.Unlock() }
	t.Cleanup(func() { cacheTrace = nil })
	return c
}

func (c *cacheCounts) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// same reads paths with and without the cache (both option sets) and
// fails when anything differs.
func same(t tb, step string, paths []string, store Cache) {
	t.Helper()
	for _, spec := range []bool{false, true} {
		for _, maxProblems := range []int{0, 2} {
			opt := Options{SpecFieldsOnly: spec, MaxProblems: maxProblems, MaxLineBytes: 4096}
			want := readWith(t, paths, opt)
			opt.Cache = store
			if got := readWith(t, paths, opt); got != want {
				t.Fatalf("%s (spec=%t, maxProblems=%d): the cache changed the result\nwithout:\n%s\nwith:\n%s", step, spec, maxProblems, want, got)
			}
		}
	}
}

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendBytes(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// rewriteSameSizeAndTime changes one byte in place and sets the times
// back: size and mtime stay what they were.
func rewriteSameSizeAndTime(t *testing.T, path string, at int, b byte) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{b}, int64(at)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(path)
	if st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("size/mtime not kept: %v %v", st, st2)
	}
}

func TestCache_SameResultsUnderMutations(t *testing.T) {
	// Writes are spaced beyond the file system's tick, so that a rewrite
	// keeping the size and the times set back is not told by them.
	for _, spaced := range []bool{false, true} {
		t.Run(fmt.Sprint("spaced=", spaced), func(t *testing.T) {
			pause := func() {
				if spaced {
					time.Sleep(20 * time.Millisecond)
				}
			}
			dir := t.TempDir()
			store := cache.Open(t.TempDir())
			counts := traceCache(t)
			a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
			writeLines(t, a, cacheLines[:5]...)
			writeLines(t, b, cacheLines[5:]...)
			paths := []string{dir}
			same(t, "cold", paths, store)
			same(t, "warm", paths, store)
			if n := counts.take(); n["miss"] == 0 || n["content"] == 0 {
				t.Fatalf("the cache was not used: %v", n)
			}
			pause()
			appendBytes(t, a, cacheLines[5]+"\n")
			same(t, "append a line", paths, store)
			if n := counts.take(); n["content"] == 0 {
				t.Fatalf("an appended file was not read from its cached prefix: %v", n)
			}
			pause()
			appendBytes(t, a, cacheLines[1][:40])
			same(t, "append half a line", paths, store)
			pause()
			appendBytes(t, a, cacheLines[1][40:]+"\n")
			same(t, "finish the line", paths, store)
			pause()
			rewriteSameSizeAndTime(t, a, 20, 'X')
			same(t, "rewrite a byte, same size and mtime", paths, store)
			pause()
			rewriteSameSizeAndTime(t, b, 0, ' ')
			same(t, "rewrite the first byte, same size and mtime", paths, store)
			pause()
			if err := os.Truncate(a, 100); err != nil {
				t.Fatal(err)
			}
			same(t, "truncate mid-line", paths, store)
			pause()
			writeLines(t, a, cacheLines[:5]...)
			same(t, "rewrite whole", paths, store)
			pause()
			appendBytes(t, a, strings.Repeat("z", 5000)) // too long, no newline
			same(t, "append a too-long half line", paths, store)
			pause()
			appendBytes(t, a, "\n"+cacheLines[3]+"\n")
			same(t, "finish it", paths, store)
			pause()
			other := filepath.Join(t.TempDir(), "other.jsonl")
			writeLines(t, other, cacheLines[2:9]...)
			if err := os.Remove(a); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, a); err != nil {
				t.Fatal(err)
			}
			same(t, "replace by a symlink", paths, store)
			pause()
			appendBytes(t, other, cacheLines[0]+"\n")
			same(t, "append to the link's target", paths, store)
			pause()
			if err := os.Remove(b); err != nil {
				t.Fatal(err)
			}
			same(t, "delete", paths, store)
			pause()
			writeLines(t, b)
			same(t, "recreate empty", paths, store)
			pause()
			writeLines(t, b, cacheLines[0])
			same(t, "write one line", paths, store)
			corruptEntries(t, store.Dir())
			same(t, "corrupt entries", paths, store)
			same(t, "after corrupt entries", paths, store)
		})
	}
}

// corruptEntries damages every entry file in its own way: a flipped byte,
// a cut, a foreign layout, an empty file.
func corruptEntries(t *testing.T, dir string) {
	t.Helper()
	i := 0
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		switch i % 4 {
		case 0:
			b[len(b)/2] ^= 0x40
		case 1:
			b = b[:len(b)-3]
		case 2:
			b[8]++ // the layout
		case 3:
			b = nil
		}
		os.WriteFile(p, b, 0o600)
		i++
		return nil
	})
	if i == 0 {
		t.Fatal("no cache entry was written")
	}
}

// An entry whose payload is a valid envelope but whose content is of
// another reading (a payload from another file moved into place) is no
// entry: the variant it repeats must match.
func TestCache_ForeignEntryIsNotTrusted(t *testing.T) {
	dir := t.TempDir()
	store := cache.Open(t.TempDir())
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeLines(t, a, cacheLines[:5]...)
	writeLines(t, b, cacheLines[5:]...)
	same(t, "cold", []string{a, b}, store)
	var files []string
	filepath.Walk(store.Dir(), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	if len(files) < 2 {
		t.Fatalf("entries: %v", files)
	}
	// Each entry file takes the next one's bytes: whole envelopes, each
	// of another file or other options.
	var contents [][]byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		contents = append(contents, b)
	}
	for i, f := range files {
		os.WriteFile(f, contents[(i+1)%len(files)], 0o600)
	}
	counts := traceCache(t)
	same(t, "swapped entries", []string{a, b}, store)
	if n := counts.take(); n["content"] != 0 {
		t.Fatalf("a swapped entry was used: %v", n)
	}
}

// A warm read of an unchanged file is served, its prefix proven by the
// hash of its bytes (metadata proves nothing).
func TestCache_UnchangedFileIsProvenByContent(t *testing.T) {
	dir := t.TempDir()
	store := cache.Open(t.TempDir())
	a := filepath.Join(dir, "a.jsonl")
	writeLines(t, a, cacheLines[:5]...)
	counts := traceCache(t)
	same(t, "cold", []string{a}, store)
	same(t, "warm", []string{a}, store)
	if n := counts.take(); n["content"] == 0 {
		t.Fatalf("an unchanged file was not served by the hash of its prefix: %v", n)
	}
}

// A cache directory that cannot be written changes nothing but speed.
func TestCache_UnwritableDirectoryFallsBackToReading(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	writeLines(t, a, cacheLines...)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	store := cache.Open(filepath.Join(blocker, "cache")) // under a file: nothing can be made
	same(t, "unwritable", []string{a}, store)
	same(t, "again", []string{a}, store)
}

// Concurrent reads writing the same entries must not corrupt each other.
func TestCache_ConcurrentReadsWritingTheCache(t *testing.T) {
	dir := t.TempDir()
	store := cache.Open(t.TempDir())
	a := filepath.Join(dir, "a.jsonl")
	writeLines(t, a, cacheLines...)
	want := readWith(t, []string{dir}, Options{SpecFieldsOnly: true})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if g == 0 && i%3 == 0 {
					appendBytes(t, a, cacheLines[3]+"\n")
				}
				got := readWith(t, []string{dir}, Options{SpecFieldsOnly: true, Cache: store})
				if !strings.HasPrefix(got, "{") {
					errs <- got
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	_ = want
	same(t, "after concurrent writers", []string{dir}, store)
}

// Any sequence of mutations gives, with the cache, what reading without
// it gives.
func TestCache_PropertyAnyMutationSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("property test")
	}
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		store := cache.Open(t.TempDir())
		names := []string{"a.jsonl", "b.jsonl"}
		for _, n := range names {
			writeLines(t, filepath.Join(dir, n), cacheLines[0])
		}
		spaced := rapid.Bool().Draw(rt, "spaced")
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			p := filepath.Join(dir, rapid.SampledFrom(names).Draw(rt, "file"))
			if spaced {
				time.Sleep(15 * time.Millisecond)
			}
			switch op := rapid.IntRange(0, 6).Draw(rt, "op"); op {
			case 0: // append whole lines
				k := rapid.IntRange(1, 4).Draw(rt, "lines")
				var b strings.Builder
				for j := 0; j < k; j++ {
					b.WriteString(rapid.SampledFrom(cacheLines).Draw(rt, "line") + "\n")
				}
				appendBytes(t, p, b.String())
			case 1: // append a part of a line
				l := rapid.SampledFrom(cacheLines).Draw(rt, "line") + "\n"
				appendBytes(t, p, l[:rapid.IntRange(0, len(l)).Draw(rt, "cut")])
			case 2: // truncate
				if st, err := os.Stat(p); err == nil && st.Size() > 0 {
					os.Truncate(p, rapid.Int64Range(0, st.Size()).Draw(rt, "size"))
				}
			case 3: // rewrite one byte, same size and mtime
				if st, err := os.Stat(p); err == nil && st.Size() > 0 {
					rewriteSameSizeAndTime(t, p, int(rapid.Int64Range(0, st.Size()-1).Draw(rt, "at")), rapid.SampledFrom([]byte(`{}" x1\n`)).Draw(rt, "byte"))
				}
			case 4: // replace by a symlink
				target := filepath.Join(t.TempDir(), "t.jsonl")
				writeLines(t, target, rapid.SampledFrom(cacheLines).Draw(rt, "line"))
				os.Remove(p)
				os.Symlink(target, p)
			case 5: // delete
				os.Remove(p)
			case 6: // corrupt the cache
				if rapid.Bool().Draw(rt, "corrupt") {
					filepath.Walk(store.Dir(), func(q string, info os.FileInfo, err error) error {
						if err == nil && !info.IsDir() {
							b, _ := os.ReadFile(q)
							if len(b) > 0 {
								b[rapid.IntRange(0, len(b)-1).Draw(rt, "flip")] ^= 1
								os.WriteFile(q, b, 0o600)
							}
						}
						return nil
					})
				}
			}
			same(t, fmt.Sprintf("step %d", i), []string{dir}, store)
		}
	})
}

func init() {
	// The parallel reader is the one a check uses on several cores.
	_ = runtime.GOMAXPROCS(0)
}

// Times come back in the zone a fresh parse gives them, whatever zone the
// process that wrote the entry had: time.Parse picks Local for an offset
// Local has, and so must the cache.
func TestCache_TimesKeepTheZoneOfAFreshRead(t *testing.T) {
	dir := t.TempDir()
	store := cache.Open(t.TempDir())
	a := filepath.Join(dir, "a.jsonl")
	writeLines(t, a, `{"ts":"2026-11-30T07:00:00+02:00","task":"t1","type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"send_fired"}`, `{"ts":"2026-11-30T07:00:00+00:00","task":"t1","type":"send_fired"}`)
	defer func(l *time.Location) { time.Local = l }(time.Local)
	counts := traceCache(t)
	// (Each a Location of its own, as a process's Local is: never the UTC
	// value itself, which no process has as Local.)
	for _, loc := range []*time.Location{time.FixedZone("UTC", 0), time.FixedZone("CEST", 2*3600), time.FixedZone("GMT", 0)} {
		time.Local = loc
		same(t, "Local "+loc.String(), []string{a}, store)
	}
	if n := counts.take(); n["content"] == 0 {
		t.Fatalf("the cache was not used: %v", n)
	}
}
