package transcripts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cc builds Claude Code session lines for tests.
type cc struct {
	session, cwd string
	lines        []string
	n            int
}

func (c *cc) ts() string {
	c.n++
	return fmt.Sprintf("2026-12-01T08:00:%02d.000Z", c.n)
}

func (c *cc) add(m map[string]any) {
	m["sessionId"] = c.session
	if _, ok := m["timestamp"]; !ok {
		m["timestamp"] = c.ts()
	}
	if _, ok := m["cwd"]; !ok && c.cwd != "" {
		m["cwd"] = c.cwd
	}
	if _, ok := m["uuid"]; !ok {
		m["uuid"] = fmt.Sprintf("%s-u%d", c.session, len(c.lines)+1)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	c.lines = append(c.lines, string(b))
}

// call records an assistant tool_use.
func (c *cc) call(id, name string, input map[string]any) {
	c.add(map[string]any{"type": "assistant", "isSidechain": false, "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
}

// result records a tool_result; extra fields go on the line (toolUseResult).
func (c *cc) result(id string, isError bool, content any, extra map[string]any) {
	m := map[string]any{"type": "user", "isSidechain": false, "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError, "content": content}}}}
	for k, v := range extra {
		m[k] = v
	}
	c.add(m)
}

func (c *cc) text() string { return strings.Join(c.lines, "\n") + "\n" }

func (c *cc) write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(c.text()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPaths(t *testing.T, opt Options, paths ...string) (Result, []Event) {
	t.Helper()
	var evs []Event
	res, err := Read(paths, opt, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	return res, evs
}

func ofType(evs []Event, typ string) []Event {
	var out []Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func contentPath(e Event) string {
	c, _ := e.Fields["content"].(map[string]any)
	p, _ := c["path"].(string)
	return p
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SPEC §2: in formats that record a working directory, a content path
// resolves against it, not against the transcript's folder.
func TestClaudeCode_FilePathsResolveAgainstTheLinesCwd(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFile(t, filepath.Join(work, "report.pdf"), "the report that was sent\n")
	writeFile(t, filepath.Join(work, "only-here.pdf"), "only under cwd\n")
	proj := filepath.Join(dir, "projects", "p")
	// A different file of the same name next to the transcript.
	writeFile(t, filepath.Join(proj, "report.pdf"), "another file\n")
	s := &cc{session: "s1", cwd: work}
	s.call("t1", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "report.pdf"})
	s.call("t2", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "only-here.pdf"})
	s.call("t3", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "/abs/else.pdf"})
	nocwd := &cc{session: "s2"}
	nocwd.call("t4", "mcp__uploader__upload_file", map[string]any{"channel": "C1", "path": "report.pdf"})
	s.write(t, filepath.Join(proj, "s1.jsonl"))
	nocwd.write(t, filepath.Join(proj, "s2.jsonl"))
	_, evs := readPaths(t, Options{}, proj)
	var got []string
	for _, e := range ofType(evs, "intent") {
		got = append(got, contentPath(e))
	}
	want := []string{filepath.Join(work, "report.pdf"), filepath.Join(work, "only-here.pdf"), "/abs/else.pdf",
		"report.pdf"} // no cwd recorded: relative, resolved against the transcript's folder
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("content paths\n got  %q\n want %q", got, want)
	}
}
