// Package progress shows how far a long run has read, on one line of a
// terminal's standard error, rewritten in place and cleared at the end.
//
// It is for people watching a terminal only: nothing is shown when
// standard error is not a terminal (a pipe, a file, a CI log) or when the
// environment variable CI is set, and nothing before Delay has passed, so
// short runs and every machine reader see the same bytes as before.
package progress

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults: a run that ends within about a second shows nothing.
const (
	DefaultDelay = time.Second
	DefaultEvery = 200 * time.Millisecond
)

// Enabled says whether progress may be shown: the writer is a terminal and
// CI is not set (getenv is os.Getenv outside tests).
func Enabled(isTerminal bool, getenv func(string) string) bool {
	return isTerminal && getenv("CI") == ""
}

// Meter counts what was read and draws it. A nil *Meter counts nothing and
// draws nothing, so callers need not test whether progress is on. Add is
// safe for concurrent use (readers read on several cores).
type Meter struct {
	w            io.Writer
	files, bytes atomic.Int64
	// lastRead is when the last byte was counted (UnixNano): the rate is
	// that of the reading, not of the whole run (the rules are evaluated
	// after it).
	lastRead atomic.Int64
	start    time.Time
	now      func() time.Time
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

// Start returns a meter drawing on w every `every` once `delay` has
// passed, or nil when !enabled.
func Start(w io.Writer, enabled bool, delay, every time.Duration) *Meter {
	if !enabled {
		return nil
	}
	m := &Meter{w: w, now: time.Now, stop: make(chan struct{}), done: make(chan struct{})}
	m.start = m.now()
	go m.run(delay, every)
	return m
}

// Add counts files opened and bytes read.
func (m *Meter) Add(files int, bytes int64) {
	if m == nil {
		return
	}
	m.files.Add(int64(files))
	if bytes > 0 {
		m.bytes.Add(bytes)
		m.lastRead.Store(m.now().UnixNano())
	}
}

// Stop ends the meter and clears its line, if it drew one. It waits for
// the drawing to end, so that nothing is drawn after the report.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	m.once.Do(func() { close(m.stop) })
	<-m.done
}

func (m *Meter) run(delay, every time.Duration) {
	defer close(m.done)
	select {
	case <-m.stop:
		return
	case <-time.After(delay):
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		// \r and erase-line: the line is rewritten in place.
		fmt.Fprintf(m.w, "\r\x1b[K%s", m.Line())
		select {
		case <-m.stop:
			fmt.Fprint(m.w, "\r\x1b[K")
			return
		case <-t.C:
		}
	}
}

// Line is what the meter says now: "effectlint: 160 file(s), 412.3 MB
// read (96.1 MB/s), 5s".
func (m *Meter) Line() string {
	files, bytes := m.files.Load(), m.bytes.Load()
	elapsed := m.now().Sub(m.start)
	reading := elapsed
	if last := m.lastRead.Load(); last > 0 {
		reading = time.Unix(0, last).Sub(m.start)
	}
	rate := ""
	if reading > 0 && bytes > 0 {
		rate = fmt.Sprintf(" (%s/s)", Bytes(int64(float64(bytes)/reading.Seconds())))
	}
	return fmt.Sprintf("effectlint: %d file(s), %s read%s, %s", files, Bytes(bytes), rate, elapsed.Truncate(time.Second))
}

// Bytes says a size for people: "512 B", "3.4 kB", "412.3 MB" (powers of
// 1000, as file managers and du --si).
func Bytes(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n), "kMGTPE"
	i := -1
	for f >= 1000 && i < len(unit)-1 {
		f /= 1000
		i++
	}
	return fmt.Sprintf("%.1f %cB", f, unit[i])
}
