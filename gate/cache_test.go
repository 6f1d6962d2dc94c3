package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/effectlint/effectlint/transcripts"
)

// WithCache changes no decision: the same reports with no cache, a cold
// and a warm one, and a cache folder that cannot be written (which only
// falls back to reading).
func TestCheck_TheCacheChangesNoDecision(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	reqs := []Request{
		{Task: "t2", Checkpoint: Send, Paths: []string{incident}},
		{Task: "t1", Checkpoint: Resume, Paths: []string{incident}},
		{Task: "t9", Checkpoint: Picker, Paths: []string{incident}},
	}
	answer := func(opts ...Option) []string {
		g, err := New(context.Background(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range reqs {
			d := g.Check(context.Background(), r)
			b, _ := json.Marshal(d.CheckReport)
			out = append(out, string(b))
		}
		return out
	}
	want := answer()
	dir := t.TempDir()
	_, miss0 := transcripts.CacheUse()
	for _, c := range []struct {
		name string
		opt  Option
	}{
		{"cold", WithCache(dir)}, {"warm", WithCache(dir)}, {"unwritable", WithCache(filepath.Join(blocker, "cache"))}, {"off", WithCache("")},
	} {
		got := answer(c.opt)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s cache: check %+v\nwithout: %s\nwith:    %s", c.name, reqs[i], want[i], got[i])
			}
		}
	}
	if served, miss := transcripts.CacheUse(); served == 0 || miss == miss0 {
		t.Fatalf("the cache was not used (served %d, misses %d)", served, miss)
	}
}
