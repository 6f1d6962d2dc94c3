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
