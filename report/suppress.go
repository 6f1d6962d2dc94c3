package report

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

// FingerprintVersion names the recipe of Fingerprint. A baseline written
// with another recipe matches nothing (every finding is new: fail closed).
const FingerprintVersion = "effectlint-fingerprint/v1"

// Fingerprint identifies a finding across runs, so that a baseline or a
// waiver keeps naming it when a transcript grows and its lines move. It is
// the SHA-256 (first 16 bytes, hex) of, joined by NUL:
//
//	effectlint-fingerprint/v1
//	rule                       DUPLICATE_DELIVERY
//	key                        v1|dest=slack/C024BE91L|sha256=… ("" if none)
//	scope                      original ("" if none)
//	task                       the finding's task ("" if none)
//	evidence                   the sorted, distinct TASK/KIND of the events
//	                           it rests on, comma-joined: t1/send_fired,t2/send_fired
//	files                      only for a finding with no key: the sorted,
//	                           distinct evidence files (UNREADABLE_HISTORY of
//	                           which input)
//
// KIND is the event's type (task_started for a task's first line, problem
// for a line that could not be read, event otherwise). Line numbers, times
// and messages are left out: they change when history is added before the
// evidence, which is not a new finding.
func (r *Report) Fingerprint(f policy.Finding) string {
	if r.kinds == nil {
		r.kinds = r.evidenceKinds()
	}
	var ev, files []string
	for _, p := range f.Evidence {
		k, ok := r.kinds[p]
		if !ok {
			k = "event"
		}
		ev = append(ev, k)
		files = append(files, p.File)
	}
	slices.Sort(ev)
	ev = slices.Compact(ev)
	parts := []string{FingerprintVersion, f.Rule, deref(f.Key), deref(f.Scope), deref(f.Task), strings.Join(ev, ",")}
	if f.Key == nil {
		slices.Sort(files)
		parts = append(parts, strings.Join(slices.Compact(files), ","))
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// evidenceKinds names every line the report knows: TASK/TYPE of key scope
// evidence, TASK/task_started of a task's start, problem of a problem line.
func (r *Report) evidenceKinds() map[analyzer.Pointer]string {
	m := map[analyzer.Pointer]string{}
	for _, in := range r.Inputs {
		for _, p := range in.Problems {
			m[analyzer.Pointer{File: p.File, Line: p.Line}] = "problem"
		}
	}
	for _, k := range r.Keys {
		for _, t := range k.Tasks {
			m[t.Start] = t.ID + "/task_started"
		}
		for _, e := range k.Evidence {
			m[analyzer.Pointer{File: e.File, Line: e.Line}] = e.Task + "/" + e.Type
		}
	}
	return m
}

// Suppressions is what a baseline and waivers did to a run's findings
// (an addition to SPEC §8's shape; absent when neither was in effect).
// Suppressed findings stay in findings: the report hides nothing; they
// only stop failing the run.
type Suppressions struct {
	// Baseline is the --baseline file, if one was given.
	Baseline string `json:"baseline,omitempty"`
	// Findings has one entry per finding, in the order of findings.
	Findings []FindingStatus `json:"findings"`
	Tally    Tally           `json:"tally"`
	// Expired lists the waivers whose date has passed: they no longer
	// apply, and the findings they named fail again.
	Expired []Waiver `json:"expired_waivers"`
}

// FindingStatus is one finding's fingerprint and what became of it.
type FindingStatus struct {
	Fingerprint string `json:"fingerprint"`
	// Status is new (not in the baseline, not waived), baseline or waived.
	Status string `json:"status"`
	// Waiver is the waiver that applies (status waived), or the expired
	// waiver that would have (status new).
	Waiver *Waiver `json:"waiver,omitempty"`
}

// Statuses of FindingStatus.
const (
	StatusNew      = "new"
	StatusBaseline = "baseline"
	StatusWaived   = "waived"
)

// Tally counts the findings by status.
type Tally struct {
	New      int `json:"new"`
	Baseline int `json:"baseline"`
	Waived   int `json:"waived"`
	// Expired counts the expired waivers; Gone the baseline entries no
	// finding of this run matched (fixed, or changed).
	Expired int `json:"expired_waivers"`
	Gone    int `json:"baseline_gone"`
}

// Waiver excuses a finding until a date, for a reason (policy data
// effectlint.waivers). It names a finding by fingerprint, or by rule and
// key (every finding of that rule in that key's scopes).
type Waiver struct {
	ID          string `json:"id,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Key         string `json:"key,omitempty"`
	Reason      string `json:"reason"`
	// Expires is when it stops applying: a date (YYYY-MM-DD, from 00:00
	// UTC that day on) or an RFC 3339 time.
	Expires string `json:"expires"`
}

// Suppress records s and judges the run again: it fails only on findings
// at or above --fail-on whose status is new. A fingerprint shared by a new
// finding still fails in every renderer (Fails), as a report cannot tell
// identical findings apart.
func (r *Report) Suppress(s *Suppressions) {
	r.Suppressions = s
	failing := map[string]bool{}
	for _, st := range s.Findings {
		if st.Status == StatusNew {
			failing[st.Fingerprint] = true
		}
	}
	r.quiet = map[string]bool{}
	for _, st := range s.Findings {
		if !failing[st.Fingerprint] {
			r.quiet[st.Fingerprint] = true
		}
	}
	r.Summary.Failed = false
	for _, f := range r.Findings {
		if r.Fails(f) {
			r.Summary.Failed = true
		}
	}
	// A run that read no event judged nothing: no baseline makes it pass.
	if r.Summary.Events == 0 {
		r.Summary.Failed = true
	}
}
