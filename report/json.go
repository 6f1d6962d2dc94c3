package report

import (
	"bytes"
	"encoding/json"
	"io"
)

type jsonRenderer struct{}

func (jsonRenderer) Analyze(w io.Writer, r *Report) error {
	cut, err := cutLongStrings(r, json.Marshal, json.Unmarshal)
	if err != nil {
		return err
	}
	return writeJSON(w, cut)
}

func (jsonRenderer) Check(w io.Writer, c *CheckReport) error {
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
