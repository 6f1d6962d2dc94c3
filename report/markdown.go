package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
)

// markdownRenderer writes an incident write-up to paste into a postmortem:
// the summary, a timeline table per key scope, and the findings with links
// to the evidence (relative paths with #Lnn, as GitHub and GitLab render
// them). Every piece of transcript text goes through md or mdCode.
type markdownRenderer struct{}

func mdLink(p analyzer.Pointer) string {
	label := md(fmt.Sprintf("%s:%d", p.File, p.Line))
	if u, ok := lineURI(p); ok {
		return "[" + label + "](" + u + ")"
	}
	return label
}

func mdLinks(ps []analyzer.Pointer) string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, mdLink(p))
	}
	return strings.Join(out, ", ")
}

func (markdownRenderer) Analyze(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	verdict := "PASS"
	if s.Failed {
		verdict = "FAIL"
	}
	b.WriteString("# effectlint report\n\n")
	fmt.Fprintf(&b, "**%s** at `--fail-on %s`: %d key scope(s), %d finding(s). Read %d input(s), %d event(s), %d task(s); %d problem(s).\n\n",
		verdict, s.FailOn, s.Keys, len(r.Findings), s.Inputs, s.Events, s.Tasks, s.Problems)

	b.WriteString("## Summary\n\n")
	b.WriteString("| state | key scopes | severity | findings |\n| --- | ---: | --- | ---: |\n")
	for i := range states {
		fmt.Fprintf(&b, "| %s | %d | %s | %d |\n", states[i], s.States[states[i]], severities[i], s.Findings[severities[i]])
	}
	b.WriteString("\n")
	var problems []string
	for _, in := range r.Inputs {
		for _, p := range in.Problems {
			problems = append(problems, fmt.Sprintf("- problem: %s: %s", mdLink(analyzer.Pointer{File: p.File, Line: p.Line}), md(p.Message)))
		}
		if o := omitted(in); o != "" {
			problems = append(problems, fmt.Sprintf("- %s: %s", md(in.Path), md(o)))
		}
		for _, n := range in.Notices {
			problems = append(problems, fmt.Sprintf("- notice: %s: %s", md(in.Path), md(n)))
		}
	}
	if len(r.Skipped) > 0 {
		problems = append(problems, fmt.Sprintf("- skipped %d non-transcript file(s): %s", len(r.Skipped), md(strings.Join(r.Skipped, ", "))))
	}
	if len(problems) > 0 {
		b.WriteString(strings.Join(problems, "\n") + "\n\n")
	}

	idx := r.findingIndex()
	if len(r.Keys) > 0 {
		b.WriteString("## Key scopes\n\n")
		b.WriteString("Marks: " + mdLegend() + ".\n\n")
	}
	for i, k := range r.Keys {
		tl := r.timeline(k, idx)
		fmt.Fprintf(&b, "### K%d · %s · %s · scope %s\n\n", i+1, k.State, md(destination(k)), md(k.Scope))
		fmt.Fprintf(&b, "- key: %s\n", mdCode(k.Key))
		switch {
		case k.Consumed != nil:
			c := k.Consumed
			fmt.Fprintf(&b, "- consumed: at %s by %s %s (%s)\n", md(c.TS), md(c.Task), md(c.Type),
				mdLink(analyzer.Pointer{File: c.File, Line: c.Line}))
		case effect.Consumes(k.State):
			b.WriteString("- consumed: yes, with no crossing on record (see the findings)\n")
		}
		fmt.Fprintf(&b, "- tasks (%d):\n", len(k.Tasks))
		for _, t := range tl.Lanes {
			fmt.Fprintf(&b, "  - **%s**: %s\n", md(t.ID), md(taskLine(t)))
		}
		if n := len(tl.Collapsed); n > 0 {
			ids := make([]string, 0, 11)
			for j, t := range tl.Collapsed {
				if j == 10 {
					ids = append(ids, fmt.Sprintf("and %d more (all in `--format html` and `json`)", n-10))
					break
				}
				ids = append(ids, md(t.ID)+" ("+mdLink(tl.CollapsedAt[j])+")")
			}
			fmt.Fprintf(&b, "  - %d uneventful task(s) collapsed (%d mark(s) not shown; no crossing, confirmation, uncertainty, interruption or finding): %s\n",
				n, tl.CollapsedMarks, strings.Join(ids, ", "))
		}
		b.WriteString("\n")
		if len(tl.Marks) == 0 {
			b.WriteString("_No evidence to show._\n\n")
			continue
		}
		b.WriteString("| time | task | mark | event | evidence | findings |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, m := range tl.Marks {
			if m.Gap > 0 {
				fmt.Fprintf(&b, "| ⋮ | | | _%s later_ | | |\n", humanGap(m.Gap))
			}
			fs := make([]string, 0, len(m.Findings))
			for _, n := range m.Findings {
				fs = append(fs, fmt.Sprintf("[F%d](#f%d)", n, n))
			}
			mark := glyph(m.Kind) + " " + m.Kind
			what := md(m.What)
			if m.Kind == "crossing" || m.Kind == "confirmation" {
				what = "**" + what + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(m.TS), md(m.Task), md(mark), what, mdLink(m.At), strings.Join(fs, " "))
			if m.Consumed {
				b.WriteString("| **━━** | | | **scope consumed here** | | |\n")
			}
		}
		b.WriteString("\n")
	}

	b.WriteString("## Findings\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("None.\n\n")
	}
	scopeNum := map[[2]string]int{}
	for i, k := range r.Keys {
		scopeNum[[2]string{k.Key, k.Scope}] = i + 1
	}
	for i, f := range r.Findings {
		// An explicit anchor: heading ids differ between renderers.
		fmt.Fprintf(&b, "<a id=\"f%d\"></a>\n\n**F%d · %s · %s**", i+1, i+1, strings.ToUpper(f.Severity), md(f.Rule))
		if f.Task != nil {
			fmt.Fprintf(&b, " · task %s", md(*f.Task))
		}
		fmt.Fprintf(&b, "\n\n%s\n\n", md(f.Message))
		if f.Key != nil {
			if n, ok := scopeNum[[2]string{*f.Key, deref(f.Scope)}]; ok {
				fmt.Fprintf(&b, "- key scope: K%d (%s, scope %s)\n", n, md(destination(r.Keys[n-1])), md(deref(f.Scope)))
			} else {
				fmt.Fprintf(&b, "- key: %s scope %s\n", mdCode(*f.Key), md(deref(f.Scope)))
			}
		}
		if len(f.Evidence) > 0 {
			fmt.Fprintf(&b, "- evidence: %s\n", mdLinks(f.Evidence))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func mdLegend() string {
	parts := make([]string, 0, len(legendOrder))
	for _, k := range legendOrder {
		parts = append(parts, md(glyph(k))+" "+k)
	}
	return strings.Join(parts, ", ")
}

func (markdownRenderer) Check(w io.Writer, c *CheckReport) error {
	var b strings.Builder
	verdict := "ALLOW"
	if c.Decision != "allow" {
		verdict = "STOP"
	}
	fmt.Fprintf(&b, "# effectlint check: %s\n\n**%s** task %s at %s\n\n", verdict, verdict, md(c.Task), md(c.Checkpoint))
	if c.Key != nil {
		fmt.Fprintf(&b, "- key: %s\n- scope: %s\n", mdCode(*c.Key), md(deref(c.Scope)))
	}
	if c.State != nil {
		fmt.Fprintf(&b, "- state: %s\n", md(*c.State))
	}
	if c.Executor != nil {
		fmt.Fprintf(&b, "- executor: %s\n", md(*c.Executor))
	}
	b.WriteString("\n## Reasons\n\n")
	for _, r := range c.Reasons {
		fmt.Fprintf(&b, "- **%s**: %s", md(r.Rule), md(r.Message))
		if len(r.Evidence) > 0 {
			fmt.Fprintf(&b, " (%s)", mdLinks(r.Evidence))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
