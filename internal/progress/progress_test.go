package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the meter's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

// Progress is for a terminal only, and never under CI.
func TestEnabled_OnlyOnATerminalOutsideCI(t *testing.T) {
	for _, c := range []struct {
		tty  bool
		vars map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"CI": "true"}, false},
		{true, map[string]string{"CI": "1"}, false},
		{false, map[string]string{"CI": "true"}, false},
	} {
		if got := Enabled(c.tty, env(c.vars)); got != c.want {
			t.Errorf("Enabled(terminal %v, %v) = %v, want %v", c.tty, c.vars, got, c.want)
		}
	}
}

// A disabled meter writes nothing and is safe to use.
func TestMeter_DisabledWritesNothing(t *testing.T) {
	var w syncBuffer
	m := Start(&w, false, 0, time.Millisecond)
	m.Add(3, 1<<20)
	time.Sleep(20 * time.Millisecond)
	m.Stop()
	if w.String() != "" {
		t.Errorf("disabled meter wrote %q", w.String())
	}
}

// A run shorter than the delay shows nothing.
func TestMeter_ShortRunShowsNothing(t *testing.T) {
	var w syncBuffer
	m := Start(&w, true, time.Hour, time.Millisecond)
	m.Add(1, 1000)
	m.Stop()
	if w.String() != "" {
		t.Errorf("a short run wrote %q", w.String())
	}
}

// A long run shows files, bytes and rate on one line rewritten in place,
// and clears it at the end.
func TestMeter_LongRunShowsFilesBytesRateAndClearsTheLine(t *testing.T) {
	var w syncBuffer
	m := Start(&w, true, 0, 5*time.Millisecond)
	m.Add(2, 3_400_000)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "2 file(s), 3.4 MB read (") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	m.Stop()
	out := w.String()
	if !strings.Contains(out, "\r\x1b[Keffectlint: 2 file(s), 3.4 MB read (") || !strings.Contains(out, "/s), ") {
		t.Errorf("no progress line with files, bytes and rate: %q", out)
	}
	if strings.Contains(out, "\n") {
		t.Errorf("the progress line is not rewritten in place: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", out)
	}
	n := len(out)
	time.Sleep(20 * time.Millisecond)
	if len(w.String()) != n {
		t.Errorf("the meter drew after Stop")
	}
	m.Stop() // twice is fine
}

func TestBytes_ForPeople(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 3_400_000: "3.4 MB", 412_300_000_000: "412.3 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
