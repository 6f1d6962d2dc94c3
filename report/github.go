package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

// githubRenderer writes GitHub Actions workflow commands: one annotation per
// finding, on the file and line of its primary evidence, so findings show up
// on the transcripts in a pull request's diff.
type githubRenderer struct{}

// githubLevel maps a severity to a workflow command.
func githubLevel(severity string) string {
	switch severity {
	case "critical", "high":
		return "error"
	case "medium":
		return "warning"
	}
	return "notice"
}

// githubData escapes a command's message as the runner unescapes it.
func githubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// githubProperty escapes a property value: also ':' and ',', which would
// otherwise end the value.
func githubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// primaryEvidence picks the pointer an annotation or SARIF result is placed
// on: the first piece of evidence from the finding's own task (a duplicate
// is the second task's fault, so it lands on the second task's line), else
// the first piece of evidence.
func (r *Report) primaryEvidence(f policy.Finding, owner map[analyzer.Pointer]string) (analyzer.Pointer, bool) {
	if len(f.Evidence) == 0 {
		return analyzer.Pointer{}, false
	}
	if f.Task != nil {
		for _, p := range f.Evidence {
			if owner[p] == *f.Task {
				return p, true
			}
		}
	}
	return f.Evidence[0], true
}

// evidenceOwners maps every evidence pointer of the report to its task.
func (r *Report) evidenceOwners() map[analyzer.Pointer]string {
	owner := map[analyzer.Pointer]string{}
	for _, k := range r.Keys {
		for _, e := range k.Evidence {
			owner[analyzer.Pointer{File: e.File, Line: e.Line}] = e.Task
		}
		for _, t := range k.Tasks {
			for _, in := range t.Interruptions {
				owner[in.At] = t.ID
			}
		}
	}
	return owner
}

func (githubRenderer) Analyze(w io.Writer, r *Report) error {
	var b strings.Builder
	owner := r.evidenceOwners()
	for i, f := range r.Findings {
		props := []string{}
		level, title := githubLevel(f.Severity), clean(f.Rule)+" ("+f.Severity+")"
		if s := r.Suppressions; s != nil && i < len(s.Findings) && s.Findings[i].Status != StatusNew {
			// Known (baseline) or waived: shown, not raised as an error.
			level, title = "notice", title+" ("+s.Findings[i].Status+")"
		}
		if p, ok := r.primaryEvidence(f, owner); ok {
			props = append(props, "file="+githubProperty(clean(p.File)), fmt.Sprintf("line=%d", p.Line))
		}
		props = append(props, "title="+githubProperty(title))
		msg := clean(f.Message)
		if f.Key != nil {
			msg += "\nkey " + clean(*f.Key) + " scope " + clean(deref(f.Scope))
		}
		if len(f.Evidence) > 0 {
			at := make([]string, 0, len(f.Evidence))
			for _, p := range f.Evidence {
				at = append(at, ptr(p))
			}
			msg += "\nevidence: " + strings.Join(at, ", ")
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", level, strings.Join(props, ","), githubData(msg))
	}
	// A closing notice, so a clean run still says it ran.
	s := r.Summary
	verdict := "PASS"
	if s.Failed {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "::notice title=%s::%s\n", githubProperty("effectlint "+verdict),
		githubData(fmt.Sprintf("%d key scope(s), %d finding(s) in %d input(s) (--fail-on %s)", s.Keys, len(r.Findings), s.Inputs, s.FailOn)))
	_, err := io.WriteString(w, b.String())
	return err
}

func (githubRenderer) Check(w io.Writer, c *CheckReport) error {
	level, verdict := "notice", "ALLOW"
	if c.Decision != "allow" {
		level, verdict = "error", "STOP"
	}
	var reasons []string
	props := []string{}
	for _, r := range c.Reasons {
		reasons = append(reasons, clean(r.Rule)+": "+clean(r.Message))
		if len(props) == 0 && len(r.Evidence) > 0 {
			props = append(props, "file="+githubProperty(clean(r.Evidence[0].File)), fmt.Sprintf("line=%d", r.Evidence[0].Line))
		}
	}
	props = append(props, "title="+githubProperty(fmt.Sprintf("effectlint check %s: task %s at %s", verdict, clean(c.Task), clean(c.Checkpoint))))
	_, err := fmt.Fprintf(w, "::%s %s::%s\n", level, strings.Join(props, ","), githubData(strings.Join(reasons, "\n")))
	return err
}
