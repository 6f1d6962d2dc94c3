//go:build unix

package analyzer

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/effectlint/effectlint/transcripts"
)

// A content path a history names that is no regular file (a FIFO, a
// device) leaves its intent without a key, at once: hashed, a FIFO blocked
// the check for ever and /dev/zero never ended (the 51st review).
func TestContentPath_NotARegularFileIsNoKey(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		log := filepath.Join(dir, "h.jsonl")
		os.WriteFile(log, []byte(`{"ts":"2026-11-29T17:00:00Z","task":"Y","type":"task_started","relation":"root"}
{"ts":"2026-11-29T17:00:01Z","task":"Y","type":"intent","intent":"q","destination":{"provider":"slack","id":"C2"},"content":{"path":"`+p+`"}}
{"ts":"2026-11-29T17:00:02Z","task":"Y","type":"send_fired"}
`), 0o644)
		done := make(chan *Facts, 1)
		go func() {
			b := New()
			res, err := transcripts.Read([]string{log}, transcripts.Options{}, b.Add)
			if err != nil {
				t.Error(err)
			}
			done <- b.Build(res)
		}()
		select {
		case f := <-done:
			in := f.Tasks["Y"].Intents
			if len(in) != 1 || !strings.Contains(in[0].KeyError, "not a regular file") {
				t.Errorf("%s: intents %+v, want no key (not a regular file)", p, in)
			}
			if len(f.Unkeyed) != 1 {
				t.Errorf("%s: the send is unkeyed, got %d unkeyed facts", p, len(f.Unkeyed))
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the content path was still being hashed after 20 s", p)
		}
	}
}
