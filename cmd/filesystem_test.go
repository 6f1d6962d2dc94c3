package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/effectlint/effectlint/report"
)

// Filesystem cases: what the commands do with paths that are not plain
// readable files. A file that cannot be read is a problem of the run (fail
// closed: every check stops); a path that does not exist is a usage error
// (exit 2, and for check that is a stop too); what a walk finds that is not
// a transcript (links to directories, FIFOs) is listed as skipped, never
// followed or opened.

const fsGood = `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"root"}
{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"task_ended","status":"completed"}
`

// fsCheck is a check of an unrelated key: on readable histories it allows.
var fsCheck = []string{"check", "--color", "never", "--task", "t-new", "--destination", "slack/CKEY", "--sha256", matrixKeySHA}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// analyzeJSON runs analyze --format json and decodes the report.
func analyzeJSON(t *testing.T, stdin string, args ...string) (report.Report, int, string) {
	t.Helper()
	out, stderr, code := runWith(t, stdin, builtinRules(t), append([]string{"analyze", "--format", "json"}, args...)...)
	var rep report.Report
	if code != ExitError || strings.HasPrefix(out, "{") { // a report, even when nothing was read
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("analyze json: %v\n%s", err, out)
		}
	}
	return rep, code, stderr
}

// wantUnreadable: the run reads the path with a problem saying has, analyze
// fails and check stops with HISTORY_UNREADABLE.
func wantUnreadable(t *testing.T, path, has string, args ...string) {
	t.Helper()
	rep, code, stderr := analyzeJSON(t, "", append(args, path)...)
	if code != ExitFindings {
		t.Fatalf("analyze exits %d (%s), want 1", code, stderr)
	}
	found := false
	for _, in := range rep.Inputs {
		for _, p := range in.Problems {
			found = found || strings.Contains(p.Message, has)
		}
	}
	if !found {
		t.Errorf("no problem saying %q in %+v", has, rep.Inputs)
	}
	out, _, code := runWith(t, "", builtinRules(t), append(append(append([]string{}, fsCheck...), args...), path)...)
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("check exits %d, want a stop for HISTORY_UNREADABLE:\n%s", code, out)
	}
}

func TestFilesystem_UnreadableFiles(t *testing.T) {
	t.Run("read error for everyone, root included", func(t *testing.T) {
		// /proc/self/mem opens but fails to read at offset 0 (EIO), for
		// root too: a file that breaks while it is read, behind a link in
		// a walked directory.
		if _, err := os.Stat("/proc/self/mem"); err != nil {
			t.Skip("no /proc/self/mem on this system: a read error cannot be simulated")
		}
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
		if err := os.Symlink("/proc/self/mem", filepath.Join(dir, "mem.jsonl")); err != nil {
			t.Fatal(err)
		}
		wantUnreadable(t, dir, "input/output error")
	})
	t.Run("no permission", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root, which reads files whatever their permissions; the read error case above covers root")
		}
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
		p := filepath.Join(dir, "locked.jsonl")
		writeFile(t, p, fsGood)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		wantUnreadable(t, dir, "permission denied")
	})
	t.Run("unreadable subdirectory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root, which lists directories whatever their permissions")
		}
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
		sub := filepath.Join(dir, "sub")
		writeFile(t, filepath.Join(sub, "hidden.jsonl"), fsGood)
		if err := os.Chmod(sub, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(sub, 0o755) })
		wantUnreadable(t, dir, "permission denied")
	})
	t.Run("dangling link", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
		if err := os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "dead.jsonl")); err != nil {
			t.Fatal(err)
		}
		wantUnreadable(t, dir, "no such file")
	})
	t.Run("broken gzip", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
		writeFile(t, filepath.Join(dir, "log.jsonl.gz"), "\x1f\x8b\x08\x00garbage")
		wantUnreadable(t, dir, "gzip")
	})
}

func TestFilesystem_LinksLoopsAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "t1.jsonl"), fsGood)
	// A loop (a/up → ..), a link to a sibling directory, and one that is
	// its own target: none is followed.
	for link, target := range map[string]string{"a/up": "..", "b": "a", "self": "self"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "a", "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	var rep report.Report
	var code int
	go func() {
		defer close(done)
		rep, code, _ = analyzeJSON(t, "", dir)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the walk hangs (a FIFO opened, or a link loop followed)")
	}
	if code != ExitOK || len(rep.Inputs) != 1 || !strings.HasSuffix(rep.Inputs[0].Path, "/a/t1.jsonl") {
		t.Fatalf("exit %d, inputs %+v: want a/t1.jsonl read once", code, rep.Inputs)
	}
	// Links to directories are followed, each directory once: a/up leads
	// back to the root (walked already), b to a (its file is a/t1.jsonl,
	// read once). A link that is its own target cannot be followed.
	skipped := strings.Join(rep.Skipped, " ")
	for _, s := range []string{"a/pipe.jsonl", "/self"} {
		if !strings.Contains(skipped, s) {
			t.Errorf("%s is not listed as skipped: %v", s, rep.Skipped)
		}
	}
	for _, s := range []string{"a/up", "/b"} {
		if strings.Contains(skipped, s) {
			t.Errorf("%s is listed as skipped, want followed: %v", s, rep.Skipped)
		}
	}

	t.Run("a link to a directory, named", func(t *testing.T) {
		rep, code, stderr := analyzeJSON(t, "", filepath.Join(dir, "b"))
		if code != ExitOK || len(rep.Inputs) != 1 || !strings.HasSuffix(rep.Inputs[0].Path, "/b/t1.jsonl") {
			t.Fatalf("exit %d (%s), inputs %+v: want b/t1.jsonl read", code, stderr, rep.Inputs)
		}
	})
	t.Run("one file named through two paths is read once", func(t *testing.T) {
		rep, _, _ := analyzeJSON(t, "", filepath.Join(dir, "b"), filepath.Join(dir, "a"), filepath.Join(dir, "a", "t1.jsonl"))
		if len(rep.Inputs) != 1 || rep.Summary.Events != 2 {
			t.Fatalf("inputs %+v, %d events: want one input of 2 events", rep.Inputs, rep.Summary.Events)
		}
	})
	t.Run("a link that loops, named", func(t *testing.T) {
		for _, cmd := range [][]string{{"analyze"}, fsCheck} {
			_, stderr, code := runWith(t, "", builtinRules(t), append(append([]string{}, cmd...), filepath.Join(dir, "self"))...)
			if code != ExitError || !strings.Contains(stderr, "symbolic links") {
				t.Errorf("%s: exit %d, stderr %q: want 2 naming the loop", cmd[0], code, stderr)
			}
		}
	})
	t.Run("a FIFO named is read", func(t *testing.T) {
		// Named on the command line, a pipe is what the user asked for
		// (process substitution gives one): it is read to its end.
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				w.WriteString(fsGood)
				w.Close()
			}
		}()
		rep, code, stderr := analyzeJSON(t, "", fifo)
		if code != ExitOK || rep.Summary.Events != 2 {
			t.Fatalf("exit %d (%s), %d events", code, stderr, rep.Summary.Events)
		}
	})
}

func TestFilesystem_PathsWithSpacesAndNonASCII(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run logs (2026)", "tâche n°1 — 日本.jsonl")
	writeFile(t, path, fsGood+"not json\n")
	rep, code, _ := analyzeJSON(t, "", dir)
	if code != ExitFindings || len(rep.Inputs) != 1 || rep.Inputs[0].Path != filepath.ToSlash(path) {
		t.Fatalf("exit %d, inputs %+v", code, rep.Inputs)
	}
	if p := rep.Inputs[0].Problems; len(p) != 1 || p[0].File != filepath.ToSlash(path) || p[0].Line != 3 {
		t.Errorf("problems %+v, want line 3 of the file", p)
	}
	for _, f := range report.Formats {
		out, stderr, code := runWith(t, "", builtinRules(t), "analyze", "--color", "never", "--format", f, path)
		if code != ExitFindings {
			t.Errorf("%s: exit %d (%s)", f, code, stderr)
		}
		if f == "text" && !strings.Contains(out, "tâche n°1 — 日本.jsonl:3") {
			t.Errorf("text does not name the file and line:\n%s", out)
		}
	}
	out, _, code := runWith(t, "", builtinRules(t), append(append([]string{}, fsCheck...), path)...)
	if code != ExitFindings || !strings.Contains(out, "tâche n°1 — 日本.jsonl:3") {
		t.Errorf("check exits %d, want a stop pointing at the line:\n%s", code, out)
	}
}

func TestFilesystem_NonexistentPathsAndEmptyStdin(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.jsonl"), fsGood)
	missing := filepath.Join(dir, "no such.jsonl")
	for _, args := range [][]string{{missing}, {filepath.Join(dir, "ok.jsonl"), missing}} {
		for _, cmd := range [][]string{{"analyze"}, fsCheck, {"facts"}} {
			_, stderr, code := runWith(t, "", builtinRules(t), append(append([]string{}, cmd...), args...)...)
			if code != ExitError || !strings.Contains(stderr, "no such.jsonl") {
				t.Errorf("%s %v: exit %d, stderr %q: want 2 naming the path", cmd[0], args, code, stderr)
			}
		}
	}
	// Empty standard input: a history that says nothing, like an empty
	// file (and "-" twice is read once); no event read: exit 2.
	rep, code, _ := analyzeJSON(t, "", "-", "-")
	if code != ExitError || len(rep.Inputs) != 1 || len(rep.Inputs[0].Problems) != 1 || !strings.Contains(rep.Inputs[0].Problems[0].Message, "empty") {
		t.Errorf("analyze - on empty stdin: exit %d, inputs %+v", code, rep.Inputs)
	}
	out, _, code := runWith(t, "", builtinRules(t), append(append([]string{}, fsCheck...), "-")...)
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("check - on empty stdin exits %d, want a stop:\n%s", code, out)
	}
	// The control: the same check on a readable history allows.
	if out, _, code := runWith(t, fsGood, builtinRules(t), append(append([]string{}, fsCheck...), "-")...); code != ExitOK {
		t.Errorf("check - on a good history exits %d:\n%s", code, out)
	}
}
