// Package corpus writes large, deterministic histories for benchmarks: N
// tasks and about M events (native) or M lines (Claude Code) in total, with
// a realistic mix: most tasks deliver cleanly or decide not to, some are
// stopped by the gate, a few are incidents (an overnight resume that sends
// twice, an ignored stop, a send still in flight, a label that lies), and
// many lines carry long tool output or screen text, which is most of the
// bytes. The same Config always writes the same bytes.
//
// Unlike internal/largescenario (one hand-made fan-out whose verdicts the
// report goldens state), the corpus is sized by flags and its verdicts are
// whatever the rules say; benchmarks and scripts/bench.sh use it.
package corpus

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"
)

// Formats the generator writes.
const (
	Native     = "native"
	ClaudeCode = "claude-code"
)

// Config sizes a corpus.
type Config struct {
	Tasks  int    // number of tasks (sessions for Claude Code)
	Events int    // total events (native) or lines (Claude Code), about
	Format string // Native or ClaudeCode
	// OutputBytes is the mean length of one long text (a tool output or
	// a screen dump); lengths are drawn from an exponential distribution
	// and capped at 16 times the mean. 0 means 2048.
	OutputBytes int
	// TasksPerFile puts this many consecutive tasks in one file (0: 25).
	TasksPerFile int
	// Seed varies the corpus; the same Config writes the same bytes.
	Seed uint64
	// Shape knobs (native only; all zero: the friendly shape, one
	// delivery per task, each key its own destination).
	Shape
}

// Shape varies how tasks, keys, destinations and titles relate, so that a
// term growing with more than one scope's facts shows in a scaling series
// (issue 15). Rates are per 1000.
type Shape struct {
	// Family puts each key's tasks under a parent that declares the same
	// intent and spawns them, with 1..Family-1 more sibling children that
	// the gate stops (0 or 1: no families).
	Family int
	// Delegated (‰): a family's child is a "delegated" worker that
	// declares no intent of its own (its crossings are unkeyed, SPEC §4)
	// rather than a "child" task.
	Delegated int
	// Resumes (‰): a key group gets one more task that resumes its last
	// task the next day and is stopped by the gate at resume.
	Resumes int
	// Redeliveries (‰): a key group gets one more task, two days later,
	// that records an authorization of one more delivery of its key and
	// delivers under it (AUTHORIZED_REDELIVERY).
	Redeliveries int
	// Destinations is the number of distinct destinations the keys are
	// spread over (0: one per key); each receives many different files.
	Destinations int
	// Titles is the number of distinct display titles the destinations
	// share (0: one per destination): several provider ids under one
	// title make AMBIGUOUS_DESTINATION findings.
	Titles int
	// Interruptions (‰): a task is interrupted mid-work and checks at
	// resume before going on.
	Interruptions int
	// Incidents (‰): overrides the share of key groups that are not a
	// clean send (0: the default mix, 16 %), keeping the incidents' mix.
	Incidents int
	// Problems (‰): a task's file gets an unreadable line in the task
	// (its history becomes incomplete).
	Problems int
	// Foreign (‰): this share of the tasks is written as Claude Code
	// sessions under claude-code/ beside the native files.
	Foreign int
}

// Shapes are the named shapes scripts/bench.sh runs as scaling series.
var Shapes = map[string]Shape{
	"friendly": {},
	// issue 15's corpus: families of a parent and 1-3 siblings sharing
	// one key, 5,000 destinations each receiving many files, ~10 %
	// incidents.
	"families": {Family: 3, Destinations: 5000, Incidents: 100, Resumes: 30, Redeliveries: 20},
	// few destinations and titles shared by many: every key of a
	// destination, and every destination of a title, in one place.
	"hot-destinations": {Destinations: 50, Titles: 10, Delegated: 500, Family: 2, Interruptions: 100},
	// incidents, interruptions, unreadable lines and foreign files.
	"messy": {Family: 2, Destinations: 2000, Incidents: 300, Interruptions: 200, Resumes: 100, Redeliveries: 50,
		Problems: 5, Foreign: 100},
}

// Stats describes what Write wrote.
type Stats struct {
	Files, Tasks, Events, Keys int
	Bytes                      int64
	// Kinds counts key groups by scenario kind.
	Kinds map[string]int
}

func (c *Config) defaults() error {
	if c.Tasks <= 0 {
		return fmt.Errorf("corpus: tasks must be positive")
	}
	if c.Events < c.Tasks {
		c.Events = c.Tasks
	}
	if c.OutputBytes <= 0 {
		c.OutputBytes = 2048
	}
	if c.TasksPerFile <= 0 {
		c.TasksPerFile = 25
	}
	switch c.Format {
	case "", Native:
		c.Format = Native
	case ClaudeCode:
	default:
		return fmt.Errorf("corpus: format %q is not %s or %s", c.Format, Native, ClaudeCode)
	}
	return nil
}

// Write writes the corpus into dir (created if needed; existing files with
// the same names are replaced).
func Write(dir string, c Config) (Stats, error) {
	if err := c.defaults(); err != nil {
		return Stats{}, err
	}
	g := &gen{cfg: c, rng: rand.New(rand.NewPCG(c.Seed, 0x5eed)), dir: dir,
		stats: Stats{Kinds: map[string]int{}}}
	g.text = textBlock(c.Seed)
	if c.Format == ClaudeCode {
		g.claude()
	} else {
		foreign := c.Tasks * c.Foreign / 1000
		if foreign > 0 {
			g.cfg.Tasks -= foreign
			g.cfg.Events -= c.Events * foreign / c.Tasks
		}
		g.native()
		if g.err == nil && foreign > 0 {
			g.flush()
			fc := Config{Tasks: foreign, Events: c.Events * foreign / c.Tasks, Format: ClaudeCode,
				OutputBytes: c.OutputBytes, TasksPerFile: c.TasksPerFile, Seed: c.Seed + 1}
			st, err := Write(filepath.Join(dir, "claude-code"), fc)
			g.err = err
			g.stats.Files += st.Files
			g.stats.Tasks += st.Tasks
			g.stats.Events += st.Events
			g.stats.Keys += st.Keys
			g.stats.Bytes += st.Bytes
			for k, n := range st.Kinds {
				g.stats.Kinds[k] += n
			}
			return g.stats, g.err
		}
	}
	if g.err == nil {
		g.flush()
	}
	return g.stats, g.err
}

// base is the start of the month the corpus covers.
var base = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

const month = 30 * 24 * time.Hour

type gen struct {
	cfg   Config
	rng   *rand.Rand
	dir   string
	text  []byte
	stats Stats
	err   error

	file     *os.File
	w        *bufio.Writer
	fileName string
	inFile   int // tasks written to the current file
	buf      []byte
}

// kind is one scenario of a key group; weights are per 1000 groups.
type kind struct {
	name   string
	weight int
	tasks  int
}

var kinds = []kind{
	{"clean_send", 840, 1},
	{"decided_not_to_send", 50, 1},
	{"siblings_stopped_by_gate", 40, 3},
	{"interrupted_rechecked", 30, 1},
	{"unknown_then_gate_stops", 10, 2},
	{"overnight_resume_duplicate", 10, 2},
	{"provider_deduplicated", 6, 1},
	{"ignored_gate_stop", 5, 1},
	{"in_flight", 5, 1},
	{"label_contradicts", 4, 1},
}

// budget is the number of events of task i: Events spread over Tasks, the
// first Events % Tasks tasks taking one more.
func (g *gen) budget(i int) int {
	n := g.cfg.Events / g.cfg.Tasks
	if i < g.cfg.Events%g.cfg.Tasks {
		n++
	}
	return n
}

func (g *gen) pick() kind {
	n := g.rng.IntN(1000)
	if inc := g.cfg.Incidents; inc > 0 {
		// the clean share becomes 1000-inc, the others scale to inc
		if n >= inc {
			return kinds[0]
		}
		n = kinds[0].weight + n*(1000-kinds[0].weight)/inc
	}
	for _, k := range kinds {
		if n < k.weight {
			return k
		}
		n -= k.weight
	}
	return kinds[0]
}

// outputLen draws one long text's length.
func (g *gen) outputLen() int {
	m := float64(g.cfg.OutputBytes)
	n := int(-math.Log(1-g.rng.Float64()) * m)
	return min(max(n, 16), 16*g.cfg.OutputBytes)
}

// textOf returns n bytes of JSON-string-safe text (already escaped: it
// holds \n and \" sequences, never a cut escape).
func (g *gen) textOf(n int) []byte {
	if n > len(g.text)-2 {
		n = len(g.text) - 2
	}
	start := g.rng.IntN(len(g.text) - n)
	end := start + n
	// Never start on the second byte of an escape or inside a UTF-8
	// sequence, never end inside either.
	for start < end && (!utf8.RuneStart(g.text[start]) || (start > 0 && g.text[start-1] == '\\')) {
		start++
	}
	for end > start && (!utf8.RuneStart(g.text[end]) || g.text[end-1] == '\\') {
		end--
	}
	return g.text[start:end]
}

// textBlock is 4 MiB of log-like text, escaped for a JSON string.
func textBlock(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	words := []string{"GET", "POST", "200", "404", "ok", "error", "retry", "channel", "message", "upload",
		"report.pdf", "drwxr-xr-x", "src/main.go", "func", "return", "nil", "if", "err", "!=", "{", "}",
		"Compiling", "warning:", "unused", "variable", "at", "line", "\\\"quoted\\\"", "|", "--", "=>",
		"INFO", "DEBUG", "user@example.com", "https://example.com/a/b?c=d", "0x7f3a", "λ", "✓", "…"}
	out := make([]byte, 0, 4<<20)
	for len(out) < 4<<20 {
		n := 3 + r.IntN(14)
		for i := 0; i < n; i++ {
			if i > 0 {
				out = append(out, ' ')
			}
			out = append(out, words[r.IntN(len(words))]...)
		}
		out = append(out, '\\', 'n')
	}
	return out
}

func (g *gen) sha(parts ...any) string {
	h := sha256.Sum256([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(h[:])
}

// openFor starts a new file when the current one holds TasksPerFile tasks.
func (g *gen) openFor(day time.Time, ext string) {
	if g.err != nil {
		return
	}
	if g.w != nil && g.inFile < g.cfg.TasksPerFile {
		g.inFile++
		return
	}
	g.flush()
	name := filepath.Join(g.dir, day.Format("2006-01-02"), fmt.Sprintf("part-%05d%s", g.stats.Files, ext))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		g.err = err
		return
	}
	f, err := os.Create(name)
	if err != nil {
		g.err = err
		return
	}
	g.file, g.w, g.fileName, g.inFile = f, bufio.NewWriterSize(f, 1<<20), name, 1
	g.stats.Files++
}

// renameTo gives the file just opened its final name (Claude Code names a
// session's file after the session).
func (g *gen) renameTo(base string) {
	name := filepath.Join(filepath.Dir(g.fileName), base)
	if err := os.Rename(g.fileName, name); err != nil {
		g.err = err
		return
	}
	g.fileName = name
}

func (g *gen) flush() {
	if g.w == nil {
		return
	}
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	if st, err := g.file.Stat(); err == nil {
		g.stats.Bytes += st.Size()
	}
	if err := g.file.Close(); err != nil && g.err == nil {
		g.err = err
	}
	g.w, g.file = nil, nil
}

func (g *gen) line(b []byte) {
	if g.err != nil {
		return
	}
	b = append(b, '\n')
	if _, err := g.w.Write(b); err != nil {
		g.err = err
	}
}

// appendString appends s as a JSON string (the generator's own strings
// are ASCII without quotes or backslashes, except escaped text blocks,
// which are appended raw).
func appendString(b []byte, s string) []byte {
	return strconv.AppendQuote(b, s)
}

// taskStart spreads task i over the month.
func (g *gen) taskStart(i int) time.Time {
	step := month / time.Duration(g.cfg.Tasks+1)
	jitter := time.Duration(g.rng.IntN(int(max(step/time.Second, 1)))) * time.Second
	return base.Add(time.Duration(i)*step + jitter).Truncate(time.Millisecond)
}

// Cached writes the corpus c into a directory under the system's
// temporary directory named after c, unless an earlier call (in any
// process) already did, and returns it. Benchmarks share corpora this
// way; scripts/bench.sh deletes them.
func Cached(c Config) (string, error) {
	if err := c.defaults(); err != nil {
		return "", err
	}
	name := fmt.Sprintf("effectlint-corpus-%s-%dt-%de-%db-%dpf-s%d",
		c.Format, c.Tasks, c.Events, c.OutputBytes, c.TasksPerFile, c.Seed)
	if c.Shape != (Shape{}) {
		s := c.Shape
		name += fmt.Sprintf("-f%d-d%d-r%d-R%d-D%d-T%d-i%d-I%d-p%d-F%d", s.Family, s.Delegated, s.Resumes, s.Redeliveries,
			s.Destinations, s.Titles, s.Interruptions, s.Incidents, s.Problems, s.Foreign)
	}
	dir := filepath.Join(os.TempDir(), name)
	done := dir + ".complete"
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	if _, err := Write(dir, c); err != nil {
		return "", err
	}
	return dir, os.WriteFile(done, nil, 0o644)
}

// BenchConfig is the corpus benchmarks read, sized by the environment:
// EFFECTLINT_BENCH_TASKS (default 1000), EFFECTLINT_BENCH_EVENTS (50000)
// and EFFECTLINT_BENCH_OUTPUT_BYTES (2048).
func BenchConfig(format string) Config {
	env := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	return Config{Tasks: env("EFFECTLINT_BENCH_TASKS", 1000), Events: env("EFFECTLINT_BENCH_EVENTS", 50000),
		OutputBytes: env("EFFECTLINT_BENCH_OUTPUT_BYTES", 2048), Format: format, Seed: 1}
}
