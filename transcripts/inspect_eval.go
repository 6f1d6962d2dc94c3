package transcripts

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Zip archives: an input that starts with a zip local file header, or
// whose name ends in .zip or .eval (optionally .gz), is read by its
// members, whatever --input-format (a zip is never a JSON history):
// Inspect AI's .eval logs, Playwright's trace archives, and archives that
// hold those one level down (a CI artifact with
// test-results/NAME/trace.zip). An archive with bytes before its first
// member (a self-extracting prefix) is read as unzip reads it.

// formatZip marks an input detection saw to be a zip archive.
const formatZip = "zip"

var zipMagic = []byte("PK\x03\x04")

func isZipArchive(peek []byte) bool { return bytes.HasPrefix(peek, zipMagic) }

// zipName: a path whose name says it is a zip archive (read as one even
// when it does not start with the signature: never as lines of text).
func zipName(p string) bool {
	n := strings.TrimSuffix(strings.ToLower(path.Base(p)), ".gz")
	return strings.HasSuffix(n, ".zip") || strings.HasSuffix(n, ".eval")
}

// readZip reads a zip archive: whole (bounded, as a JSON document is),
// since its directory is at its end.
func (rn *run) readZip(r io.Reader, in *Input) {
	limit := rn.documentLimit()
	if in.gzipped != nil {
		r = &gunzipBound{r: r, compressed: in.gzipped}
	}
	b, tooBig, err := readBounded(r, limit)
	if errors.Is(err, errInflation) {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf(
			"the gzipped archive inflates to more than %d MiB + %d× its compressed bytes, the bound for one input: not read (unpack it and read its files)",
			inflateFloor>>20, inflateRatio)})
		return
	}
	if err != nil {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "archive ends early: " + err.Error()})
		return
	}
	if tooBig {
		in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("zip archive larger than the limit of %d bytes; not read", limit)})
		return
	}
	// The budget is sized by the bytes of the input itself: a gzipped
	// archive by its compressed bytes, and the archive it inflated to is
	// the first thing spent (gzip alone inflates about 1,000 times).
	size := len(b)
	if in.gzipped != nil {
		size = int(min(int64(size), *in.gzipped))
	}
	budget := newInflation(in, size)
	if in.gzipped != nil && !budget.spend(len(b)) {
		return
	}
	var names []string
	if rn.readArchive(b, in, in.Path, 0, limit, budget, &names) {
		return
	}
	rn.unrecognized(in, fmt.Sprintf("a zip archive no reader knows (members %q): not read", names))
}

// readArchive reads one archive's histories into in: its own (an Inspect
// log, a Playwright trace), else those of the archives it holds (*.zip,
// *.eval members) one level down; one more level down is a problem. known is false when nothing in it is a history
// a reader knows (names: some of its members, for the notice).
func (rn *run) readArchive(b []byte, in *Input, display string, depth, limit int, budget *inflation, names *[]string) (known bool) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		// A cut or damaged archive: what it held cannot be told, and it
		// may be any task's history.
		in.addProblem(Problem{File: display, Line: 1, Message: "broken zip archive (" + clip(err.Error(), 120) + "): not read"})
		return true
	}
	if x, y := zipOverlap(zr); x != "" {
		// No writer shares data between entries; a directory that does
		// inflates one stream once per entry (zip_budget.go).
		in.addProblem(Problem{File: display, Line: 1, Message: fmt.Sprintf("members %q and %q share compressed data (an archive built to inflate one stream many times): not read", clip(x, 80), clip(y, 80))})
		return true
	}
	setFormat := func(f string) {
		if in.Format == FormatNative { // (not yet decided: an archive is never native)
			in.Format = f
		}
	}
	if inspectArchive(zr) {
		setFormat(FormatInspect)
		rn.readInspectArchive(zr, in, limit, budget)
		return true
	}
	if a := pwZipArchive(zr, display, limit, budget); a.hasTrace() && pwTraceArchive(zr, budget) {
		setFormat(FormatPlaywright)
		if dup := zipDuplicate(zr); dup != "" {
			// Two entries of one name are two readings of one trace:
			// which one Playwright would show cannot be told.
			in.addProblem(Problem{File: display, Line: 1, Message: fmt.Sprintf("member %q appears twice in the archive: it has two readings; the first is read", clip(dup, 80))})
		}
		rn.readPlaywrightArchive(a, in)
		// Archives it holds besides its resources (a test's artifact zip
		// that also holds a trace.zip, a report's data/*.zip): a fifth
		// review today found the nested trace never read, and a check
		// allowed. A trace's resources may be zips: they are the
		// uploaded files, not histories.
		rn.readNested(zr, in, display, depth, limit, budget, names, func(name string) bool {
			// The trace's own resources/ only: an artifact's
			// test-results/x/resources/trace.zip is another trace.
			return !strings.HasPrefix(name, "resources/")
		})
		return true
	}
	// Neither: the archives it holds.
	return rn.readNested(zr, in, display, depth, limit, budget, names, func(string) bool { return true })
}

// readNested reads the *.zip members of an archive that want says to look
// into, one level down; known is whether any was a history (or a problem).
func (rn *run) readNested(zr *zip.Reader, in *Input, display string, depth, limit int, budget *inflation, names *[]string, want func(name string) bool) (known bool) {
	var nested []*zip.File
	for _, f := range zr.File {
		if len(*names) < 5 {
			*names = append(*names, clip(f.Name, 60))
		}
		if !strings.HasSuffix(f.Name, "/") && zipName(f.Name) && !strings.HasSuffix(strings.ToLower(f.Name), ".gz") && want(f.Name) {
			nested = append(nested, f)
		}
	}
	sort.SliceStable(nested, func(i, j int) bool { return nested[i].Name < nested[j].Name })
	for i, f := range nested {
		at := display + "/" + f.Name
		if i > 0 && nested[i-1].Name == f.Name {
			known = true
			in.addProblem(Problem{File: display, Line: 1, Message: fmt.Sprintf("member %q appears twice in the archive: it has two readings; the first is read", clip(f.Name, 80))})
			continue
		}
		if depth > 0 {
			// Two levels down: not read. It may hold a trace, so it is
			// no silent gap.
			known = true
			in.addProblem(Problem{File: at, Line: 1, Message: "an archive inside an archive inside an archive: not read (archives are read one level deep; unpack it)"})
			continue
		}
		mb, err := zipMember(f, limit, budget)
		if err != nil {
			known = true
			in.addProblem(Problem{File: at, Line: 1, Message: "archive member cannot be read (" + clip(err.Error(), 120) + "): a history it holds is missing"})
			continue
		}
		var inner []string
		if rn.readArchive(mb, in, at, depth+1, limit, budget, &inner) {
			known = true
			continue
		}
		in.Notices = append(in.Notices, fmt.Sprintf("%s: a zip archive no reader knows (members %q): not read", clip(at, 200), inner))
	}
	return known
}

// pwTraceArchive: a Playwright trace archive, not any zip with a file
// named *.trace (a project's sources, say): a *.trace named as Playwright
// names them (trace.trace, N-trace.trace, test.trace), or one that starts
// with a context-options record. A damaged trace.trace is still read (a
// problem), not passed over.
func pwTraceArchive(zr *zip.Reader, budget *inflation) bool {
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".trace") {
			continue
		}
		base := path.Base(f.Name)
		if base == "trace.trace" || base == "test.trace" || strings.HasSuffix(base, "-trace.trace") || startsContext(f, budget) {
			return true
		}
	}
	return false
}

// zipDuplicate names a member that appears twice, if one does.
func zipDuplicate(zr *zip.Reader) string {
	seen := map[string]bool{}
	for _, f := range zr.File {
		if seen[f.Name] {
			return f.Name
		}
		seen[f.Name] = true
	}
	return ""
}

// inspectArchive: a .eval log holds header.json, or (while the eval
// runs) _journal/start.json, and its samples under samples/.
func inspectArchive(zr *zip.Reader) bool {
	for _, f := range zr.File {
		if f.Name == "header.json" || f.Name == "_journal/start.json" {
			return true
		}
	}
	return false
}

// zipMember reads one member, bounded by limit and by the input's budget.
func zipMember(f *zip.File, limit int, budget *inflation) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("larger than the limit of %d bytes", limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, tooBig, err := readBounded(budget.reader(rc), limit)
	if err != nil {
		return nil, err
	}
	if tooBig {
		return nil, fmt.Errorf("larger than the limit of %d bytes", limit)
	}
	return b, nil
}

// readInspectArchive reads a .eval log: its header for the eval, then its
// samples in name order. Lines of events and problems are lines of the
// member (named in problems and in the events' member field).
func (rn *run) readInspectArchive(zr *zip.Reader, in *Input, limit int, budget *inflation) {
	members := map[string]*zip.File{}
	var samples []string
	for _, f := range zr.File {
		if _, dup := members[f.Name]; dup {
			in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("member %q appears twice in the archive: it has two readings", clip(f.Name, 80))})
			continue
		}
		members[f.Name] = f
		if path.Dir(f.Name) == "samples" && strings.HasSuffix(f.Name, ".json") {
			samples = append(samples, f.Name)
		}
	}
	sort.Strings(samples)
	header := gjson.Result{}
	running := false
	for _, name := range []string{"header.json", "_journal/start.json"} {
		f := members[name]
		if f == nil {
			continue
		}
		b, err := zipMember(f, limit, budget)
		if err != nil || !validJSON(b) {
			why := "not valid JSON"
			if err != nil {
				why = err.Error()
			}
			in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("%s: %s: the eval it describes cannot be read", name, clip(why, 120))})
			continue
		}
		header = gjson.ParseBytes(b)
		running = name != "header.json"
		break
	}
	if running {
		// Inspect writes header.json when the eval ends; samples still
		// running are not in the archive yet, and may have crossed.
		in.addProblem(Problem{File: in.Path, Line: 1, Message: "the eval was still running when the archive was read (no header.json): samples still running are not in it, and what they did cannot be seen"})
	}
	ev := inspectEvalOf(header, in.Path)
	conv := rn.conventions(in)
	conv.hold = true
	defer conv.flush()
	held := inspectHeld{}
	for _, name := range samples {
		b, err := zipMember(members[name], limit, budget)
		if err != nil {
			in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("%s: cannot be read (%s): a sample's history is missing", name, clip(err.Error(), 120))})
			continue
		}
		if !validJSON(b) {
			in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("%s: not valid JSON: a sample's history is missing", name)})
			continue
		}
		d := &document{in: in, lines: newLineIndex(b), root: gjson.ParseBytes(b)}
		held.add(d.root)
		e := ev
		e.member = name
		conv.tag = map[string]any{"member": name}
		repeats := findRepeats(d)
		rn.inspectSample(conv, d, repeats, d.root, e)
		repeats.rest(d)
		conv.flush() // the member's held calls, tagged with it
	}
	conv.tag = nil
	if len(samples) == 0 && !running {
		rn.inspectNoSamples(in, header, 1)
		return
	}
	if !running {
		// A running eval's missing samples are its problem already.
		held.missing(in, header, rn.inspectSummaries(in, members, limit, budget), "the archive", 1)
	}
}

// inspectSummaries: the archive's sample summaries (summaries.json, else
// the journal's), each {id, epoch, ...}.
func (rn *run) inspectSummaries(in *Input, members map[string]*zip.File, limit int, budget *inflation) gjson.Result {
	var names []string
	if members["summaries.json"] != nil {
		names = []string{"summaries.json"}
	} else {
		for name := range members {
			if path.Dir(name) == "_journal/summaries" && strings.HasSuffix(name, ".json") {
				names = append(names, name)
			}
		}
		sort.Strings(names)
	}
	var all []string
	for _, name := range names {
		b, err := zipMember(members[name], limit, budget)
		if err != nil || !validJSON(b) || !gjson.ParseBytes(b).IsArray() {
			in.addProblem(Problem{File: in.Path, Line: 1, Message: fmt.Sprintf("%s: not a readable list of samples: which samples the eval ran cannot be told", name)})
			continue
		}
		r := strings.TrimSpace(string(b))
		if inner := strings.TrimSpace(r[1 : len(r)-1]); inner != "" {
			all = append(all, inner)
		}
	}
	return gjson.Parse("[" + strings.Join(all, ",") + "]")
}
