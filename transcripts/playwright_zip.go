package transcripts

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// The files of a Playwright trace: a zip archive (read whole, bounded, so
// that one from standard input is read as well), or a .trace file with its
// .network and resources/ beside it.

// pwZipArchive is a trace archive's entries, each read bounded by limit
// and by the input's budget.
func pwZipArchive(zr *zip.Reader, display string, limit int, budget *inflation) *pwArchive {
	entries := map[string]*zip.File{}
	var traces []string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if _, dup := entries[f.Name]; dup {
			continue
		}
		entries[f.Name] = f
		if strings.HasSuffix(f.Name, ".trace") {
			traces = append(traces, f.Name)
		}
	}
	sort.Strings(traces)
	return &pwArchive{
		names:    traces,
		finished: true,
		has:      func(name string) bool { return entries[name] != nil },
		open: func(name string) (io.ReadCloser, error) {
			f := entries[name]
			if f == nil {
				return nil, pwNotExist(name)
			}
			if f.UncompressedSize64 > uint64(limit) {
				return nil, fmt.Errorf("entry %s is larger than the limit of %d bytes", clip(name, 100), limit)
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			return limitedCloser{io.LimitReader(budget.reader(rc), int64(limit)), rc}, nil
		},
		display: func(name string) string { return display + "/" + name },
	}
}

func pwNotExist(name string) error {
	return fmt.Errorf("%s: %w", clip(name, 100), os.ErrNotExist)
}

type limitedCloser struct {
	io.Reader
	io.Closer
}

// pwSingleTrace is one .trace file given by itself: its stream, and, for
// a file on disk, the .network and resources/ of its folder.
func pwSingleTrace(br *bufio.Reader, display string) *pwArchive {
	dir := ""
	onDisk := display != "-"
	if onDisk {
		dir = filepath.Dir(filepath.FromSlash(display))
	}
	name := path.Base(display)
	if !onDisk || !strings.HasSuffix(name, ".trace") {
		name = "stream.trace"
	}
	used := false
	return &pwArchive{
		names: []string{name},
		has: func(n string) bool {
			if n == name {
				return true
			}
			if !onDisk {
				return false
			}
			st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(n)))
			return err == nil && st.Mode().IsRegular()
		},
		open: func(n string) (io.ReadCloser, error) {
			if n == name {
				if used {
					return nil, errors.New("read twice")
				}
				used = true
				return io.NopCloser(br), nil
			}
			if !onDisk {
				return nil, pwNotExist(n)
			}
			// A regular file only: a FIFO beside the trace would block
			// its reader for ever (opening it blocks too).
			p := filepath.Join(dir, filepath.FromSlash(n))
			if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: not a regular file", clip(n, 100))
			}
			return os.Open(p)
		},
		display: func(n string) string {
			if n == name {
				return display
			}
			return filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(n)))
		},
	}
}

// isPlaywrightTrace reports whether a *.trace file found while walking a
// directory is read, although its name is no transcript's: a Playwright
// trace (it starts with context-options), or one that may be a damaged one
// (its first line starts a JSON object that is cut or broken, or it cannot
// be opened). Read, a damaged trace is a problem; skipped, it hid a
// context's delivery (a fifth review: a trace cut in its first record, and
// a check allowed). A trace of another kind (the test runner's test.trace)
// is skipped. (Every *.zip found is read: IsTranscriptName.)
func isPlaywrightTrace(p string) bool {
	if !strings.HasSuffix(strings.ToLower(p), ".trace") {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	if bytes.Contains(head[:n], []byte(`"context-options"`)) {
		return true
	}
	first, _, whole := bytes.Cut(head[:n], []byte("\n"))
	if !whole && n == len(head) {
		return true // a first line longer than the look: it cannot be told
	}
	// A JSON object cut or broken (a damaged trace), not text that is no
	// JSON at all (strace output named *.trace).
	first = bytes.TrimLeft(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")), " \t\r")
	return bytes.HasPrefix(first, []byte("{")) && !gjson.ValidBytes(first)
}

// startsContext: the entry's first bytes hold a context-options record.
func startsContext(e *zip.File, budget *inflation) bool {
	rc, err := e.Open()
	if err != nil {
		return false
	}
	defer rc.Close()
	return headStartsContext(budget.reader(rc))
}

// headStartsContext: the first 4 KiB of r hold a context-options record.
func headStartsContext(r io.Reader) bool {
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	return bytes.Contains(head[:n], []byte(`"context-options"`))
}
