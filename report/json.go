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
	if r.Tool == nil {
		cp := *r
		cp.Tool = CurrentTool()
		r = &cp
	}
	// Long transcript text is cut to excerpts (cutLongStrings) piece by
	// piece: the head, then each key scope, never the whole report at once.
	keys := r.Keys
	if keys == nil {
		cut, err := cutLongStrings(r, json.Marshal, json.Unmarshal)
		if err != nil {
			return err
		}
		return writeJSON(w, cut)
	}
	head := *r
	head.Keys = nil
	cutHead, err := cutLongStrings(&head, json.Marshal, json.Unmarshal)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, cutHead); err != nil {
		return err
	}
	const hole = "\n  \"keys\": null,\n"
	before, after, found := bytes.Cut(buf.Bytes(), []byte(hole))
	if !found {
		return writeJSON(w, cutHead)
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
			k, err := cutLongStrings(&keys[i], json.Marshal, json.Unmarshal)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(k, "    ", "  ")
			if err != nil {
				return err
			}
			bw.Write(escapeJSONControls(b))
		}
		bw.WriteString("\n  ],\n")
	}
	bw.Write(after)
	return bw.Flush()
}

func (jsonRenderer) Check(w io.Writer, c *CheckReport) error {
	if c.Tool == nil {
		cp := *c
		cp.Tool = CurrentTool()
		c = &cp
	}
	cut, err := cutLongStrings(c, json.Marshal, json.Unmarshal)
	if err != nil {
		return err
	}
	return writeJSON(w, cut)
}

func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(b.Bytes()))
	return err
}

// Excerpted returns v (a report or an answer, by pointer) as the JSON
// report would show it: strings longer than MaxText cut to excerpts, so
// that a surface that encodes v itself (the MCP server's structured
// results) echoes no more of a hostile transcript than the JSON report.
// It returns v itself when no string is that long.
func Excerpted[T any](v *T) (*T, error) {
	return cutLongStrings(v, json.Marshal, json.Unmarshal)
}
