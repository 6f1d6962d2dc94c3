package report

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Wrapping breaks at spaces only: a timestamp, a flag, a UUID or a path is
// never cut, even when it is longer than the width (it then has a line of
// its own), and the words come back in order.
func TestWrapWords_NeverBreaksInsideATokenAndKeepsLongTokensWhole(t *testing.T) {
	tokens := []string{"task", "3f2a9c1e-4b6d-4c1e-9a0b-1c2d3e4f5a6b", "crossed", "at", "2026-11-30T08:10:07.123+01:00",
		"after", "--fail-on", "high;", "see", "/home/someone/incidents/2026-11-30/session-with-a-long-name/t2.jsonl:17",
		"and", "re-run-with-max-line-bytes=1048576"}
	text := strings.Join(tokens, " ")
	for _, w := range []int{20, 24, 33, 40, 60, 80} {
		lines := wrapWords(text, w)
		var got []string
		for _, l := range lines {
			f := strings.Fields(l)
			if ansi.StringWidth(l) > w && len(f) != 1 {
				t.Errorf("width %d: line %q is %d cells with %d words", w, l, ansi.StringWidth(l), len(f))
			}
			got = append(got, f...)
		}
		if strings.Join(got, " ") != text {
			t.Errorf("width %d: words changed:\n got %q\nwant %q", w, strings.Join(got, " "), text)
		}
	}
}

// Two spaces between columns stay two spaces within a line.
func TestWrapWords_KeepsSpacesWithinALine(t *testing.T) {
	if got := wrapWords("t2  sibling · ended", 80); len(got) != 1 || got[0] != "t2  sibling · ended" {
		t.Errorf("got %q", got)
	}
	if got := wrapWords("aaaa  bbbb", 20); len(got) != 1 || got[0] != "aaaa  bbbb" {
		t.Errorf("got %q", got)
	}
}

func TestPlainList_ReadsAsWords(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := plainList(c.in); got != c.want {
			t.Errorf("plainList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Long ids get the shortest unique prefix of at least eight characters;
// short ids are their own label; no two ids share one.
func TestTaskLabels_ShortestUniquePrefixOfAtLeastEight(t *testing.T) {
	a := "3f2a9c1e-4b6d-4c1e-9a0b-1c2d3e4f5a6b"
	b := "3f2a9c1e-4b7d-4c1e-9a0b-1c2d3e4f5a6b" // shares 11 characters with a
	c := "9d0e8f7a-0000-4000-8000-000000000000"
	l := taskLabels([]string{a, b, c, "t1", "worker-12"})
	want := map[string]string{a: "3f2a9c1e-4b6", b: "3f2a9c1e-4b7", c: "9d0e8f7a-000", "t1": "t1", "worker-12": "worker-12"}
	for id, w := range want {
		if l[id] != w {
			t.Errorf("label of %s = %q, want %q", id, l[id], w)
		}
	}
	alone := taskLabels([]string{a, c})
	if alone[a] != "3f2a9c1e" || alone[c] != "9d0e8f7a" {
		t.Errorf("labels %v, want the first eight characters", alone)
	}
	// Session/agent ids: each opaque part is cut after its word prefix;
	// ids with no opaque part stay whole however long.
	s1, s2 := "5c1f0a2b-1111-4111-8111-111111111111/agent-a1b2c3d4e5f60718", "5c1f0a2b-1111-4111-8111-111111111111/agent-a1b2c3ffff000000"
	sl := taskLabels([]string{s1, s2, "5c1f0a2b-1111-4111-8111-111111111111", "conv-weekly-report"})
	if sl[s1] != "5c1f0a2b/agent-a1b2c3d4" || sl[s2] != "5c1f0a2b/agent-a1b2c3ff" || sl["conv-weekly-report"] != "conv-weekly-report" {
		t.Errorf("labels %v", sl)
	}
	// An id that is another's label is never used as a label.
	if l := taskLabels([]string{"abcdefgh", "abcdefghijklmnopqrstuvwxyz"}); l["abcdefghijklmnopqrstuvwxyz"] == "abcdefgh" {
		t.Errorf("label %q is another task's id", l["abcdefghijklmnopqrstuvwxyz"])
	}
}

// wrapWordsBefore is wrapWords as it was before the paragraph's rest was
// sliced instead of rebuilt (quadratic in a paragraph's length): the
// oracle the property test holds the new one to.
func wrapWordsBefore(text string, w int) []string {
	w = max(w, 20)
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		var line strings.Builder
		lineW := 0
		rest := para
		for rest != "" {
			gap := len(rest) - len(strings.TrimLeft(rest, " "))
			sep, after := rest[:gap], rest[gap:]
			word, tail, _ := strings.Cut(after, " ")
			if tail != "" || strings.HasSuffix(after, " ") {
				tail = " " + tail
			}
			rest = tail
			if word == "" {
				continue
			}
			ww := ansi.StringWidth(word)
			switch {
			case lineW == 0:
				line.WriteString(sep + word)
				lineW = ansi.StringWidth(sep) + ww
			case lineW+len(sep)+ww <= w:
				line.WriteString(sep + word)
				lineW += len(sep) + ww
			default:
				lines = append(lines, line.String())
				line.Reset()
				line.WriteString(word)
				lineW = ww
			}
		}
		lines = append(lines, line.String())
	}
	return lines
}

func TestWrapWords_SameLinesAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 15))
	atoms := []string{" ", "  ", "   ", "\n", "a", "bb", "ccccccccccccccccccccccccc", "·", "漢字", "\x1b[1mB\x1b[0m", "\t", "x:1,"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		text, w := b.String(), rng.IntN(60)
		if got, want := wrapWords(text, w), wrapWordsBefore(text, w); !slices.Equal(got, want) {
			t.Fatalf("wrapWords(%q, %d) = %q, before %q", text, w, got, want)
		}
	}
}

// A paragraph of a check that lists 100k crossings: the bytes allocated
// stay a few times the text (they were about the square of it: 40k words
// of 25 bytes rebuilt a 1 MB rest each).
func TestWrapWords_LinearInAParagraph(t *testing.T) {
	text := strings.Repeat("run.zip/0-trace.trace:17, ", 40000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lines := wrapWords(text, 100)
	runtime.ReadMemStats(&after)
	if len(lines) < 10000 {
		t.Fatalf("%d lines", len(lines))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(20*len(text)) {
		t.Errorf("%d bytes allocated for a %d-byte paragraph", got, len(text))
	}
}
