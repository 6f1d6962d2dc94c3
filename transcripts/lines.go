package transcripts

import (
	"bufio"
	"errors"
	"hash"
	"io"
)

// DefaultMaxLineBytes bounds the memory one line may take. Real transcripts
// carry tool outputs of several megabytes on one line; anything beyond this
// is reported as a problem instead of being held in memory.
const DefaultMaxLineBytes = 64 << 20

// lineReader yields the lines of a stream one at a time without holding more
// than one line (at most maxBytes) in memory.
type lineReader struct {
	r        *bufio.Reader
	maxBytes int
	buf      []byte
	line     int
	// For the cache of parsed facts (filecache.go): end is the offset,
	// from where reading began, just past the last line that ended with a
	// newline, and sum, when set, is fed exactly those bytes, so an entry
	// describes the very bytes it was read from. A line with no newline is
	// not part of that prefix (a writer may be half-way through it); when
	// such a line was too long to hold, its bytes went to sum already and
	// spoiled says the sum no longer matches end.
	end     int64
	sum     hash.Hash
	spoiled bool
	failed  bool // a read error ended the input
}

// rawLine is one physical line of input.
type rawLine struct {
	bytes []byte // without the trailing newline (and \r); valid until the next call
	num   int
	// tooLong is set when the line exceeded maxBytes; bytes then holds only
	// its beginning.
	tooLong bool
	// unterminated is set for a last line with no newline: the file may have
	// been cut while it was written.
	unterminated bool
}

func newLineReader(r io.Reader, maxBytes int) *lineReader {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxLineBytes
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), maxBytes: maxBytes}
}

// next returns the next line, io.EOF at the end, or a read error (a broken
// gzip stream, an I/O error) which ends the input.
func (l *lineReader) next() (rawLine, error) {
	l.buf = l.buf[:0]
	tooLong := false
	first := true
	var n int64 // bytes of this line read so far
	for {
		chunk, err := l.r.ReadSlice('\n')
		if first && err == nil && len(chunk) <= l.maxBytes {
			// The whole line is in the reader's buffer: no copy (it stays
			// valid until the next call, as promised).
			l.line++
			l.end += int64(len(chunk))
			if l.sum != nil {
				l.sum.Write(chunk)
			}
			b := chunk[:len(chunk)-1]
			if n := len(b); n > 0 && b[n-1] == '\r' {
				b = b[:n-1]
			}
			return rawLine{bytes: b, num: l.line}, nil
		}
		first = false
		n += int64(len(chunk))
		if l.sum != nil && (tooLong || len(l.buf)+len(chunk) > l.maxBytes) {
			// Not held whole: hashed as it streams by.
			if !tooLong {
				l.sum.Write(l.buf)
			}
			l.sum.Write(chunk)
		}
		if !tooLong {
			if len(l.buf)+len(chunk) > l.maxBytes {
				room := l.maxBytes - len(l.buf)
				if room > 0 {
					l.buf = append(l.buf, chunk[:room]...)
				}
				tooLong = true
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			l.failed = true
			return rawLine{}, err
		}
		if err == io.EOF && len(l.buf) == 0 && !tooLong {
			return rawLine{}, io.EOF
		}
		l.line++
		if err == nil {
			l.end += n
			if l.sum != nil && !tooLong {
				l.sum.Write(l.buf)
			}
		} else if tooLong && l.sum != nil {
			l.spoiled = true
		}
		out := rawLine{num: l.line, tooLong: tooLong}
		b := l.buf
		if n := len(b); n > 0 && b[n-1] == '\n' && !tooLong {
			b = b[:n-1]
		} else if err == io.EOF {
			out.unterminated = true
		}
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		out.bytes = b
		return out, nil
	}
}

// blankLine reports whether a JSON Lines reader skips l: JSON white space
// only (space, tab, CR, LF). Any other character, a form feed or a Unicode
// space included, is not JSON, and the line is a problem, not lost (the
// native reader once trimmed Unicode white space here, and a line of a
// form feed vanished without a word: FuzzReadNative).
func blankLine(l rawLine) bool {
	if l.tooLong {
		return false
	}
	for _, c := range l.bytes {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
