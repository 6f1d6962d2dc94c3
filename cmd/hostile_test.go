package cmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/effectlint/effectlint/report"
)

// Reports never echo long transcript text, and what they echo cannot act on
// a terminal, a browser, a Markdown renderer, an XML reader or the GitHub
// runner: every format, for analyze and for check.

// rawControl finds a character no report may print raw: C0 controls but
// newline and tab, DEL, C1 controls, and the invisible ones that reorder or
// break a line (bidi overrides and isolates, line and paragraph separators).
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r < 0xa0,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return r, true
		}
	}
	return 0, false
}

// longScenario: every string a transcript controls is longText long and
// starts with escape sequences, markup and a bidi override.
func longScenario(t *testing.T) (dir, task string) {
	t.Helper()
	dir = t.TempDir()
	lead := "\x1b]0;pwned\x07\x1b[2J\u202e<script>alert(1)</script>|*x*[a](javascript:alert(1))\u2028::error::x%0A"
	long := func(c string) string { return lead + strings.Repeat(c, longText) }
	task = long("T")
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	lines := []string{
		`{"ts":"2026-11-30T07:00:00Z","task":` + q(task) + `,"type":"task_started","relation":"root"}`,
		`{"ts":"2026-11-30T07:00:01Z","task":` + q(task) + `,"type":"intent","destination":{"provider":"slack","id":` + q(long("C")) + `,"title":` + q(long("#")) + `},"content":{"sha256":"` + strings.Repeat("0", 64) + `"}}`,
		`{"ts":"2026-11-30T07:00:02Z","task":` + q(task) + `,"type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:03Z","task":` + q(task) + `,"type":"interrupted","reason":` + q(long("R")) + `}`,
		`{"ts":"2026-11-30T07:00:04Z","task":` + q(task) + `,"type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:05Z","task":` + q(task) + `,"type":` + q(long("U")) + `}`,
		`{"ts":` + q(long("9")) + `,"task":` + q(task) + `,"type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:06Z","task":` + q(task) + `,"type":"status","label":` + q(long("L")) + `}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "long.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, task
}

// longText is the length of the long scenario's strings, and outputBound
// the most a report of it may print: its strings appear as excerpts of
// about 300 bytes, a few dozen times (30 KB at most, in SARIF), while one
// string printed whole is over the bound. 128 KiB, not the megabyte of
// before: the reports differ only in the lengths and hashes their
// excerpts give, and the test takes an eighth of the time (issue 12).
const (
	longText    = 128 << 10
	outputBound = 64 << 10
)

func TestReports_LongTextIsCutInEveryFormat(t *testing.T) {
	t.Parallel() // no working folder or environment of its own (docs/testing.md)
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	dir, task := longScenario(t)
	analyzeSchema, checkSchema := reportSchemas(t)
	for _, f := range report.Formats {
		out, stderr, code := run(t, "analyze", "--color", "never", "--format", f, dir)
		if code != ExitFindings {
			t.Fatalf("%s: exit %d, want 1: %s", f, code, stderr)
		}
		if len(out) > outputBound {
			t.Errorf("analyze --format %s printed %d KB (bound %d KB)", f, len(out)>>10, outputBound>>10)
		}
		if !strings.Contains(out, "bytes, sha256:") {
			t.Errorf("analyze --format %s shows no excerpt marker", f)
		}
		if r, bad := rawControl(out); bad {
			t.Errorf("analyze --format %s prints %U raw", f, r)
		}
		if !utf8.ValidString(out) {
			t.Errorf("analyze --format %s is not UTF-8", f)
		}
		if f == "json" {
			if err := validate(t, analyzeSchema, "analyze", []byte(out)); err != nil {
				t.Errorf("the cut report does not validate: %v", err)
			}
		}
	}
	for _, f := range report.Formats {
		if !report.DescribesChecks(f) {
			continue
		}
		out, stderr, code := run(t, "check", "--color", "never", "--format", f, "--task", task, dir)
		if code != ExitFindings {
			t.Fatalf("check %s: exit %d, want 1 (stop): %s", f, code, stderr)
		}
		if len(out) > outputBound {
			t.Errorf("check --format %s printed %d KB", f, len(out)>>10)
		}
		if r, bad := rawControl(out); bad {
			t.Errorf("check --format %s prints %U raw", f, r)
		}
		if f == "json" {
			if err := validate(t, checkSchema, "check", []byte(out)); err != nil {
				t.Errorf("the cut decision does not validate: %v", err)
			}
		}
	}
}

// The same long id is cut to the same excerpt everywhere, and two long ids
// that differ only after the excerpt stay apart.
func TestReports_ExcerptsKeepIdentity(t *testing.T) {
	dir := t.TempDir()
	a, b := strings.Repeat("A", 5000)+"1", strings.Repeat("A", 5000)+"2"
	var lines []string
	for _, task := range []string{a, b} {
		lines = append(lines,
			`{"ts":"2026-11-30T07:00:00Z","task":"`+task+`","type":"intent","destination":{"provider":"slack","id":"C1"},"content":{"sha256":"`+strings.Repeat("0", 64)+`"}}`,
			`{"ts":"2026-11-30T07:00:01Z","task":"`+task+`","type":"send_fired"}`)
	}
	if err := os.WriteFile(filepath.Join(dir, "two.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, "analyze", "--format", "json", dir)
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, k := range rep.Keys {
		for _, tk := range k.Tasks {
			ids[tk.ID] = true
		}
		for _, e := range k.Evidence {
			if !ids[e.Task] {
				t.Errorf("evidence names task %.40q…, which the task list does not", e.Task)
			}
		}
	}
	if len(ids) != 2 {
		t.Errorf("%d distinct task ids, want 2: %v", len(ids), ids)
	}
	for id := range ids {
		if len(id) > 400 || !regexp.MustCompile(`…\[5001 bytes, sha256:[0-9a-f]{12}\]$`).MatchString(id) {
			t.Errorf("task id not cut as an excerpt: %.80q…", id)
		}
	}
}

// Injection: the hostile scenario of formats_test.go (markup, links,
// terminal escapes, NUL, a file name with , : ( ) <b>) asked as a gate
// check, in every format that describes checks.
func TestFormats_CheckOutputStaysInert(t *testing.T) {
	t.Chdir(hostileScenario(t))
	evil := "t<script>alert(1)</script>|*x*_[a](javascript:alert(1)) @team #1 %0A,:\x1b[2J\x07\x00]]>&amp;\n::error::x"
	for _, f := range report.Formats {
		if !report.DescribesChecks(f) {
			continue
		}
		out, stderr, code := run(t, "check", "--color", "never", "--format", f, "--task", evil, ".")
		if code != ExitFindings {
			t.Fatalf("%s: exit %d, want 1 (stop): %s", f, code, stderr)
		}
		if r, bad := rawControl(out); bad {
			t.Errorf("%s: prints %U raw", f, r)
		}
		switch f {
		case "html":
			if strings.Contains(out, "<script") || strings.Contains(out, `href="javascript`) {
				t.Errorf("html: markup from the transcript got through")
			}
		case "markdown":
			if strings.Contains(out, "<script") || regexp.MustCompile(`[^\\]\]\(javascript`).MatchString(out) {
				t.Errorf("markdown: markup from the transcript got through:\n%s", out)
			}
		case "junit":
			dec := xml.NewDecoder(strings.NewReader(out))
			for {
				if _, err := dec.Token(); err != nil {
					if err.Error() != "EOF" {
						t.Errorf("junit is not well-formed XML: %v", err)
					}
					break
				}
			}
		case "github":
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
					t.Errorf("github: a line that is not a workflow command: %q", l)
				}
			}
		case "json":
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil || m["task"] != evil {
				t.Errorf("json: %v, task %q: the task must round-trip exactly", err, m["task"])
			}
		case "text":
			if !strings.Contains(out, `\x1b[2J`) {
				t.Errorf("text does not show the escape sequence escaped:\n%s", out)
			}
		}
	}
}
