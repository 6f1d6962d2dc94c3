package transcripts

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// The cache of parsed facts: what reading one native log gave (its events,
// problems and the state of the reader after its last whole line), kept
// per file so the next run reads only what changed. SPEC §5: a cache may
// never change a verdict, so an entry is used only when the bytes it was
// read from are provably still the file's first bytes, and what it holds
// is exactly what reading those bytes gives:
//
//   - Events are a function of the bytes, the display path and the reading
//     options alone for the native format (its reader keeps no state across
//     files and none across lines but the unknown types: nativeRead). The
//     entry's key holds the path (absolute and as displayed), the options
//     and the build of effectlint that wrote it, and the entry repeats them.
//   - The prefix is the file's bytes up to and including its last newline
//     when it was read, and the entry holds their SHA-256 (and the hash's
//     state, to extend it over an appended tail without reading the prefix
//     again). A line with no newline yet is never cached: a writer may be
//     half-way through it; the next run reads it again.
//   - Unchanged is proven by content alone: the file is at least as long
//     as the prefix and its first bytes hash to the entry's sum (a rewrite
//     in any place changes the sum; SHA-256, since the histories may be
//     written by the automation being judged). Metadata (device, inode,
//     size, mtime, ctime, git's "racily clean" rule) was accepted as proof
//     once and is not: an adversarial review rewrote a cached history
//     through mmap(MAP_SHARED) — the kernel stamps mtime and ctime at a
//     clean page's first write fault, later stores into the dirty page
//     fault no more until writeback — and a cached check allowed what a
//     read stopped (TestCache_WriteThroughASharedMapIsSeen).
//   - An appended file is proven by content up to the cached prefix, then
//     only the tail is parsed, the reader resuming at that line with the
//     restored state. Hashing the prefix reads it (at disk or page-cache
//     speed, no parsing); a shortcut from the last block plus metadata was
//     rejected: an in-place write before the last block (a log rewritten
//     by a tool that keeps the inode, a `dd conv=notrunc`) leaves both
//     unchanged-looking and would keep a removed or altered crossing.
//   - Anything else — no entry, an entry of another layout, version,
//     build, path or options, a corrupt or truncated one (the store's
//     checksum), a prefix that does not hash the same, a file that is no
//     longer a regular plain file — reads the file whole, as without a
//     cache, and writes a new entry. Writing is best effort: a failure
//     changes nothing but the speed.
//
// Only uncompressed native logs are cached: the Claude Code reader shares
// state across files (copied lines count once, forks) and the document
// formats are read whole.

// Cache stores entries of bytes by key across runs (transcripts/cache.Store).
// Get returns a payload only if one was stored whole under key; Put is
// best effort.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, payload []byte) bool
}

// entryVersion is the layout of an entry's payload; bump it with any
// change to what the native reader gives for the same bytes that the
// build identity might miss.
const entryVersion = 2 // 2: no metadata (it proved nothing)

// cacheTrace, when set (by tests), hears how each read was served: "miss"
// or "content" (the prefix proven by its hash).
var cacheTrace func(path, how string)

var cacheUse struct{ served, miss atomic.Int64 }

// CacheUse counts, for this process, the native logs the cache served
// (their prefix proven by its hash) and those it could not serve (read
// whole): for benchmarks and tests that must see the cache at work.
func CacheUse() (served, misses int64) {
	return cacheUse.served.Load(), cacheUse.miss.Load()
}

// buildID names the running executable's build: an entry another build
// wrote is not read (a reader fixed since would read its bytes otherwise).
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%s|%d|%d", exe, st.Size(), st.ModTime().UnixNano())
})

// cacheEntry is one file's cached read.
type cacheEntry struct {
	variant string
	end     int64 // the prefix: bytes up to and including the last newline
	lines   int   // lines in the prefix
	sum     [sha256.Size]byte
	state   []byte // sha256 state after the prefix (MarshalBinary)

	events, records           int
	problems                  []Problem
	problemsOmitted, omitFrom int
	nr                        nativeRead
	evs                       []Event
}

// cacheKey names what, besides the bytes, the events depend on: the
// entry's key, and, with the build that writes it, what the entry repeats
// (variant). The build is not part of the key, so a new build overwrites
// the entries of the old one instead of adding to them.
func (rn *run) cacheKey(display string, maxProblems int) (key, variant string) {
	abs, err := filepath.Abs(display)
	if err != nil {
		abs = display
	}
	key = fmt.Sprintf("native|v%d|line=%d|problems=%d|spec=%t|format=%s|%s|%s", entryVersion,
		rn.opt.MaxLineBytes, maxProblems, rn.opt.SpecFieldsOnly, rn.opt.InputFormat, abs, display)
	return key, key + "|build=" + buildID()
}

// readCached reads a plain native log through the cache. ok is false when
// the file is not one (compressed, another format, not a regular file, not
// openable): the caller then reads it as usual, and says what is wrong.
func (rn *run) readCached(s source, emit func(Event)) (in Input, ok bool) {
	c := rn.opt.Cache
	if c == nil || !s.file() || zipName(s.path) {
		return in, false // (an archive by its name is never a native log: readStream)
	}
	// Only a regular file is cached: opening anything else (a FIFO named
	// on the command line) may block or consume what its writer sends, so
	// it is not even opened here; the usual path reads it.
	if st, err := os.Stat(s.path); err != nil || !st.Mode().IsRegular() {
		return in, false
	}
	f, err := os.Open(s.path)
	if err != nil {
		return in, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return in, false
	}
	in = Input{Path: s.path, Format: FormatNative, Problems: []Problem{}, maxProblems: rn.opt.MaxProblems}
	if in.maxProblems == 0 {
		in.maxProblems = DefaultMaxProblems
	}
	key, variant := rn.cacheKey(s.path, in.maxProblems)
	var old *cacheEntry
	if b, found := c.Get(key); found {
		old, _ = decodeEntry(b, variant)
	}
	// The format as readStream decides it, from the same first bytes.
	peek := make([]byte, 64<<10)
	n, _ := f.ReadAt(peek, 0)
	peek = peek[:n]
	if n >= 2 && peek[0] == 0x1f && peek[1] == 0x8b {
		return Input{}, false
	}
	format := rn.opt.InputFormat
	if format == "" {
		format = detect(peek, n < 64<<10, rn.opt.Profile)
	}
	if format != FormatNative {
		return Input{}, false
	}
	how := "content"
	if old != nil && (st.Size() < old.end || !prefixIs(f, old.end, old.sum)) {
		old = nil
	}
	if old == nil {
		how = "miss"
		cacheUse.miss.Add(1)
	} else {
		cacheUse.served.Add(1)
	}
	if cacheTrace != nil {
		cacheTrace(s.path, how)
	}

	var nr nativeRead
	var evs []Event
	var sum hash.Hash = sha256.New()
	var offset int64
	lr := newLineReader(nil, rn.opt.MaxLineBytes)
	if old != nil {
		if u, ok := sum.(encoding.BinaryUnmarshaler); !ok || u.UnmarshalBinary(old.state) != nil {
			// Never extend a hash whose state did not restore whole.
			old, sum = nil, sha256.New()
		}
	}
	if old != nil {
		in.Events, in.Records, in.ProblemsOmitted, in.OmittedFrom = old.events, old.records, old.problemsOmitted, old.omitFrom
		in.Problems = append(in.Problems, old.problems...)
		nr = old.nr
		for i := range old.evs {
			old.evs[i].File = s.path
			emit(old.evs[i])
		}
		evs, offset, lr.line = old.evs, old.end, old.lines
	}
	lr.r.Reset(io.NewSectionReader(f, offset, math.MaxInt64-offset))
	lr.sum = sum
	// The state of the prefix that ends with a newline: the one an entry
	// may hold.
	type snap struct {
		in    Input
		nr    nativeRead
		nevs  int
		lines int
		taken bool
	}
	var at snap
	collect := func(e Event) { evs = append(evs, e); emit(e) }
	nr.lines(lr, &in, rn.keep(), collect, func(l rawLine) {
		at = snap{in: in, nr: nr.clone(), nevs: len(evs), lines: l.num - 1, taken: true}
		at.in.Problems = append([]Problem(nil), in.Problems...)
	})
	if !at.taken {
		at = snap{in: in, nr: nr, nevs: len(evs), lines: lr.line}
	}
	nr.notices(&in)
	if lr.failed || lr.spoiled {
		return in, true
	}
	if old != nil && lr.end == 0 {
		return in, true // nothing new to write
	}
	e := &cacheEntry{variant: variant, end: offset + lr.end, lines: at.lines,
		events: at.in.Events, records: at.in.Records, problems: at.in.Problems, problemsOmitted: at.in.ProblemsOmitted,
		omitFrom: at.in.OmittedFrom, nr: at.nr, evs: evs[:at.nevs]}
	copy(e.sum[:], sum.Sum(nil))
	if m, ok := sum.(encoding.BinaryMarshaler); ok {
		if st, err := m.MarshalBinary(); err == nil {
			e.state = st
			if b := encodeEntry(e); b != nil {
				c.Put(key, b)
			}
		}
	}
	return in, true
}

// prefixIs reports whether the first n bytes of f hash to sum.
func prefixIs(f *os.File, n int64, sum [sha256.Size]byte) bool {
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, n), make([]byte, 1<<20)); err != nil {
		return false
	}
	return [sha256.Size]byte(h.Sum(nil)) == sum
}

// The payload: little-endian varints and length-prefixed strings, every
// length checked on the way back (a payload that does not decode whole is
// no entry).

type encoder struct{ b []byte }

func (w *encoder) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *encoder) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *encoder) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *encoder) bytes(b []byte) {
	w.uint(uint64(len(b)))
	w.b = append(w.b, b...)
}

const (
	tagNil = iota
	tagFalse
	tagTrue
	tagString
	tagNumber
	tagArray
	tagObject
)

func (w *encoder) value(v any) {
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, tagNil)
	case bool:
		if x {
			w.b = append(w.b, tagTrue)
		} else {
			w.b = append(w.b, tagFalse)
		}
	case string:
		w.b = append(w.b, tagString)
		w.str(x)
	case json.Number:
		w.b = append(w.b, tagNumber)
		w.str(string(x))
	case []any:
		w.b = append(w.b, tagArray)
		w.uint(uint64(len(x)))
		for _, e := range x {
			w.value(e)
		}
	case map[string]any:
		w.b = append(w.b, tagObject)
		w.uint(uint64(len(x)))
		for k, e := range x {
			w.str(k)
			w.value(e)
		}
	default:
		// The reader gives no other type; an entry that could not hold the
		// value exactly must not be written.
		panic(fmt.Sprintf("cache: field value of type %T", v))
	}
}

func encodeEntry(e *cacheEntry) (out []byte) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	w := &encoder{b: make([]byte, 0, 64+len(e.evs)*48)}
	w.uint(entryVersion)
	w.str(e.variant)
	w.int(e.end)
	w.uint(uint64(e.lines))
	w.bytes(e.sum[:])
	w.bytes(e.state)
	w.uint(uint64(e.events))
	w.uint(uint64(e.records))
	w.uint(uint64(e.problemsOmitted))
	w.uint(uint64(e.omitFrom))
	w.uint(uint64(len(e.problems)))
	for _, p := range e.problems {
		w.str(p.File)
		w.uint(uint64(p.Line))
		w.str(p.Task)
		w.str(p.Message)
	}
	w.uint(uint64(len(e.nr.unknownOrder)))
	for _, t := range e.nr.unknownOrder {
		w.str(t)
		w.uint(uint64(e.nr.unknown[t]))
	}
	w.uint(uint64(len(e.evs)))
	for i := range e.evs {
		ev := &e.evs[i]
		w.uint(uint64(ev.Line))
		ts, err := ev.TS.MarshalBinary()
		if err != nil {
			return nil
		}
		w.bytes(ts)
		w.str(ev.Task)
		w.str(ev.Type)
		w.str(ev.Source)
		if ev.Fields == nil {
			w.uint(0)
			continue
		}
		w.uint(uint64(len(ev.Fields)) + 1)
		for k, v := range ev.Fields {
			w.str(k)
			w.value(v)
		}
	}
	return w.b
}

var errEntry = errors.New("cache entry does not decode")

type decoder struct {
	b        []byte
	err      error
	interned map[string]string
}

func (r *decoder) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errEntry
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *decoder) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errEntry
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count is a length that must fit in what is left (each item takes at
// least one byte).
func (r *decoder) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.err = errEntry
		return 0
	}
	return int(n)
}

func (r *decoder) raw() []byte {
	n := r.count()
	if r.err != nil {
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *decoder) str() string { return string(r.raw()) }

// short interns the strings that repeat from event to event.
func (r *decoder) short() string {
	b := r.raw()
	if s, ok := r.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.interned) < 1<<16 {
		r.interned[s] = s
	}
	return s
}

func (r *decoder) value(depth int) any {
	if r.err != nil || len(r.b) == 0 || depth > MaxValueDepth+1 {
		r.err = errEntry
		return nil
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagString:
		return r.str()
	case tagNumber:
		return json.Number(r.str())
	case tagArray:
		n := r.count()
		out := make([]any, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			out = append(out, r.value(depth+1))
		}
		return out
	case tagObject:
		n := r.count()
		out := make(map[string]any, n)
		for i := 0; i < n && r.err == nil; i++ {
			k := r.short()
			out[k] = r.value(depth + 1)
		}
		return out
	}
	r.err = errEntry
	return nil
}

// decodeEntry reads a payload; any doubt is an error (no entry).
func decodeEntry(b []byte, variant string) (*cacheEntry, error) {
	r := &decoder{b: b, interned: map[string]string{}}
	if r.uint() != entryVersion || r.str() != variant {
		return nil, errEntry
	}
	e := &cacheEntry{variant: variant}
	e.end = r.int()
	e.lines = int(r.uint())
	if s := r.raw(); len(s) == sha256.Size {
		copy(e.sum[:], s)
	} else {
		r.err = errEntry
	}
	e.state = r.raw()
	e.events, e.records = int(r.uint()), int(r.uint())
	e.problemsOmitted, e.omitFrom = int(r.uint()), int(r.uint())
	np := r.count()
	e.problems = make([]Problem, 0, np)
	for i := 0; i < np && r.err == nil; i++ {
		e.problems = append(e.problems, Problem{File: r.str(), Line: int(r.uint()), Task: r.str(), Message: r.str()})
	}
	nu := r.count()
	e.nr = nativeRead{unknown: make(map[string]int, nu)}
	for i := 0; i < nu && r.err == nil; i++ {
		t := r.str()
		e.nr.unknownOrder = append(e.nr.unknownOrder, t)
		e.nr.unknown[t] = int(r.uint())
	}
	ne := r.count()
	e.evs = make([]Event, 0, ne)
	for i := 0; i < ne && r.err == nil; i++ {
		ev := Event{Line: int(r.uint())}
		if err := ev.TS.UnmarshalBinary(r.raw()); err != nil {
			return nil, errEntry
		}
		ev.Task, ev.Type, ev.Source = r.short(), r.short(), r.short()
		if n := r.uint(); n > uint64(len(r.b))+1 {
			r.err = errEntry
		} else if n > 0 {
			ev.Fields = make(map[string]any, n-1)
			for j := 0; j < int(n-1) && r.err == nil; j++ {
				k := r.short()
				ev.Fields[k] = r.value(1)
			}
		}
		e.evs = append(e.evs, ev)
	}
	if r.err != nil || len(r.b) != 0 || e.end < 0 || e.events != len(e.evs) {
		return nil, errEntry
	}
	return e, nil
}
