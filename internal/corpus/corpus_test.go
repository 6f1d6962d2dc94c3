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

// Every shape writes the tasks asked for, the same bytes twice, and the
// shape shows: families have parents, shared destinations repeat.
func TestWrite_Shapes(t *testing.T) {
	for name, sh := range Shapes {
		c := Config{Tasks: 200, Events: 3000, OutputBytes: 100, Shape: sh}
		a, b := t.TempDir(), t.TempDir()
		sa, err := Write(a, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Write(b, c); err != nil {
			t.Fatal(err)
		}
		ta, tb := tree(t, a), tree(t, b)
		if sa.Tasks != 200 || len(ta) != len(tb) {
			t.Fatalf("%s: %d tasks, %d vs %d files", name, sa.Tasks, len(ta), len(tb))
		}
		all := []byte{}
		for n, content := range ta {
			if !bytes.Equal(content, tb[n]) {
				t.Fatalf("%s: %s differs between two runs", name, n)
			}
			all = append(all, content...)
		}
		if sh.Family > 1 && !bytes.Contains(all, []byte(`"type":"task_spawned"`)) {
			t.Errorf("%s: no family", name)
		}
		if sh.Foreign > 0 && len(tree(t, filepath.Join(a, "claude-code"))) == 0 {
			t.Errorf("%s: no foreign files", name)
		}
		if sh.Redeliveries > 0 && !bytes.Contains(all, []byte(`"type":"authorization"`)) {
			t.Errorf("%s: no redelivery", name)
		}
		if sh.Delegated > 0 && !bytes.Contains(all, []byte(`"relation":"delegated"`)) {
			t.Errorf("%s: no delegated worker", name)
		}
	}
}
