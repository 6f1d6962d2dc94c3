package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

type jsonRenderer struct{}

// Analyze writes the report as encoding/json's indented encoder would, but
// one key scope at a time: a month of history is hundreds of megabytes of
// JSON, which need not be in memory at once.
func (jsonRenderer) Analyze(w io.Writer, r *Report) error {
	keys := r.Keys
	if keys == nil {
		return writeJSON(w, r)
	}
	head := *r
	head.Keys = nil
	var buf bytes.Buffer
	if err := writeJSON(&buf, &head); err != nil {
		return err
	}
	const hole = "\n  \"keys\": null,\n"
	before, after, found := bytes.Cut(buf.Bytes(), []byte(hole))
	if !found {
		return writeJSON(w, r)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(before)
	if len(keys) == 0 {
		bw.WriteString("\n  \"keys\": [],\n")
	} else {
		bw.WriteString("\n  \"keys\": [\n    ")
		for i := range keys {
			if i > 0 {
				bw.WriteString(",\n    ")
			}
			b, err := json.MarshalIndent(&keys[i], "    ", "  ")
			if err != nil {
				return err
			}
			bw.Write(b)
		}
		bw.WriteString("\n  ],\n")
	}
	bw.Write(after)
	return bw.Flush()
}

func (jsonRenderer) Check(w io.Writer, c *CheckReport) error { return writeJSON(w, c) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
