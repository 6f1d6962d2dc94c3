package transcripts

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"sort"
)

// An archive is read by inflating its members, so the work it makes is
// linear in the bytes inflated, not in the bytes of the input. Two bounds
// keep it near linear in the input:
//
//   - the bytes inflated for one input, every member and every archive
//     inside it counted together (and, for a gzipped archive, the archive
//     itself), may not pass inflateFloor plus inflateRatio times the
//     input's own bytes (deflate alone reaches about 1,000 times; two
//     archives nested, a million);
//   - entries whose compressed data overlap are refused: a directory that
//     points many entries at one stream would inflate it once per entry.
//
// Past either, what is left is not read and the input has a problem, so a
// check on it stops (fail closed): an archive built to cost more than its
// size buys a stop, never a gap. An honest archive inflates a few times to
// a few tens of times its size; one that needs more can be unpacked and
// its files read.
const (
	inflateFloor = 16 << 20
	inflateRatio = 128
)

// errInflation: the input's budget of inflated bytes is spent.
var errInflation = errors.New("the archive inflates past the bound for one input")

// inflation is one input's budget of inflated bytes.
type inflation struct {
	in     *Input
	size   int   // the input's bytes
	budget int64 // inflationBound(size)
	left   int64 // bytes that may still be inflated; < 0 once past
	spent  bool  // the problem is written (once)
}

// inflationBound is what an input of size bytes may inflate to.
func inflationBound(size int64) int64 { return int64(inflateFloor) + int64(inflateRatio)*size }

func newInflation(in *Input, size int) *inflation {
	budget := inflationBound(int64(size))
	return &inflation{in: in, size: size, budget: budget, left: budget}
}

// reader counts what r inflates against the budget; past it, reads fail
// with errInflation and the input gets its problem.
func (b *inflation) reader(r io.Reader) io.Reader { return &inflatingReader{r: r, b: b} }

func (b *inflation) exhaust() error {
	if !b.spent {
		b.spent = true
		b.in.addProblem(Problem{File: b.in.Path, Line: 1, Message: fmt.Sprintf(
			"the archive (%d bytes) inflates to more than %d bytes, the bound for one input (%d MiB + %d× its size): what is past it is not read (unpack it and read its files)",
			b.size, b.budget, inflateFloor>>20, inflateRatio)})
	}
	return errInflation
}

// spend counts n bytes already inflated; false (and the problem) when
// they pass the budget.
func (b *inflation) spend(n int) bool {
	b.left -= int64(n)
	if b.left < 0 {
		b.exhaust()
		return false
	}
	return true
}

type inflatingReader struct {
	r io.Reader
	b *inflation
}

func (ir *inflatingReader) Read(p []byte) (int, error) {
	if ir.b.left < 0 {
		return 0, ir.b.exhaust()
	}
	if int64(len(p)) > ir.b.left {
		// One byte past the budget tells "exactly the budget" from "more".
		p = p[:ir.b.left+1]
	}
	n, err := ir.r.Read(p)
	ir.b.left -= int64(n)
	if ir.b.left < 0 {
		return 0, ir.b.exhaust()
	}
	return n, err
}

// zipOverlap names two entries whose compressed data overlap, if two do.
func zipOverlap(zr *zip.Reader) (string, string) {
	type span struct {
		name       string
		start, end int64
	}
	var spans []span
	for _, f := range zr.File {
		if f.CompressedSize64 == 0 {
			continue // no data: nothing inflated twice
		}
		off, err := f.DataOffset()
		if err != nil {
			continue // opening it fails too: a problem where it is read
		}
		end := off + int64(f.CompressedSize64)
		if end < off {
			end = 1<<63 - 1
		}
		spans = append(spans, span{f.Name, off, end})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return spans[i-1].name, spans[i].name
		}
	}
	return "", ""
}

// gunzipBound holds a gzipped archive, while it is gunzipped, to the
// budget of its compressed bytes read so far: a 400 KB .zip.gz that
// inflates to a 256 MiB archive is refused before it is held whole.
type gunzipBound struct {
	r          io.Reader
	compressed *int64 // the gzip stream's bytes read so far
	n          int64
}

func (g *gunzipBound) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.n += int64(n)
	if g.n > inflationBound(*g.compressed) {
		return n, errInflation
	}
	return n, err
}
