package transcripts

import (
	"bufio"
	"errors"
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
	for {
		chunk, err := l.r.ReadSlice('\n')
		if first && err == nil && len(chunk) <= l.maxBytes {
			// The whole line is in the reader's buffer: no copy (it stays
			// valid until the next call, as promised).
			l.line++
			b := chunk[:len(chunk)-1]
			if n := len(b); n > 0 && b[n-1] == '\r' {
				b = b[:n-1]
			}
			return rawLine{bytes: b, num: l.line}, nil
		}
		first = false
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
			return rawLine{}, err
		}
		if err == io.EOF && len(l.buf) == 0 && !tooLong {
			return rawLine{}, io.EOF
		}
		l.line++
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
