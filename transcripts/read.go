package transcripts

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Options configure Read.
type Options struct {
	// Stdin is read for the path "-".
	Stdin io.Reader
	// MaxLineBytes bounds one line (DefaultMaxLineBytes when zero).
	MaxLineBytes int
	// Ignore, when set, leaves out files found while walking a directory
	// for which it returns true: neither read nor listed as skipped (the
	// expected.yaml of an `effectlint test` case is not part of its
	// history). Files named as arguments are always read.
	Ignore func(path string) bool
}

// Result describes what Read read.
type Result struct {
	Inputs []Input `json:"inputs"`
	// Skipped lists files found in walked directories that are not
	// transcripts (attachments, notes) or not regular files.
	Skipped []string `json:"skipped"`
}

// IsTranscriptName reports whether a file found in a directory is read:
// .jsonl, .ndjson or .json, each optionally .gz.
func IsTranscriptName(name string) bool {
	n := strings.ToLower(strings.TrimSuffix(strings.ToLower(name), ".gz"))
	return strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".ndjson") || strings.HasSuffix(n, ".json")
}

type source struct {
	path  string // display path
	stdin bool
}

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
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].path < srcs[j].path })
	sort.Strings(res.Skipped)
	for _, s := range srcs {
		res.Inputs = append(res.Inputs, readSource(s, opt, emit))
	}
	return res, nil
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
	// WalkDir does not follow symbolic links to directories, so a link loop
	// cannot make the walk endless; links to regular files are read.
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, werr error) error {
		disp := filepath.ToSlash(path)
		if werr != nil {
			if path == p {
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
			return nil
		}
		if ignore != nil && ignore(disp) {
			return nil
		}
		if !IsTranscriptName(d.Name()) {
			skipped = append(skipped, disp)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			st, serr := os.Stat(path)
			if serr == nil && !st.Mode().IsRegular() {
				skipped = append(skipped, disp)
				return nil
			}
		} else if !d.Type().IsRegular() {
			skipped = append(skipped, disp) // FIFOs, sockets, devices
			return nil
		}
		files = append(files, disp)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
	}
	return files, skipped, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func readSource(s source, opt Options, emit func(Event)) Input {
	in := Input{Path: s.path, Format: FormatNative, Problems: []Problem{}}
	var r io.Reader
	if s.stdin {
		if opt.Stdin == nil {
			in.Problems = append(in.Problems, Problem{File: s.path, Message: "standard input is not available"})
			return in
		}
		r = opt.Stdin
	} else {
		f, err := os.Open(s.path)
		if err != nil {
			in.Problems = append(in.Problems, Problem{File: s.path, Message: "cannot open: " + unwrapPathError(err).Error()})
			return in
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			in.Problems = append(in.Problems, Problem{File: s.path, Message: "cannot read directory"})
			return in
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	// gzip is recognized by its magic bytes, not only by the name, so that
	// a compressed log piped to standard input is read as well.
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.Problems = append(in.Problems, Problem{File: s.path, Line: 1, Message: "broken gzip header: " + err.Error()})
			return in
		}
		defer zr.Close()
		readNative(zr, &in, opt.MaxLineBytes, emit)
	} else {
		readNative(br, &in, opt.MaxLineBytes, emit)
	}
	if in.Events == 0 && len(in.Problems) == 0 {
		// An empty log is what a crash right after creating the file
		// leaves behind: no crossing in it can be ruled out.
		in.Problems = append(in.Problems, Problem{File: s.path, Line: 1, Message: "no events: the file is empty"})
	}
	return in
}
