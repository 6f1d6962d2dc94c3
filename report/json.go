package report

import (
	"encoding/json"
	"io"
)

type jsonRenderer struct{}

func (jsonRenderer) Analyze(w io.Writer, r *Report) error { return writeJSON(w, r) }

func (jsonRenderer) Check(w io.Writer, c *CheckReport) error { return writeJSON(w, c) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
