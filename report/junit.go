package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/effectlint/effectlint/policy"
)

// junitRenderer writes JUnit XML: one test suite for the run's input set
// (a run judges its inputs together: one key's evidence may span them),
// one test case per key scope, failed when it carries a finding at or above
// --fail-on, and one more test case for the findings tied to no key scope.
type junitRenderer struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitText makes transcript text safe for XML: control characters are
// shown escaped (encoding/xml would replace them with U+FFFD, losing them).
func junitText(s string) string { return clean(s) }

func (junitRenderer) Analyze(w io.Writer, r *Report) error {
	name := "effectlint analyze"
	if len(r.Paths) > 0 {
		name += " " + strings.Join(r.Paths, " ")
	}
	suite := junitSuite{Name: junitText(name), Properties: &junitProperties{[]junitProperty{
		{"fail_on", r.Summary.FailOn},
		{"inputs", fmt.Sprint(r.Summary.Inputs)},
		{"events", fmt.Sprint(r.Summary.Events)},
		{"problems", fmt.Sprint(r.Summary.Problems)},
	}}}
	byScope := map[[2]string][]policy.Finding{}
	var unkeyed []policy.Finding
	for _, f := range r.Findings {
		if f.Key == nil {
			unkeyed = append(unkeyed, f)
			continue
		}
		id := [2]string{*f.Key, deref(f.Scope)}
		byScope[id] = append(byScope[id], f)
	}
	known := map[[2]string]bool{}
	for _, k := range r.Keys {
		id := [2]string{k.Key, k.Scope}
		known[id] = true
		c := junitCase{Classname: "effectlint." + junitText(destination(k)),
			Name: junitText(k.Key + " scope " + k.Scope)}
		out := fmt.Sprintf("state %s\ntasks %s\n", k.State, junitText(taskIDs(k)))
		if k.Consumed != nil {
			out += fmt.Sprintf("consumed at %s by %s %s (%s:%d)\n", junitText(k.Consumed.TS), junitText(k.Consumed.Task),
				junitText(k.Consumed.Type), junitText(k.Consumed.File), k.Consumed.Line)
		}
		junitFindings(r, &c, byScope[id], out)
		suite.Cases = append(suite.Cases, c)
	}
	// Findings on a key scope no key scope lists (an intent whose scope
	// never opened) join the findings without a key.
	for _, f := range r.Findings {
		if f.Key != nil && !known[[2]string{*f.Key, deref(f.Scope)}] {
			unkeyed = append(unkeyed, f)
		}
	}
	if len(unkeyed) > 0 {
		c := junitCase{Classname: "effectlint", Name: "findings without a key scope"}
		junitFindings(r, &c, unkeyed, "")
		suite.Cases = append(suite.Cases, c)
	}
	if r.Summary.Events == 0 {
		// Nothing was read, so nothing was judged: a failure, never a
		// green suite (SPEC §7).
		suite.Cases = append(suite.Cases, junitCase{Classname: "effectlint", Name: "inputs",
			Failure: &junitFailure{Type: "no-input", Message: fmt.Sprintf("no event was read from %d input(s): nothing was judged", r.Summary.Inputs),
				Text: "every input was skipped, not recognized, or held no event\n"}})
	}
	for _, c := range suite.Cases {
		suite.Tests++
		if c.Failure != nil {
			suite.Failures++
		}
	}
	return writeJUnit(w, junitSuites{Name: "effectlint", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}})
}

// taskIDs lists a scope's tasks, the first 20 of them.
func taskIDs(k KeyScope) string {
	ids := make([]string, 0, 21)
	for i, t := range k.Tasks {
		if i == 20 {
			ids = append(ids, fmt.Sprintf("… %d more", len(k.Tasks)-20))
			break
		}
		ids = append(ids, t.ID)
	}
	return strings.Join(ids, ", ")
}

// junitFindings puts findings at or above --fail-on into a failure and the
// others into system-out.
func junitFindings(r *Report, c *junitCase, fs []policy.Finding, out string) {
	var failing, rest []string
	var rules []string
	worst := ""
	for _, f := range fs {
		line := fmt.Sprintf("%s %s", strings.ToUpper(f.Severity), junitText(f.Rule))
		if f.Task != nil && !namesTask(f.Message, *f.Task) {
			line += " task " + junitText(*f.Task)
		}
		line += ": " + junitText(f.Message)
		if len(f.Evidence) > 0 {
			at := make([]string, 0, len(f.Evidence))
			for _, p := range f.Evidence {
				at = append(at, ptr(p))
			}
			line += "\n  at " + strings.Join(at, ", ")
		}
		if r.Fails(f) {
			failing = append(failing, line)
			rules = append(rules, junitText(f.Rule))
			if worst == "" || policy.SeverityRank(f.Severity) > policy.SeverityRank(worst) {
				worst = f.Severity
			}
		} else {
			rest = append(rest, line)
		}
	}
	if len(failing) > 0 {
		c.Failure = &junitFailure{Type: worst,
			Message: fmt.Sprintf("%d finding(s) at or above %s: %s", len(failing), r.Summary.FailOn, strings.Join(rules, ", ")),
			Text:    strings.Join(failing, "\n") + "\n"}
	}
	if len(rest) > 0 {
		out += "findings below --fail-on:\n" + strings.Join(rest, "\n") + "\n"
	}
	c.SystemOut = out
}

func writeJUnit(w io.Writer, v any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (junitRenderer) Check(w io.Writer, c *CheckReport) error {
	tc := junitCase{Classname: "effectlint.check", Name: junitText(fmt.Sprintf("task %s at %s", c.Task, c.Checkpoint))}
	var lines []string
	for _, r := range c.Reasons {
		line := junitText(r.Rule + ": " + r.Message)
		if len(r.Evidence) > 0 {
			at := make([]string, 0, len(r.Evidence))
			for _, p := range r.Evidence {
				at = append(at, ptr(p))
			}
			line += "\n  at " + strings.Join(at, ", ")
		}
		lines = append(lines, line)
	}
	failures := 0
	if c.Decision != "allow" {
		failures = 1
		msg := "stop"
		if len(c.Reasons) > 0 {
			msg += ": " + junitText(c.Reasons[0].Rule)
		}
		tc.Failure = &junitFailure{Type: "stop", Message: msg, Text: strings.Join(lines, "\n") + "\n"}
	} else {
		tc.SystemOut = "allow\n" + strings.Join(lines, "\n") + "\n"
	}
	suite := junitSuite{Name: "effectlint check", Tests: 1, Failures: failures, Cases: []junitCase{tc}}
	return writeJUnit(w, junitSuites{Name: "effectlint", Tests: 1, Failures: failures, Suites: []junitSuite{suite}})
}
