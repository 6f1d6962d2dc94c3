// Package bench holds what scripts/bench.sh and the Go benchmarks share: the
// bare gjson scan that analyze's speed is measured against.
package bench

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Files lists the JSON Lines files under dir, in path order.
func Files(dir string) ([]string, int64, error) {
	var files []string
	var size int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return err
		}
		info, err := d.Info()
		if err == nil {
			files, size = append(files, p), size+info.Size()
		}
		return err
	})
	sort.Strings(files)
	return files, size, err
}

// GJSONScan reads every line of every file and extracts, with gjson, every
// top-level field (the fields the native reader extracts), in one ForEach
// per line: no validation, no events, one goroutine. It returns the number
// of fields and a checksum so that nothing is optimized away.
func GJSONScan(files []string) (fields, sink int, err error) {
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return 0, 0, err
		}
		r := bufio.NewReaderSize(f, 1<<20)
		var long []byte
		for {
			line, err := r.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long, line...)
				continue
			}
			if long != nil {
				line, long = append(long, line...), nil
			}
			if len(line) > 0 {
				gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
					fields++
					sink += len(k.Str) + len(v.Str) + len(v.Raw)
					return true
				})
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return 0, 0, err
			}
		}
		f.Close()
	}
	return fields, sink, nil
}
