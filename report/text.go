package report

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/effectlint/effectlint/analyzer"
)

type textRenderer struct{ opt Options }

// styles are the colors of the text report; with no color they render
// plain text, so the layout never depends on color.
type styles struct {
	head, dim, key, task, state, ok, bad, warn lipgloss.Style
	severity                                   map[string]lipgloss.Style
	class                                      map[string]lipgloss.Style
}

func newStyles(w io.Writer, color string) styles {
	r := lipgloss.NewRenderer(w)
	switch color {
	case "always":
		r.SetColorProfile(termenv.ANSI256)
	case "never":
		r.SetColorProfile(termenv.Ascii)
	default:
		// lipgloss inspects w: no color when it is not a terminal, when
		// NO_COLOR is set (and, as measured, when CI is set).
		if os.Getenv("NO_COLOR") != "" {
			r.SetColorProfile(termenv.Ascii)
		}
	}
	c := func(code string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(code)) }
	return styles{
		head: r.NewStyle().Bold(true), dim: c("245"), key: c("75"), task: r.NewStyle().Bold(true),
		ok: c("42"), bad: c("196").Bold(true), warn: c("214"), state: r.NewStyle().Bold(true),
		severity: map[string]lipgloss.Style{
			"critical": c("196").Bold(true), "high": c("202").Bold(true), "medium": c("214"),
			"low": c("75"), "info": c("245"),
		},
		class: map[string]lipgloss.Style{
			"confirmation": c("42"), "crossing": c("196"), "uncertainty": c("214"),
			"approach": c("75"), "retreat": c("245"), "label": c("177"), "check": c("245"),
		},
	}
}

func (s styles) stateStyle(state string) lipgloss.Style {
	switch state {
	case "not_sent", "open":
		return s.ok
	case "sent_verified":
		return s.warn
	}
	return s.bad
}

// clean makes transcript text safe for a terminal: control characters
// (escape sequences included) are shown escaped, never interpreted.
func clean(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func ptr(p analyzer.Pointer) string { return fmt.Sprintf("%s:%d", clean(p.File), p.Line) }

func (t textRenderer) Analyze(w io.Writer, r *Report) error {
	st := newStyles(w, t.opt.Color)
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "%s %d input(s), %d event(s), %d problem(s), %d task(s), %d key scope(s)\n",
		st.head.Render("effectlint analyze:"), s.Inputs, s.Events, s.Problems, s.Tasks, s.Keys)
	for _, in := range r.Inputs {
		for i, p := range in.Problems {
			if i == 20 {
				fmt.Fprintf(&b, "  %s %d more problem(s) in %s\n", st.bad.Render("!"), len(in.Problems)-20, clean(in.Path))
				break
			}
			fmt.Fprintf(&b, "  %s %s:%d: %s\n", st.bad.Render("problem"), clean(p.File), p.Line, clean(p.Message))
		}
		for _, n := range in.Notices {
			fmt.Fprintf(&b, "  %s %s: %s\n", st.warn.Render("notice"), clean(in.Path), clean(n))
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "  %s %d non-transcript file(s): %s\n", st.dim.Render("skipped"), len(r.Skipped), clean(strings.Join(r.Skipped, ", ")))
	}
	for _, k := range r.Keys {
		b.WriteString("\n")
		t.keyScope(&b, st, k)
	}
	b.WriteString("\n")
	t.findings(&b, st, r)
	b.WriteString("\n")
	b.WriteString(summaryLine(st, r))
	_, err := io.WriteString(w, b.String())
	return err
}

func (t textRenderer) keyScope(b *strings.Builder, st styles, k KeyScope) {
	d := k.Destination
	dest := d.Provider + "/" + d.ID
	if d.Weak() {
		dest = "title only"
	}
	if d.Title != "" {
		dest += fmt.Sprintf(" %q", d.Title)
	}
	fmt.Fprintf(b, "%s %s  %s  scope %s\n", st.stateStyle(k.State).Render("●"),
		st.stateStyle(k.State).Render(k.State), clean(dest), clean(k.Scope))
	fmt.Fprintf(b, "  %s\n", st.key.Render(clean(k.Key)))
	for _, task := range k.Tasks {
		fmt.Fprintf(b, "  %s  %s\n", st.task.Render(clean(task.ID)), st.dim.Render(taskLine(task)))
		type row struct {
			ts, what, class, at string
		}
		var rows []row
		marks := map[int]bool{}
		for _, e := range k.Evidence {
			if e.Task != task.ID {
				continue
			}
			for _, in := range task.Interruptions {
				if in.Segment <= e.Segment && !marks[in.Segment] {
					marks[in.Segment] = true
					rows = append(rows, row{in.TS, "── interrupted (" + in.Reason + ")", "", ptr(in.At)})
				}
			}
			what := e.Type
			if e.Detail != "" {
				what += " " + e.Detail
			}
			rows = append(rows, row{e.TS, what, e.Class, fmt.Sprintf("%s:%d", clean(e.File), e.Line)})
		}
		for _, in := range task.Interruptions {
			if !marks[in.Segment] {
				rows = append(rows, row{in.TS, "── interrupted (" + in.Reason + ")", "", ptr(in.At)})
			}
		}
		for _, r := range rows {
			cls := r.class
			if cls == "" {
				cls = "uncertainty"
			}
			fmt.Fprintf(b, "    %s  %-32s %s %s\n", st.dim.Render(r.ts), clean(r.what),
				st.class[cls].Render(fmt.Sprintf("%-12s", r.class)), st.dim.Render(r.at))
		}
	}
}

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
	return clean(strings.Join(parts, " · "))
}

var severities = []string{"critical", "high", "medium", "low", "info"}

func (t textRenderer) findings(b *strings.Builder, st styles, r *Report) {
	if len(r.Findings) == 0 {
		fmt.Fprintf(b, "%s none\n", st.head.Render("Findings:"))
		return
	}
	fmt.Fprintf(b, "%s %d\n", st.head.Render("Findings:"), len(r.Findings))
	for _, sev := range severities {
		for _, f := range r.Findings {
			if f.Severity != sev {
				continue
			}
			who := ""
			if f.Task != nil {
				who = " task " + clean(*f.Task)
			}
			fmt.Fprintf(b, "  %s %s%s: %s\n", st.severity[sev].Render(fmt.Sprintf("%-8s", strings.ToUpper(sev))),
				st.head.Render(f.Rule), who, clean(f.Message))
			if f.Key != nil {
				fmt.Fprintf(b, "           %s %s\n", st.key.Render(clean(*f.Key)), st.dim.Render("scope "+clean(deref(f.Scope))))
			}
			if len(f.Evidence) > 0 {
				at := make([]string, 0, len(f.Evidence))
				for i, p := range f.Evidence {
					if i == 10 {
						at = append(at, fmt.Sprintf("… %d more", len(f.Evidence)-10))
						break
					}
					at = append(at, ptr(p))
				}
				fmt.Fprintf(b, "           %s %s\n", st.dim.Render("at"), st.dim.Render(strings.Join(at, ", ")))
			}
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func summaryLine(st styles, r *Report) string {
	s := r.Summary
	var states []string
	keys := make([]string, 0, len(s.States))
	for k := range s.States {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		states = append(states, fmt.Sprintf("%d %s", s.States[k], k))
	}
	var fs []string
	for _, sev := range severities {
		if n := s.Findings[sev]; n > 0 {
			fs = append(fs, fmt.Sprintf("%d %s", n, sev))
		}
	}
	line := fmt.Sprintf("%d key scope(s)", s.Keys)
	if len(states) > 0 {
		line += " (" + strings.Join(states, ", ") + ")"
	}
	line += fmt.Sprintf(", %d finding(s)", len(r.Findings))
	if len(fs) > 0 {
		line += " (" + strings.Join(fs, ", ") + ")"
	}
	verdict := st.ok.Render("PASS")
	if s.Failed {
		verdict = st.bad.Render("FAIL")
	}
	return fmt.Sprintf("%s %s: %s (--fail-on %s)\n", st.head.Render("Summary:"), verdict, line, s.FailOn)
}

func (t textRenderer) Check(w io.Writer, c *CheckReport) error {
	st := newStyles(w, t.opt.Color)
	var b strings.Builder
	verdict := st.ok.Render("ALLOW")
	if c.Decision != "allow" {
		verdict = st.bad.Render("STOP")
	}
	fmt.Fprintf(&b, "%s task %s at %s\n", verdict, clean(c.Task), clean(c.Checkpoint))
	if c.Key != nil {
		fmt.Fprintf(&b, "  key      %s\n  scope    %s\n", st.key.Render(clean(*c.Key)), clean(deref(c.Scope)))
	}
	if c.State != nil {
		fmt.Fprintf(&b, "  state    %s\n", st.stateStyle(*c.State).Render(*c.State))
	}
	if c.Executor != nil {
		fmt.Fprintf(&b, "  executor %s\n", clean(*c.Executor))
	}
	for _, r := range c.Reasons {
		fmt.Fprintf(&b, "  %s %s\n", st.head.Render(r.Rule), clean(r.Message))
		if len(r.Evidence) > 0 {
			at := make([]string, 0, len(r.Evidence))
			for _, p := range r.Evidence {
				at = append(at, ptr(p))
			}
			fmt.Fprintf(&b, "    %s %s\n", st.dim.Render("at"), st.dim.Render(strings.Join(at, ", ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
