package report

import (
	"fmt"
	"sort"
	"time"

	"github.com/effectlint/effectlint/analyzer"
)

// The timeline is how people see a key scope: one lane per task, one mark
// per evidence fact or interruption, in the order the analyzer gave the
// events. It is presentation only: classes come from the policy, the moment
// of consumption from Build; nothing here decides anything.

// CollapseAbove is the number of tasks of a key scope above which tasks
// with nothing notable (see Timeline) are collapsed: with 200 workers that
// each asked the gate and were told to stop, the story is in the few that
// crossed.
const CollapseAbove = 12

// Mark kinds besides the policy's evidence classes.
const kindInterruption = "interruption"

// Mark is one row of a timeline.
type Mark struct {
	Seq  int
	TS   string
	Task string
	// What names the event: "picker_accepted", "gate_check send allow",
	// "interrupted (overnight)".
	What string
	// Kind is the evidence class the policy gave (confirmation, crossing,
	// uncertainty, approach, retreat, label, check, other) or
	// "interruption".
	Kind string
	At   analyzer.Pointer
	// Consumed marks the evidence from which on the scope was consumed.
	Consumed bool
	// Findings are the numbers (1-based, in report order) of the findings
	// whose evidence points at this mark.
	Findings []int
	// Gap is the time since the previous mark when it is an hour or more
	// (the overnight in the incident), else 0.
	Gap time.Duration
	// NewDay is set on the first mark and on each mark whose date differs
	// from the previous one's.
	NewDay bool
}

// Date and Clock split the mark's timestamp for display.
func (m Mark) Date() string {
	if len(m.TS) >= 10 {
		return m.TS[:10]
	}
	return m.TS
}

// Clock is the time-of-day part of the timestamp (with any offset).
func (m Mark) Clock() string {
	if len(m.TS) > 11 {
		return m.TS[11:]
	}
	return m.TS
}

// Timeline is a key scope laid out for drawing.
type Timeline struct {
	// Lanes are the tasks drawn, in the scope's task order (by start).
	Lanes []TaskSummary
	// Marks are the marks of the lanes' tasks, in time order.
	Marks []Mark
	// Collapsed are the tasks not drawn because nothing notable happened
	// in them; CollapsedMarks counts their marks.
	Collapsed      []TaskSummary
	CollapsedMarks int
	// CollapsedAt points at one event of each collapsed task, in the order
	// of Collapsed, so that even a collapsed task can be looked up.
	CollapsedAt []analyzer.Pointer
}

// findingIndex maps an evidence pointer to the numbers of the findings
// that cite it.
type findingIndex map[analyzer.Pointer][]int

func (r *Report) findingIndex() findingIndex {
	idx := findingIndex{}
	for i, f := range r.Findings {
		for _, p := range f.Evidence {
			if n := idx[p]; len(n) == 0 || n[len(n)-1] != i+1 {
				idx[p] = append(idx[p], i+1)
			}
		}
	}
	return idx
}

// Timeline lays out key scope k of r.
func (r *Report) Timeline(k KeyScope) Timeline {
	return r.timeline(k, r.findingIndex())
}

func (r *Report) timeline(k KeyScope, idx findingIndex) Timeline {
	var all []Mark
	for _, e := range k.Evidence {
		what := e.Type
		if e.Detail != "" {
			what += " " + e.Detail
		}
		all = append(all, Mark{Seq: e.Seq, TS: e.TS, Task: e.Task, What: what, Kind: e.Class,
			At:       analyzer.Pointer{File: e.File, Line: e.Line},
			Consumed: k.Consumed != nil && k.Consumed.Seq == e.Seq && k.Consumed.Task == e.Task})
	}
	for _, t := range k.Tasks {
		for _, in := range t.Interruptions {
			what := "interrupted"
			if in.Reason != "" {
				what += " (" + in.Reason + ")"
			}
			all = append(all, Mark{Seq: in.Seq, TS: in.TS, Task: t.ID, What: what, Kind: kindInterruption, At: in.At})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seq < all[j].Seq })
	for i := range all {
		all[i].Findings = idx[all[i].At]
	}

	// A task is notable when something in it may have changed the world
	// or left doubt (crossing, confirmation, uncertainty, interruption),
	// when a finding names it, or when a finding cites one of its events.
	notable := map[string]bool{}
	for _, m := range all {
		switch m.Kind {
		case "crossing", "confirmation", "uncertainty", kindInterruption:
			notable[m.Task] = true
		}
		if len(m.Findings) > 0 {
			notable[m.Task] = true
		}
	}
	for _, f := range r.Findings {
		if f.Task != nil && f.Key != nil && *f.Key == k.Key && deref(f.Scope) == k.Scope {
			notable[*f.Task] = true
		}
	}
	var tl Timeline
	collapse := len(k.Tasks) > CollapseAbove
	drawn := map[string]bool{}
	first := map[string]analyzer.Pointer{}
	for _, m := range all {
		if _, ok := first[m.Task]; !ok {
			first[m.Task] = m.At
		}
	}
	for _, t := range k.Tasks {
		if collapse && !notable[t.ID] {
			tl.Collapsed = append(tl.Collapsed, t)
			p, ok := first[t.ID]
			if !ok {
				p = t.Start
			}
			tl.CollapsedAt = append(tl.CollapsedAt, p)
			continue
		}
		drawn[t.ID] = true
		tl.Lanes = append(tl.Lanes, t)
	}
	var prev *time.Time
	prevDate := ""
	for _, m := range all {
		if !drawn[m.Task] {
			tl.CollapsedMarks++
			continue
		}
		if ts, err := time.Parse(time.RFC3339Nano, m.TS); err == nil {
			if prev != nil && ts.Sub(*prev) >= time.Hour {
				m.Gap = ts.Sub(*prev)
			}
			prev = &ts
		}
		m.NewDay = m.Date() != prevDate
		prevDate = m.Date()
		tl.Marks = append(tl.Marks, m)
	}
	return tl
}

// humanGap says how long a gap was, to the minute: "15h 9m".
func humanGap(d time.Duration) string {
	d = d.Round(time.Minute)
	days, h, m := int(d.Hours())/24, int(d.Hours())%24, int(d.Minutes())%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh %dm", days, h, m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh %dm", h, m)
}

// glyphs are the marks of the text and Markdown timelines; each is one
// terminal cell wide and readable without color.
var glyphs = map[string]string{
	"approach":       ">",
	"retreat":        "<",
	"crossing":       "X",
	"confirmation":   "✓",
	"uncertainty":    "?",
	kindInterruption: "‖",
	"label":          "\"",
	"check":          "g",
	"other":          "·",
}

func glyph(kind string) string {
	if g, ok := glyphs[kind]; ok {
		return g
	}
	return "·"
}

// legendOrder is the order kinds are explained in legends.
var legendOrder = []string{"approach", "retreat", "crossing", "confirmation", "uncertainty", kindInterruption, "label", "check"}

// destination names a key scope's destination for people.
func destination(k KeyScope) string {
	d := k.Destination
	dest := d.Provider + "/" + d.ID
	if d.Weak() {
		dest = "title only"
	}
	if d.Title != "" {
		dest += fmt.Sprintf(" %q", d.Title)
	}
	return dest
}

// taskLine describes a task in one line (relation, parent, how it ended).
func taskLine(t TaskSummary) string {
	parts := []string{t.Relation}
	if t.Resumes != "" {
		parts = append(parts, "resumes "+t.Resumes)
	}
	if t.Parent != "" {
		parts = append(parts, "parent "+t.Parent)
	}
	switch {
	case t.Ended:
		parts = append(parts, "ended "+t.Status)
	case t.SupersededBy != "":
		parts = append(parts, "superseded by "+t.SupersededBy)
	default:
		parts = append(parts, "running")
	}
	if n := len(t.Interruptions); n > 0 {
		parts = append(parts, fmt.Sprintf("%d interruption(s)", n))
	}
	if !t.Complete {
		parts = append(parts, "HISTORY INCOMPLETE")
	}
	return joinParts(parts)
}

func joinParts(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += " · "
		}
		out += p
	}
	return out
}

// states and severities list what the summaries count, in a fixed order:
// the consumed states first, as SPEC §4 orders them.
var (
	states     = []string{"sent_verified", "send_status_unknown", "in_flight", "not_sent", "open"}
	severities = []string{"critical", "high", "medium", "low", "info"}
)

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
