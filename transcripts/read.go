package transcripts

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Options configure Read.
type Options struct {
	// Stdin is read for the path "-".
	Stdin io.Reader
	// MaxLineBytes bounds one line (DefaultMaxLineBytes when zero).
	MaxLineBytes int
	// MaxProblems bounds the problems listed per input (the rest are
	// counted in Input.ProblemsOmitted): DefaultMaxProblems when zero,
	// no bound when negative.
	MaxProblems int
	// MaxDocumentBytes bounds one JSON document (DefaultMaxDocumentBytes
	// when zero); JSON Lines are read a line at a time.
	MaxDocumentBytes int
	// InputFormat forces a format (one of Formats) instead of detection.
	InputFormat string
	// Profile adds a user's conventions and, with a Source, a format.
	Profile *Profile
	// Ignore, when set, leaves out files found while walking a directory
	// for which it returns true: neither read nor listed as skipped (the
	// expected.yaml of an `effectlint test` case is not part of its
	// history). Files named as arguments are always read.
	Ignore func(path string) bool
	// UnrecognizedIsProblem makes an input no reader recognizes a problem
	// of the run instead of a notice: a gate must not allow past a file
	// that may be a history it cannot read.
	UnrecognizedIsProblem bool
	// AsOf, when set, reads the histories as they were written at that
	// time: readers that decide from a whole document or session (did an
	// activity start? was a call denied?) leave out the records after it
	// first, so no later outcome reaches an earlier fact. The caller still
	// drops every event after it.
	AsOf time.Time
	// SpecFieldsOnly keeps in Event.Fields only the fields SPEC §3 gives a
	// meaning (SpecField): all that the analyzer and the built-in rules
	// read. The other fields (free text such as detail, tool output,
	// whatever a writer adds) are still validated but neither decoded nor
	// kept. For runs that show no extra field: analyze and check without
	// users' rules.
	SpecFieldsOnly bool
	// RecordedKeys gives the keys a key ledger recorded, when a hook or
	// tool claimed them, for a recorded call's id (a Claude Code
	// tool_use_id): the reader takes them instead of hashing the call's
	// files now, which may have changed since (nil: always hash).
	RecordedKeys func(callID string) []RecordedKey
	// Asking is the call a PreToolUse hook is being asked about now: its
	// task and tool call id. Claude Code may write that call to its
	// transcript before the hook runs; when it is that task's call, still
	// without a result, and the last line the task wrote, it is the
	// question itself, not a call that may have run, and its events are
	// left out. Any other call of that id (another task's, one the session
	// went on past, one with a result) is read as usual.
	Asking AskingCall
	// Extra are inputs that are no file: a key ledger's journal, say,
	// exported as native events when the run reads it.
	Extra []Extra
	// Progress, when set, is told of each input opened (files 1) and of
	// the bytes read from it as they are read (before gzip): a meter for
	// people watching a long run. Called from several goroutines.
	Progress func(files int, bytes int64)
	// Cache, when set, keeps what reading each plain native log gave, so
	// that the next run reads only what changed (filecache.go: what is
	// validated and how). It never changes a result.
	Cache Cache
}

// RecordedKey is a key a ledger recorded for a call id, and the task
// whose claim (crossed under its token) recorded it.
type RecordedKey struct{ Key, Task string }

// AskingCall names the call a hook is asked about (Options.Asking).
type AskingCall struct{ Task, ID string }

// Extra is an input read from Open (as native events unless detected
// otherwise). Open failing is a problem of the input, as an unreadable
// file is; an Extra that holds no event is no problem (an empty ledger).
type Extra struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// DefaultMaxDocumentBytes bounds a JSON document read whole (OpenAI,
// OpenTelemetry, Temporal, profile documents).
const DefaultMaxDocumentBytes = 256 << 20

// run is what the readers of one Read share across inputs: Claude Code
// copies lines between files, so one call must be counted once.
type run struct {
	opt     Options
	emit    func(Event)
	seen    map[string]bool // "tool_use:ID", "result:ID", "uuid:ID", "task:ID"
	pending map[string]*pendingCall
	page    map[string]string
	// Temporal runs whose own history (the one that ends with them) was
	// read, and the base runs that reset runs name: a base run whose own
	// history is not among the inputs did things after its reset point
	// that no input shows (finish).
	temporalOwn    map[string]bool
	temporalResets []temporalReset
	// temporalEvents: each run's events by id, as first read (run and
	// event id → the event's fingerprint and input).
	temporalEvents map[string]firstReading
	// langsmithRuns: each LangSmith run by id, as first read.
	langsmithRuns map[string]firstReading
	// judgedResults: the fingerprint of the result of each Claude Code
	// call a rule judged, by tool_use id (claudeResult).
	judgedResults map[string]string
	// forks: which Claude Code session owns the lines several sessions
	// hold, decided before any input is read (claudecode_fork.go).
	forks claudeForks
}

// firstReading is the first reading of a record that may be read twice in
// a run (a history exported twice, a base run's events copied by a reset
// run): its fingerprint and input.
type firstReading struct{ fp, path string }

// readAgain records the first reading of key in seen, and says whether a
// later one, of fingerprint fp, differs from it: then the record has two
// readings (Temporal events, LangSmith runs).
func readAgain(seen map[string]firstReading, key, fp, path string) (first firstReading, differs bool) {
	first, ok := seen[key]
	if !ok {
		seen[key] = firstReading{fp, path}
		return firstReading{fp, path}, false
	}
	return first, first.fp != fp
}

type temporalReset struct {
	path       string
	line       int
	base, from string
}

// finish adds the problems only the whole run can see.
func (rn *run) finish(res *Result) {
	for _, r := range rn.temporalResets {
		if rn.temporalOwn[r.base] {
			continue
		}
		for i := range res.Inputs {
			if res.Inputs[i].Path == r.path {
				res.Inputs[i].addProblem(Problem{File: r.path, Line: r.line, Task: r.base,
					Message: fmt.Sprintf("run %s resets run %s, whose own history is not among the inputs: what it did after the reset point cannot be ruled out", clip(r.from, 60), clip(r.base, 60))})
				break
			}
		}
	}
}

// Result describes what Read read.
type Result struct {
	Inputs []Input `json:"inputs"`
	// Skipped lists files found in walked directories that are not
	// transcripts (attachments, notes) or not regular files.
	Skipped []string `json:"skipped"`
}

// IsTranscriptName reports whether a file found in a directory is read:
// .jsonl, .ndjson or .json, each optionally .gz, and the names log
// rotation gives them (events.jsonl.1, events.jsonl.2.gz,
// events.jsonl-20261130): a rotated log left out would be a silent gap in
// a history. Zip archives (.zip, .zip.gz, Inspect AI's .eval) are read
// too, by their members: a trace.zip, or a CI artifact that holds one, cut
// or damaged is a problem, never a file skipped.
func IsTranscriptName(name string) bool {
	n := strings.TrimSuffix(strings.ToLower(name), ".gz")
	if i := strings.LastIndexAny(n, ".-"); i > 0 && allDigits(n[i+1:]) && (n[i] == '.' || len(n)-i-1 == 8) {
		n = n[:i] // a rotation suffix: .N, or -YYYYMMDD
	}
	return strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".ndjson") || strings.HasSuffix(n, ".json") ||
		strings.HasSuffix(n, ".eval") || // Inspect AI logs (inspect_eval.go)
		strings.HasSuffix(n, ".zip") // archives: Playwright traces, CI artifacts (inspect_eval.go)
}

func allDigits(s string) bool {
	if s == "" || len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type source struct {
	path  string // display path
	stdin bool
	extra *Extra
}

// file reports whether the source is a path of the file system.
func (s source) file() bool { return !s.stdin && s.extra == nil }

// Read reads every path (files, directories walked for transcript files,
// "-" for standard input) in a canonical order (by path), so that the order
// of paths on the command line never changes the result, and calls emit for
// every event. The error is for paths that do not exist; everything that
// goes wrong inside an input is a Problem of that input.
func Read(paths []string, opt Options, emit func(Event)) (Result, error) {
	var res Result
	var srcs []source
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "-" {
			if !seen["-"] {
				srcs = append(srcs, source{path: "-", stdin: true})
				seen["-"] = true
			}
			continue
		}
		found, skipped, err := expand(p, opt.Ignore)
		if err != nil {
			return res, err
		}
		res.Skipped = append(res.Skipped, skipped...)
		for _, f := range found {
			if !seen[f] {
				seen[f] = true
				srcs = append(srcs, source{path: f})
			}
		}
	}
	for i := range opt.Extra {
		srcs = append(srcs, source{path: opt.Extra[i].Name, extra: &opt.Extra[i]})
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].path < srcs[j].path })
	srcs = sameFilesOnce(srcs)
	sort.Strings(res.Skipped)
	if opt.InputFormat != "" && !knownFormat(opt.InputFormat) {
		return res, fmt.Errorf("--input-format %q is not one of %s", opt.InputFormat, listed(Formats, len(Formats)))
	}
	if opt.InputFormat == FormatProfile && profileSource(opt.Profile) == nil {
		return res, fmt.Errorf("--input-format profile needs --profile with a source section")
	}
	if opt.SpecFieldsOnly {
		// The native reader keeps no other field in the first place; the
		// other readers' events lose theirs here.
		all := emit
		emit = func(e Event) {
			if e.Source == FormatNative {
				all(e)
				return
			}
			for k := range e.Fields {
				if !SpecField(k) {
					delete(e.Fields, k)
				}
			}
			all(e)
		}
	}
	r := &run{opt: opt, emit: emit, seen: map[string]bool{}, pending: map[string]*pendingCall{}, page: map[string]string{},
		temporalOwn: map[string]bool{}, temporalEvents: map[string]firstReading{}, langsmithRuns: map[string]firstReading{}, judgedResults: map[string]string{}}
	r.forks = r.claudeOwners(srcs)
	if workers := runtime.GOMAXPROCS(0); workers > 1 && len(srcs) > 1 {
		res.Inputs = r.readParallel(srcs, workers)
	} else {
		for _, s := range srcs {
			res.Inputs = append(res.Inputs, r.readSource(s))
		}
	}
	r.finish(&res)
	return res, nil
}

// readParallel reads native logs on several cores and everything else in
// order. Native files share no state, so workers read them into buffers
// ahead of time; the caller's goroutine then emits every input's events in
// path order, exactly as the serial loop would, and reads the other formats
// itself (Claude Code copies lines between files: one call counts once,
// the first file in path order wins). At most 2×workers files are buffered.
func (rn *run) readParallel(srcs []source, workers int) []Input {
	type ahead struct {
		in     Input
		events []Event
		native bool // read here; otherwise the caller reads it
	}
	results := make([]chan ahead, len(srcs))
	for i := range results {
		results[i] = make(chan ahead, 1)
	}
	tokens := make(chan struct{}, 2*workers)
	work := make(chan int)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(work)
		for i := range srcs {
			select {
			case tokens <- struct{}{}:
			case <-done:
				return
			}
			select {
			case work <- i:
			case <-done:
				return
			}
		}
	}()
	// Event buffers go round: a file's buffer is reused once its events
	// are emitted (fewer fresh pages for a short run like check).
	buffers := make(chan []Event, 2*workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := range work {
				var a ahead
				select {
				case a.events = <-buffers:
				default:
				}
				if srcs[i].file() {
					a.in, a.native = rn.readNativeAhead(srcs[i], func(e Event) { a.events = append(a.events, e) })
				}
				results[i] <- a
			}
		}()
	}
	inputs := make([]Input, 0, len(srcs))
	for i, s := range srcs {
		a := <-results[i]
		if a.native {
			for _, e := range a.events {
				rn.emit(e)
			}
			inputs = append(inputs, a.in)
			clear(a.events)
			select {
			case buffers <- a.events[:0]:
			default:
			}
		} else {
			inputs = append(inputs, rn.readSource(s))
		}
		<-tokens
	}
	return inputs
}

// readNativeAhead reads a file that is a native log (detected, or forced
// by --input-format) as readSource would; native is false for any other
// file, which is left to readSource.
func (rn *run) readNativeAhead(s source, emit func(Event)) (in Input, native bool) {
	if in, ok := rn.readCached(s, emit); ok {
		rn.checkEmpty(&in, s)
		return in, true
	}
	br, closeFn, in, ok := rn.open(s, true)
	if !ok {
		return in, true
	}
	defer closeFn()
	peek, err := br.Peek(64 << 10)
	format := rn.opt.InputFormat
	if format == "" {
		format = detect(peek, err != nil, rn.opt.Profile)
	}
	if format != FormatNative || isZipArchive(peek) || zipName(s.path) {
		return in, false // (an archive is read by its members, forced or not: readStream)
	}
	in.Format = FormatNative
	readNative(br, &in, rn.opt.MaxLineBytes, rn.keep(), emit)
	rn.checkEmpty(&in, s)
	return in, true
}

// expand turns a path argument into the files it names.
func expand(p string, ignore func(string) bool) (files, skipped []string, err error) {
	clean := filepath.ToSlash(filepath.Clean(p))
	info, err := os.Stat(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
	}
	if !info.IsDir() {
		// A file named on the command line is read whatever its name.
		return []string{clean}, nil, nil
	}
	// Links to directories are followed (a history folder that links to
	// a worker's logs must not be a silent gap), each directory once, so a
	// link loop cannot make the walk endless; files reached twice are read
	// once (sameFilesOnce). The directory named may itself be a link: a
	// trailing separator makes WalkDir start inside it instead of listing
	// the link as a file.
	visited := map[fileID]bool{}
	var walk func(root string, top bool, links int) error
	walk = func(root string, top bool, links int) error {
		if links > maxLinkDepth {
			// Where the system gives no file ids, a bound on nested links
			// stops a loop.
			skipped = append(skipped, filepath.ToSlash(filepath.Clean(root)))
			return nil
		}
		if st, serr := os.Stat(root); serr == nil {
			if id, ok := idOf(st); ok {
				if visited[id] {
					return nil
				}
				visited[id] = true
			}
		}
		return filepath.WalkDir(root, func(path string, d fs.DirEntry, werr error) error {
			disp := filepath.ToSlash(filepath.Clean(path))
			if werr != nil {
				if path == root && top {
					return werr
				}
				// An unreadable subdirectory is read as a file, so that the
				// failure becomes a problem of this run instead of a silent gap.
				files = append(files, disp)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != root {
					if st, serr := os.Stat(path); serr == nil {
						if id, ok := idOf(st); ok {
							if visited[id] {
								return fs.SkipDir
							}
							visited[id] = true
						}
					}
				}
				return nil
			}
			if ignore != nil && ignore(disp) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				st, serr := os.Stat(path)
				if serr == nil && st.IsDir() {
					return walk(path+string(filepath.Separator), false, links+1)
				}
				if !IsTranscriptName(d.Name()) && !isPlaywrightTrace(path) {
					skipped = append(skipped, disp)
					return nil
				}
				if serr == nil && !st.Mode().IsRegular() {
					skipped = append(skipped, disp)
					return nil
				}
			} else if !IsTranscriptName(d.Name()) && !isPlaywrightTrace(path) {
				skipped = append(skipped, disp)
				return nil
			} else if !d.Type().IsRegular() {
				skipped = append(skipped, disp) // FIFOs, sockets, devices
				return nil
			}
			files = append(files, disp)
			return nil
		})
	}
	root := p
	if li, lerr := os.Lstat(p); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
		root = p + string(filepath.Separator)
	}
	err = walk(root, true, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
	}
	return files, skipped, nil
}

// maxLinkDepth bounds how many directory links one walk follows in a row.
const maxLinkDepth = 40

// sameFilesOnce keeps one path of each file: a file named twice through a
// link (a directory and a link into it, say) would count its events twice,
// and a repeated submission is a finding. The first path in path order is
// kept, so the result does not depend on the order of arguments.
func sameFilesOnce(srcs []source) []source {
	seen := map[fileID]bool{}
	var others []os.FileInfo // where the system gives no file id
	out := srcs[:0]
next:
	for _, s := range srcs {
		if st, err := os.Stat(s.path); err == nil && s.file() && st.Mode().IsRegular() {
			if id, ok := idOf(st); ok {
				if seen[id] {
					continue
				}
				seen[id] = true
			} else {
				for _, prev := range others {
					if os.SameFile(prev, st) {
						continue next
					}
				}
				others = append(others, st)
			}
		}
		out = append(out, s)
	}
	return out
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func knownFormat(f string) bool {
	for _, k := range Formats {
		if k == f {
			return true
		}
	}
	return false
}

func (rn *run) readSource(s source) Input {
	if in, ok := rn.readCached(s, rn.emit); ok {
		rn.checkEmpty(&in, s)
		return in
	}
	br, closeFn, in, ok := rn.open(s, true)
	if !ok {
		return in
	}
	defer closeFn()
	rn.readStream(br, &in)
	rn.checkEmpty(&in, s)
	return in
}

// open opens an input and sees through gzip. When it cannot, ok is false
// and the Input says why. counted: the read is the input's own and is told
// to Options.Progress (a look ahead is not).
func (rn *run) open(s source, counted bool) (br *bufio.Reader, closeFn func(), in Input, ok bool) {
	in = Input{Path: s.path, Format: FormatNative, Problems: []Problem{}, maxProblems: rn.opt.MaxProblems}
	if in.maxProblems == 0 {
		in.maxProblems = DefaultMaxProblems
	}
	var closers []io.Closer
	closeFn = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Close()
		}
	}
	var r io.Reader
	if s.extra != nil {
		rc, err := s.extra.Open()
		if err != nil {
			in.addProblem(Problem{File: s.path, Message: "cannot read: " + err.Error()})
			return nil, nil, in, false
		}
		closers = append(closers, rc)
		r = rc
	} else if s.stdin {
		if rn.opt.Stdin == nil {
			in.addProblem(Problem{File: s.path, Message: "standard input is not available"})
			return nil, nil, in, false
		}
		r = rn.opt.Stdin
	} else {
		f, err := os.Open(s.path)
		if err != nil {
			in.addProblem(Problem{File: s.path, Message: "cannot open: " + unwrapPathError(err).Error()})
			return nil, nil, in, false
		}
		closers = append(closers, f)
		if st, err := f.Stat(); err == nil && st.IsDir() {
			in.addProblem(Problem{File: s.path, Message: "cannot read directory"})
			closeFn()
			return nil, nil, in, false
		}
		r = f
	}
	if p := rn.opt.Progress; p != nil && counted {
		p(1, 0)
		r = countedReader{r, p}
	}
	br = bufio.NewReaderSize(r, 64<<10)
	// gzip is recognized by its magic bytes, not only by the name, so that
	// a compressed log piped to standard input is read as well.
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz := new(int64)
		in.gzipped = gz
		zr, err := gzip.NewReader(countedReader{br, func(_ int, n int64) { *gz += n }})
		if err != nil {
			in.addProblem(Problem{File: s.path, Line: 1, Message: "broken gzip header: " + err.Error()})
			closeFn()
			return nil, nil, in, false
		}
		closers = append(closers, zr)
		br = bufio.NewReaderSize(gzipErrors{zr}, 64<<10)
	}
	return br, closeFn, in, true
}

// countedReader tells Options.Progress of the bytes read through it.
type countedReader struct {
	r        io.Reader
	progress func(files int, bytes int64)
}

func (c countedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.progress(0, int64(n))
	}
	return n, err
}

// checkEmpty makes an input with nothing in it a problem.
func (rn *run) checkEmpty(in *Input, s source) {
	if s.extra == nil && in.Records == 0 && in.Events == 0 && len(in.Problems) == 0 && in.Format != FormatUnknown {
		// An empty log is what a crash right after creating the file
		// leaves behind: no crossing in it can be ruled out.
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "no events: the file is empty"})
	}
}

// gzipErrors names the compressed stream in read errors: "unexpected EOF"
// alone does not say that the gzip stream was cut.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip stream: %w", err)
	}
	return n, err
}

// readStream detects the format (unless forced) and reads with its reader.
func (rn *run) readStream(br *bufio.Reader, in *Input) {
	peek, err := br.Peek(64 << 10)
	if isZipArchive(peek) || zipName(in.Path) {
		rn.readZip(br, in) // an archive, whatever --input-format (inspect_eval.go)
		return
	}
	format := rn.opt.InputFormat
	if format == "" {
		format = detect(peek, err != nil, rn.opt.Profile)
	}
	switch format {
	case FormatPlaywright:
		rn.readPlaywright(br, in)
		return
	case FormatNative:
		in.Format = FormatNative
		readNative(br, in, rn.opt.MaxLineBytes, rn.keep(), rn.emit)
		return
	case FormatClaudeCode:
		in.Format = FormatClaudeCode
		rn.readClaudeCode(br, in)
		return
	case formatHookPayloads:
		rn.readHookPayloads(br, in)
		return
	case FormatOTel, FormatOpenInference:
		// Detected from JSON Lines (forced or not): one OTLP export request
		// a line, as the OpenTelemetry Collector's file exporter writes.
		if detect(peek, err != nil, rn.opt.Profile) == FormatOTel {
			in.Format = format
			rn.readOTelLines(br, in)
			return
		}
	case FormatProfile:
		if src := profileSource(rn.opt.Profile); src != nil && src.Records == "" {
			in.Format = FormatProfile
			rn.readProfileLines(br, in)
			return
		}
	}
	// JSON documents are read whole (bounded) and told apart by shape.
	limit := rn.documentLimit()
	doc, tooBig, err := readBounded(br, limit)
	if err != nil {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "input ends early: " + err.Error()})
		return
	}
	if tooBig {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("JSON document larger than the limit of %d bytes; not read", limit)})
		return
	}
	scan := scanJSON(doc)
	orig, cut := doc, 0
	if !scan.ok {
		first := bytes.IndexByte(doc, '\n')
		long := first < 0 || first >= 64<<10
		switch {
		case len(bytes.Trim(doc, " \t\r\n")) == 0:
			in.Format = format // an empty input of a forced format: readSource says so
			return
		case long && first > 0 && validJSON(doc[:first]) && detectLine(gjson.ParseBytes(doc[:first]), rn.opt.Profile) == FormatOTel:
			// Not a document after all: OTLP JSON Lines whose first line
			// was longer than detection could see.
			in.Format = FormatOTel
			rn.readOTelLines(bytes.NewReader(doc), in)
			return
		}
		if fixed, at, ok := rn.salvage(doc, scan); ok {
			doc, cut = fixed, at
		} else if f := firstRecognizedLine(doc, rn.opt.Profile); f != "" && rn.opt.InputFormat == "" {
			// JSON Lines after all, whose first lines were too broken to
			// tell: read line by line, so that no readable line is lost.
			rn.readLines(f, bytes.NewReader(doc), in)
			return
		} else if long {
			// JSON Lines whose first line was longer than detection
			// could see. Read it line by line.
			in.Format = FormatNative
			readNative(bytes.NewReader(doc), in, rn.opt.MaxLineBytes, rn.keep(), rn.emit)
			return
		} else {
			in.addProblem(Problem{File: in.Path, Line: 1, Message: "not valid JSON (neither JSON Lines nor a whole JSON document): the document may be cut"})
			return
		}
	}
	parsed := gjson.ParseBytes(doc)
	if rn.opt.InputFormat == "" {
		format = detectDocument(parsed, rn.opt.Profile)
	}
	in.Format = format
	d := &document{in: in, lines: newLineIndex(doc), root: parsed, cut: cut}
	if cut > 0 {
		in.addProblem(brokenProblem(in, orig, scan))
	}
	if p, bad := utf8Problem(in, doc); bad {
		in.addProblem(p)
	}
	switch format {
	case FormatOpenAI:
		rn.readOpenAI(d)
	case FormatOTel:
		rn.readOTel(d)
	case FormatTemporal:
		rn.readTemporal(d)
	case FormatStepFunctions:
		rn.readStepFunctions(d)
	case FormatInspect:
		rn.readInspect(d)
	case FormatLangSmith:
		rn.readLangSmith(d)
	case FormatOpenInference:
		rn.readOTel(d) // OpenInference spans are OpenTelemetry spans (openinference.go)
	case FormatProfile:
		rn.readProfileDocument(d)
	case formatAmbiguous:
		rn.ambiguousDocument(in, parsed) // detect.go
	case formatSubagentMeta:
		in.Format = FormatUnknown
		in.Notices = append(in.Notices, subagentMetaNotice(parsed))
	default:
		rn.unrecognized(in, "format not recognized ("+describeShape(parsed)+"): not read; use --input-format or a --profile")
	}
}

// unrecognized lists an input no reader reads: with a notice, or, when
// the run must fail closed on it, as a problem of no task.
func (rn *run) unrecognized(in *Input, why string) {
	in.Format = FormatUnknown
	if rn.opt.UnrecognizedIsProblem {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: why + " (a check fails closed on it; --ignore leaves known non-histories out)"})
		return
	}
	in.Notices = append(in.Notices, why)
}

// document is a JSON document being read.
type document struct {
	in    *Input
	lines lineIndex
	root  gjson.Result
	// first is the line the document starts on when it is one record of
	// a JSON Lines file (0 for a whole file).
	first int
	// cut is set for a salvaged document: the offset where its text broke
	// off (see salvage.go).
	cut int
}

// lineOf is the line where a value of the document starts.
func (d *document) lineOf(r gjson.Result) int {
	if d.first > 0 {
		return d.first + d.lines.line(r.Index) - 1
	}
	return d.lines.line(r.Index)
}

// keep says which fields the native reader decodes (nil: all).
func (rn *run) keep() func(string) bool {
	if rn.opt.SpecFieldsOnly {
		return SpecField
	}
	return nil
}

// documentLimit bounds what is read whole: a JSON document, an archive,
// one of its members.
func (rn *run) documentLimit() int {
	if rn.opt.MaxDocumentBytes > 0 {
		return rn.opt.MaxDocumentBytes
	}
	return DefaultMaxDocumentBytes
}

// readBounded reads r whole, up to limit bytes; tooBig says it holds more
// (what was read is then not all of it, and is not returned).
func readBounded(r io.Reader, limit int) (b []byte, tooBig bool, err error) {
	b, err = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > limit {
		return nil, true, nil
	}
	return b, false, nil
}
