package transcripts

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// FuzzReadPlaywright: Playwright traces (zip archives and .trace lines),
// the format forced, read from standard input. The invariants of fuzzRead
// hold, with pointers into the archive: an event or problem names "-" or
// an entry of it ("-/0-trace.trace") and a line within that entry. And:
// every task with events starts; in an archive every context that starts
// ends (tracing stopped), nothing of it after its end.
func FuzzReadPlaywright(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-playwright-*/*.zip", "../../shared/corpus/playwright/*.zip"))
	trace := pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"localPaths":["/x/r.pdf"],"payloads":[{"name":"b","buffer":"aGk="}]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"#send"}}`,
		`{"type":"after","callId":"c@3","endTime":1e300,"error":{"message":"Timeout","name":"TimeoutError"}}`,
		`{"type":"before","callId":"c@4","startTime":-1e300,"class":"Frame","method":"expect","params":{"selector":"#sent"}}`,
		`{"type":"after","callId":"c@4","endTime":1500,"result":{"matches":false}}`)
	network := pwLines(`{"type":"resource-snapshot","snapshot":{"startedDateTime":"2026-11-30T07:00:00.5Z","time":20,"request":{"method":"POST","url":"u"},"response":{"status":500}}}`)
	f.Add(pwZip(map[string]string{"0-trace.trace": trace, "0-trace.network": network, "test.trace": `{"type":"before"}`}))
	f.Add([]byte(trace))
	f.Add([]byte(strings.Replace(trace, `"wallTime":1796022000000`, `"wallTime":1e300`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatPlaywright, MaxLineBytes: 1 << 16})
		lines := entryLines(data)
		within := func(file string, line int) bool {
			n, ok := lines[file]
			return ok && line >= 1 && line <= n
		}
		for _, e := range evs {
			if e.Source != FormatPlaywright || !within(e.File, e.Line) {
				t.Fatalf("event %+v is not at a line of the input or of an entry (lines %v)", e, lines)
			}
		}
		for _, p := range in.Problems {
			if !within(p.File, p.Line) {
				t.Fatalf("problem %+v is not at a line of the input or of an entry (lines %v)", p, lines)
			}
		}
		started, ended := map[string]bool{}, map[string]bool{}
		for _, e := range evs {
			switch {
			case e.Type == "task_started":
				started[e.Task] = true
				ended[e.Task] = false
			case !started[e.Task]:
				t.Fatalf("task %q has events but never starts", e.Task)
			case ended[e.Task]:
				t.Fatalf("%s of %q after its task_ended", e.Type, e.Task)
			case e.Type == "task_ended":
				ended[e.Task] = true
			}
		}
		if bytes.HasPrefix(data, zipMagic) {
			for task := range started {
				if !ended[task] {
					t.Fatalf("context %q of an archive never ends", task)
				}
			}
		}
	})
}

// entryLines: how many lines each file of an input has ("-" for lines
// read directly, "-/NAME" for an archive's entries).
func entryLines(data []byte) map[string]int {
	count := func(b []byte) int { return bytes.Count(b, []byte("\n")) + 1 }
	if !bytes.HasPrefix(data, zipMagic) {
		return map[string]int{"-": count(data)}
	}
	out := map[string]int{"-": 1}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return out
	}
	for _, f := range zr.File {
		if _, seen := out["-/"+f.Name]; seen {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			out["-/"+f.Name] = 1
			continue
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		out["-/"+f.Name] = count(b.Bytes())
	}
	return out
}

// The Playwright target's seed globs must keep matching.
func TestPlaywright_FuzzSeedsArePresent(t *testing.T) {
	if m, _ := filepath.Glob("../testdata/scenarios/fmt-playwright-*/*.zip"); len(m) == 0 {
		t.Error("no scenario trace to seed FuzzReadPlaywright")
	}
	sharedtest.Path(t, "corpus/playwright")
	if m, _ := filepath.Glob("../../shared/corpus/playwright/*.zip"); len(m) == 0 {
		t.Error("no corpus trace to seed FuzzReadPlaywright")
	}
}
