package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWrite_SameConfigSameBytes(t *testing.T) {
	for _, format := range []string{Native, ClaudeCode} {
		c := Config{Tasks: 60, Events: 1500, Format: format, OutputBytes: 300}
		a, b := t.TempDir(), t.TempDir()
		sa, err := Write(a, c)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := Write(b, c)
		if err != nil {
			t.Fatal(err)
		}
		ta, tb := tree(t, a), tree(t, b)
		if len(ta) == 0 || len(ta) != len(tb) || sa.Bytes != sb.Bytes || sa.Tasks != 60 {
			t.Fatalf("%s: %d vs %d files, stats %+v vs %+v", format, len(ta), len(tb), sa, sb)
		}
		for name, content := range ta {
			if !bytes.Equal(content, tb[name]) {
				t.Fatalf("%s: %s differs between two runs", format, name)
			}
		}
		if format == Native && sa.Events != 1500 {
			t.Fatalf("native: %d events, want 1500", sa.Events)
		}
	}
}
