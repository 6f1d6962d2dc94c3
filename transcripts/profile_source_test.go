package transcripts

import (
	"path/filepath"
	"testing"
)

func TestProfileSource_FilePathsResolveAgainstTheRecordsCwd(t *testing.T) {
	p, err := ParseProfile("acme", []byte(`
source: {detect: kind, task: session, time: at, tool: fn, args: params, call_id: id, cwd: dir}
rules:
  - name: acme upload
    tool: '^attach$'
    evidence: request_sent
    destination: {provider: acme, id_args: [room]}
    content: {file_args: [file]}
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	writeFile(t, log, `{"kind":"call","session":"s1","at":"2026-12-01T08:00:00Z","fn":"attach","id":"c1","dir":"/srv/job","params":{"room":"r1","file":"out/report.pdf"}}
{"kind":"call","session":"s1","at":"2026-12-01T08:00:01Z","fn":"attach","id":"c2","params":{"room":"r1","file":"report.pdf"}}
`)
	_, evs := readPaths(t, Options{Profile: p}, log)
	intents := ofType(evs, "intent")
	if len(intents) != 2 || contentPath(intents[0]) != "/srv/job/out/report.pdf" || contentPath(intents[1]) != "report.pdf" {
		t.Errorf("intents %+v", intents)
	}
}

// A record of a profile's source with a repeated key has two readings: a
// problem of that record, in JSON Lines and in documents, never one of
// them picked (SPEC §3).
func TestProfileSource_RepeatedKeysAreProblemsOfTheRecord(t *testing.T) {
	// One profile, its source as JSON Lines and as a document.
	acme := func(records string) *Profile {
		t.Helper()
		p, err := ParseProfile("acme", []byte(`
source: {detect: kind, `+records+`task: session, time: at, tool: fn, args: params, call_id: id}
rules:
  - name: acme post
    tool: '^post$'
    evidence: request_sent
    destination: {provider: acme, id_args: [room]}
    content: {text_args: [text]}
`))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, pd := acme(""), acme("records: records, ")
	good := `{"kind":"call","session":"s1","at":"2026-12-01T08:00:00Z","fn":"post","id":"c1","params":{"room":"r1","text":"hi"}}`
	for _, c := range []struct {
		name, record string
		task         string // the problem's task
	}{
		{"nested", `{"kind":"call","session":"s1","at":"2026-12-01T08:00:01Z","fn":"post","id":"c2","params":{"room":"r1","room":"r2","text":"hi"}}`, "s1"},
		{"the task itself", `{"kind":"call","session":"s1","session":"s2","at":"2026-12-01T08:00:01Z","fn":"post","id":"c2","params":{"room":"r1","text":"hi"}}`, ""},
	} {
		dir := t.TempDir()
		log := filepath.Join(dir, "log.jsonl")
		writeFile(t, log, good+"\n"+c.record+"\n")
		doc := filepath.Join(dir, "log.json")
		writeFile(t, doc, `{"records":[`+good+",\n"+c.record+"]}\n")
		for _, run := range []struct {
			path string
			p    *Profile
		}{{log, p}, {doc, pd}} {
			res, evs := readPaths(t, Options{Profile: run.p, InputFormat: FormatProfile}, run.path)
			in := res.Inputs[0]
			if len(in.Problems) != 1 || in.Problems[0].Line != 2 || in.Problems[0].Task != c.task {
				t.Errorf("%s, %s: problems %+v; want one at line 2 of task %q", c.name, filepath.Base(run.path), in.Problems, c.task)
			}
			if n := len(ofType(evs, "request_sent")); n != 1 {
				t.Errorf("%s, %s: %d request_sent; want only the good record's", c.name, filepath.Base(run.path), n)
			}
		}
	}
}
