// Package baseline lets CI adopt effectlint on histories that already have
// findings: a baseline file records the findings of one run, and a later
// run fails only on findings not in it; waivers (policy data `waivers`)
// excuse a finding for a reason until a date. Both name findings by
// report.Fingerprint, which survives lines moving.
//
// Suppression never changes a verdict: the findings stay in the report,
// marked, and only stop failing the run.
package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/effectlint/effectlint/report"
)

// Version names the shape of a baseline file.
const Version = "effectlint.baseline/v1"

// File is a baseline: the findings of one run.
type File struct {
	Version string `json:"version"`
	// Fingerprint names the recipe its fingerprints were made with.
	Fingerprint string  `json:"fingerprint"`
	Findings    []Entry `json:"findings"`
}

// Entry is one finding of a baseline. Only Fingerprint matches; the rest
// is for the person who reviews the file.
type Entry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	Severity    string `json:"severity"`
	Key         string `json:"key,omitempty"`
	Scope       string `json:"scope,omitempty"`
	Task        string `json:"task,omitempty"`
	Message     string `json:"message"`
}

// FromReport is the baseline of a report: every finding, whatever its
// severity, sorted by fingerprint (so a rewrite after a change shows a
// small diff).
func FromReport(r *report.Report) *File {
	f := &File{Version: Version, Fingerprint: report.FingerprintVersion, Findings: []Entry{}}
	for _, fd := range r.Findings {
		e := Entry{Fingerprint: r.Fingerprint(fd), Rule: fd.Rule, Severity: fd.Severity, Message: fd.Message}
		if fd.Key != nil {
			e.Key = *fd.Key
		}
		if fd.Scope != nil {
			e.Scope = *fd.Scope
		}
		if fd.Task != nil {
			e.Task = *fd.Task
		}
		f.Findings = append(f.Findings, e)
	}
	sort.SliceStable(f.Findings, func(i, j int) bool {
		a, b := f.Findings[i], f.Findings[j]
		if a.Fingerprint != b.Fingerprint {
			return a.Fingerprint < b.Fingerprint
		}
		return a.Message < b.Message
	})
	return f
}

// Write writes f as indented JSON.
func (f *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(f)
}

// WriteFile writes f to path.
func (f *File) WriteFile(path string) error {
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Read reads a baseline file. A file of another shape or fingerprint
// recipe is an error, not an empty baseline: silently matching nothing
// would fail every finding, and silently matching wrongly could pass one.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, errors.Unwrap(err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("baseline %s: not a baseline file (%v)", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("baseline %s: more than one JSON value", path)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("baseline %s: version %q, want %q", path, f.Version, Version)
	}
	if f.Fingerprint != report.FingerprintVersion {
		return nil, fmt.Errorf("baseline %s: fingerprints made with %q, this effectlint makes %q: write it again with --write-baseline", path, f.Fingerprint, report.FingerprintVersion)
	}
	for i, e := range f.Findings {
		if len(e.Fingerprint) != 32 || strings.Trim(e.Fingerprint, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("baseline %s: finding %d: fingerprint %q is not 32 lower-case hex digits", path, i+1, e.Fingerprint)
		}
	}
	return &f, nil
}

// DataName is the top-level name of the waivers in policy data (--data):
// data.effectlint belongs to the built-in rules.
const DataName = "waivers"

// Waiver is a waiver and when it stops applying.
type Waiver struct {
	report.Waiver
	// Until is the first instant it no longer applies.
	Until time.Time
}

// Waivers reads data.waivers: a list of objects, each with a reason, an
// expires date, and either a fingerprint or a rule and a key. Anything
// else — an unknown field (a misspelt "expire"), a missing reason, an
// unreadable date — is an error: a waiver that does not say what it
// excuses, why and until when excuses nothing.
func Waivers(data map[string]any) ([]Waiver, error) {
	raw, ok := data[DataName]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("data.%s: %v", DataName, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ws []report.Waiver
	if err := dec.Decode(&ws); err != nil {
		return nil, fmt.Errorf("data.%s: want a list of {id, fingerprint | rule and key, reason, expires}: %v", DataName, err)
	}
	out := make([]Waiver, 0, len(ws))
	for i, w := range ws {
		name := fmt.Sprintf("data.%s[%d]", DataName, i)
		if w.ID != "" {
			name += " (" + w.ID + ")"
		}
		switch {
		case strings.TrimSpace(w.Reason) == "":
			return nil, fmt.Errorf("%s: a waiver needs a reason", name)
		case w.Fingerprint == "" && (w.Rule == "" || w.Key == ""):
			return nil, fmt.Errorf("%s: name the finding by fingerprint, or by rule and key", name)
		case w.Fingerprint != "" && (w.Rule != "" || w.Key != ""):
			return nil, fmt.Errorf("%s: give a fingerprint or a rule and key, not both", name)
		}
		until, err := until(w.Expires)
		if err != nil {
			return nil, fmt.Errorf("%s: expires %q: %v", name, w.Expires, err)
		}
		if strings.HasSuffix(w.Expires, "T00:00:00Z") {
			// An unquoted YAML date, shown as it was written.
			w.Expires = strings.TrimSuffix(w.Expires, "T00:00:00Z")
		}
		out = append(out, Waiver{Waiver: w, Until: until})
	}
	return out, nil
}

// until reads expires: the waiver stops applying at that instant, and a
// date (YYYY-MM-DD) is its first moment, 00:00 UTC: a waiver "expires
// 2026-12-31" applies on December 30th, not on the 31st. YAML reads an
// unquoted date as that same midnight, so quoted or not it means one thing.
func until(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("a waiver needs an expires date (YYYY-MM-DD)")
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("want a date YYYY-MM-DD or an RFC 3339 time")
}

// matches reports whether w names finding i of r.
func (w Waiver) matches(r *report.Report, i int, fp string) bool {
	if w.Fingerprint != "" {
		return w.Fingerprint == fp
	}
	f := r.Findings[i]
	return f.Rule == w.Rule && f.Key != nil && *f.Key == w.Key
}

// Apply marks r's findings against a baseline (nil: none; path names it)
// and waivers at time now, and judges the run again (report.Suppress).
// A waiver that applies wins over the baseline; an expired one applies to
// nothing and is listed. A baseline entry suppresses one finding: two
// findings with one fingerprint need two entries.
func Apply(r *report.Report, base *File, path string, waivers []Waiver, now time.Time) {
	s := &report.Suppressions{Baseline: path, Findings: []report.FindingStatus{}, Expired: []report.Waiver{}}
	left := map[string]int{}
	if base != nil {
		for _, e := range base.Findings {
			left[e.Fingerprint]++
		}
	}
	for _, w := range waivers {
		if !now.Before(w.Until) {
			s.Expired = append(s.Expired, w.Waiver)
		}
	}
	for i, f := range r.Findings {
		fp := r.Fingerprint(f)
		st := report.FindingStatus{Fingerprint: fp, Status: report.StatusNew}
		// The baseline entry is taken even when a waiver applies: it is
		// not gone, and it still holds when the waiver expires.
		known := left[fp] > 0
		if known {
			left[fp]--
		}
		for _, w := range waivers {
			if !w.matches(r, i, fp) {
				continue
			}
			ww := w.Waiver
			if now.Before(w.Until) {
				st.Status, st.Waiver = report.StatusWaived, &ww
				break
			}
			if st.Waiver == nil {
				st.Waiver = &ww // expired: said, not applied
			}
		}
		if st.Status == report.StatusNew && known {
			st.Status, st.Waiver = report.StatusBaseline, nil
		}
		switch st.Status {
		case report.StatusNew:
			s.Tally.New++
		case report.StatusBaseline:
			s.Tally.Baseline++
		case report.StatusWaived:
			s.Tally.Waived++
		}
		s.Findings = append(s.Findings, st)
	}
	for _, n := range left {
		s.Tally.Gone += n
	}
	s.Tally.Expired = len(s.Expired)
	r.Suppress(s)
}

// Summary is the tally in words, for the text report: one line, or ""
// when nothing was in effect.
func Summary(s *report.Suppressions) string {
	if s == nil {
		return ""
	}
	t := s.Tally
	var parts []string
	parts = append(parts, fmt.Sprintf("%d new finding(s)", t.New))
	if s.Baseline != "" {
		parts = append(parts, fmt.Sprintf("%d in the baseline %s", t.Baseline, s.Baseline))
	}
	if t.Waived > 0 || len(s.Expired) > 0 {
		parts = append(parts, fmt.Sprintf("%d waived", t.Waived))
	}
	line := "suppressions: " + strings.Join(parts, ", ")
	if t.Gone > 0 {
		line += fmt.Sprintf("; %d baseline finding(s) no longer found", t.Gone)
	}
	line += "\n"
	for _, w := range s.Expired {
		name := w.ID
		if name == "" {
			name = w.Fingerprint
			if name == "" {
				name = w.Rule + " " + w.Key
			}
		}
		line += fmt.Sprintf("expired waiver %s (expires %s): no longer applies; reason was: %s\n", name, w.Expires, w.Reason)
	}
	return line
}
