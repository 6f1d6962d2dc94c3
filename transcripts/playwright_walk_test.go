package transcripts

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/transcripts/cache"
)

// pwSendTrace: a context that picks a file and clicks Send, a trace
// archive's whole history of one delivery.
func pwSendTrace() []byte {
	return pwZip(map[string]string{"trace.trace": pwLines(pwCtx, pwPage,
		`{"type":"before","callId":"c@2","startTime":1200,"class":"Frame","method":"setInputFiles","params":{"selector":"#file","payloads":[{"name":"r.txt","buffer":"aGk="}]}}`,
		`{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"click","params":{"selector":"internal:role=button[name=\"Send\"i]"}}`)})
}

func problemsOf(res Result, path string) (found bool, msgs []string, in Input) {
	for _, i := range res.Inputs {
		if i.Path == path {
			for _, p := range i.Problems {
				msgs = append(msgs, p.File+": "+p.Message)
			}
			return true, msgs, i
		}
	}
	return false, nil, Input{}
}

// Every zip archive met in a walked folder is read, as one named is: a
// cut trace.zip is a problem (it may hold any task's delivery), never a
// file skipped; one that starts with other bytes (unzip reads it), a
// gzipped one and a CI artifact that holds a trace archive give their
// events; a zip no reader knows is a notice (a problem when the run fails
// closed on unrecognized inputs, as for one named).
func TestZip_WalkReadsEveryArchive(t *testing.T) {
	whole := pwSendTrace()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(whole)
	zw.Close()
	junk := append(bytes.Repeat([]byte{0}, 512), whole...)
	artifact := pwZip(map[string]string{"test-results/upload/trace.zip": string(whole), "test-results/upload/log.txt": "ok"})
	deep := pwZip(map[string]string{"outer/artifact.zip": string(artifact)})
	files := map[string][]byte{
		"d/cut/trace.zip":       whole[:len(whole)-30],
		"d/gz/run-1.zip.gz":     gz.Bytes(),
		"d/junk/run-1.zip":      junk,
		"d/nested/artifact.zip": artifact,
		"d/deep/all.zip":        deep,
		"d/src/src.zip":         pwZip(map[string]string{"lib/stack.trace": "not a trace"}),
		"d/notes.txt":           []byte("notes"),
	}
	res, evs := readPW(t, Options{}, files, "d")
	if len(res.Skipped) != 1 || res.Skipped[0] != "d/notes.txt" {
		t.Errorf("skipped %v, want only d/notes.txt", res.Skipped)
	}
	if ok, msgs, _ := problemsOf(res, "d/cut/trace.zip"); !ok || len(msgs) == 0 || !strings.Contains(msgs[0], "broken zip archive") {
		t.Errorf("cut trace.zip: read %v, problems %q: want a broken-archive problem", ok, msgs)
	}
	for _, p := range []string{"d/gz/run-1.zip.gz", "d/junk/run-1.zip", "d/nested/artifact.zip"} {
		ok, msgs, in := problemsOf(res, p)
		if !ok || len(msgs) > 0 || in.Format != FormatPlaywright {
			t.Errorf("%s: read %v, format %s, problems %q: want a Playwright trace read whole", p, ok, in.Format, msgs)
			continue
		}
		var types []string
		for _, e := range evs {
			if strings.HasPrefix(e.File, p+"/") {
				types = append(types, e.Type)
			}
		}
		if got := strings.Join(types, " "); got != "task_started intent picker_accepted send_fired task_ended" {
			t.Errorf("%s: events %q", p, got)
		}
	}
	found := false
	for _, e := range evs {
		if e.File == "d/nested/artifact.zip/test-results/upload/trace.zip/trace.trace" && e.Type == "send_fired" {
			found = true
		}
	}
	if !found {
		t.Errorf("the nested trace's send does not point into the nested archive")
	}
	if _, msgs, _ := problemsOf(res, "d/deep/all.zip"); len(msgs) != 1 || !strings.Contains(msgs[0], "one level deep") {
		t.Errorf("an archive two levels down: problems %q, want one saying it is not read", msgs)
	}
	if ok, msgs, in := problemsOf(res, "d/src/src.zip"); !ok || len(msgs) > 0 || in.Format != FormatUnknown || len(in.Notices) == 0 {
		t.Errorf("src.zip: read %v, format %s, problems %q, notices %q: want a notice only", ok, in.Format, msgs, in.Notices)
	}
	// The cache of native logs never takes the archive for one.
	res, _ = readPW(t, Options{Cache: cache.Open(t.TempDir())}, files, "d")
	if _, msgs, in := problemsOf(res, "d/junk/run-1.zip"); in.Format != FormatPlaywright || len(msgs) > 0 {
		t.Errorf("with a cache, the archive after junk: format %s, problems %q", in.Format, msgs)
	}
	res, _ = readPW(t, Options{UnrecognizedIsProblem: true}, files, "d")
	if _, msgs, _ := problemsOf(res, "d/src/src.zip"); len(msgs) != 1 {
		t.Errorf("src.zip failing closed: problems %q, want one", msgs)
	}
}

// An artifact holding one trace archive twice under one name has two
// readings of it: a problem.
func TestZip_NestedArchiveTwiceIsAProblem(t *testing.T) {
	var b bytes.Buffer
	w := newZipWriter(&b)
	for i := 0; i < 2; i++ {
		f, _ := w.Create("test-results/upload/trace.zip")
		f.Write(pwSendTrace())
	}
	w.Close()
	res, _ := readPW(t, Options{}, map[string][]byte{"a.zip": b.Bytes()}, "a.zip")
	if _, msgs, _ := problemsOf(res, "a.zip"); len(msgs) != 1 || !strings.Contains(msgs[0], "appears twice") {
		t.Errorf("problems %q, want one naming the member written twice", msgs)
	}
}

func newZipWriter(b *bytes.Buffer) *zip.Writer { return zip.NewWriter(b) }

// An artifact holding an Inspect AI log is read one level down as well:
// the sample's crossing is seen, not skipped with the archive.
func TestZip_NestedEvalLogIsRead(t *testing.T) {
	eval := writeEval(t, "", map[string]string{"header.json": inspectHeader,
		"samples/w48_epoch_1.json": inspectSampleJSON("S", "", inspectTool("c1", "", false))})
	res, evs := readPW(t, Options{}, map[string][]byte{"d/artifact.zip": pwZip(map[string]string{"logs/run.eval": string(eval)})}, "d")
	if _, msgs, in := problemsOf(res, "d/artifact.zip"); in.Format != FormatInspect || len(msgs) > 0 {
		t.Fatalf("format %s, problems %q", in.Format, msgs)
	}
	if !strings.Contains(pwTypes(evs), "request_sent") {
		t.Errorf("events %q: want the sample's request_sent", pwTypes(evs))
	}
}
