package transcripts

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// A trace archive with two entries of one name has two readings of one
// trace (the second may hold the send): a problem, so a gate over it
// stops, never a silent choice of one.
func TestZip_PlaywrightEntryTwiceIsAProblem(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i < 2; i++ {
		w, err := zw.Create("trace.trace")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(`{"type":"context-options","version":7,"browserName":"chromium","wallTime":1764400000000,"monotonicTime":0,"title":"t"}` + "\n"))
	}
	zw.Close()
	res, err := Read([]string{"-"}, Options{Stdin: bytes.NewReader(b.Bytes())}, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	in := res.Inputs[0]
	var msgs []string
	for _, p := range in.Problems {
		msgs = append(msgs, p.Message)
	}
	if in.Format != FormatPlaywright || !strings.Contains(strings.Join(msgs, "\n"), "appears twice") {
		t.Errorf("format %s, problems %q: want a playwright input with a problem naming the twice-written entry", in.Format, msgs)
	}
}
