// Package report assembles what the policy decided into one report model and
// renders it. Renderers read the model only; none recomputes a verdict.
package report

import (
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
	"github.com/effectlint/effectlint/internal/buildinfo"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"
)

// Version names the shape of the JSON reports (SPEC §8).
const Version = "effectlint.report/v1"

// Report is the result of `analyze`.
type Report struct {
	Version string `json:"version"`
	// Tool is the effectlint that wrote the report (nil: the running one).
	Tool     *Tool               `json:"tool,omitempty"`
	Inputs   []transcripts.Input `json:"inputs"`
	Skipped  []string            `json:"skipped"`
	Keys     []KeyScope          `json:"keys"`
	Findings []policy.Finding    `json:"findings"`
	Summary  Summary             `json:"summary"`
	// Rules describes the finding rules (from their Rego METADATA).
	Rules []policy.RuleInfo `json:"-"`
	// Paths are the PATH arguments the run was given: the name of the
	// input set in formats that want one (JUnit).
	Paths []string `json:"-"`
	// Suppressions is what --baseline and waivers did (Suppress).
	Suppressions *Suppressions `json:"suppressions,omitempty"`

	// quiet holds the fingerprints whose every finding is suppressed;
	// kinds names the evidence lines (Fingerprint).
	quiet map[string]bool
	kinds map[analyzer.Pointer]string
}

// Tool names the program that wrote a report and its build (an addition to
// SPEC §8's shape: a finding can be traced to the build that made it).
type Tool struct {
	Name string `json:"name"`
	buildinfo.Info
}

// CurrentTool is the running effectlint.
func CurrentTool() *Tool { return &Tool{Name: "effectlint", Info: buildinfo.Get()} }

// tool is the report's tool, or the running one.
func tool(t *Tool) *Tool {
	if t == nil {
		return CurrentTool()
	}
	return t
}

// Fails reports whether a finding is at or above the run's --fail-on.
// Build's Summary.Failed and every renderer that marks failures (JUnit) use
// this one comparison.
func (r *Report) Fails(f policy.Finding) bool {
	if r.quiet != nil && r.quiet[r.Fingerprint(f)] {
		return false
	}
	return r.Summary.FailOn != "none" && policy.SeverityRank(f.Severity) >= policy.SeverityRank(r.Summary.FailOn)
}

// KeyScope is one key scope with its verdict and evidence.
type KeyScope struct {
	Key           string               `json:"key"`
	Scope         string               `json:"scope"`
	State         string               `json:"state"`
	Destination   analyzer.Destination `json:"destination"`
	ContentSHA256 string               `json:"content_sha256"`
	Tasks         []TaskSummary        `json:"tasks"`
	Evidence      []Evidence           `json:"evidence"`
	// Consumed is the first evidence the policy classed as a crossing (or
	// confirmation) when the policy's state consumes the scope: from that
	// moment on no other task may cross (SPEC §4, in_flight and after).
	// nil when the scope is not consumed, or is consumed without a
	// crossing on record (a label, an unresolved approach, an incomplete
	// history). The timelines draw it; JSON leaves it out (SPEC §8 shape).
	Consumed *Evidence `json:"-"`
}

// TaskSummary describes a task of a key scope.
type TaskSummary struct {
	ID            string                  `json:"id"`
	Relation      string                  `json:"relation"`
	Parent        string                  `json:"parent,omitempty"`
	Resumes       string                  `json:"resumes,omitempty"`
	Ended         bool                    `json:"ended"`
	Status        string                  `json:"status,omitempty"`
	SupersededBy  string                  `json:"superseded_by,omitempty"`
	Complete      bool                    `json:"complete"`
	Interruptions []analyzer.Interruption `json:"interruptions"`
	Start         analyzer.Pointer        `json:"start"`
}

// Evidence is one fact of a key scope with its class.
type Evidence struct {
	// Seq orders the evidence among all events of the run (interruptions
	// included), so timelines can merge them.
	Seq     int    `json:"-"`
	TS      string `json:"ts"`
	Task    string `json:"task"`
	Type    string `json:"type"`
	Class   string `json:"class"`
	Segment int    `json:"segment"`
	Detail  string `json:"detail,omitempty"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// Summary counts what the report holds and says whether it fails.
type Summary struct {
	Inputs   int            `json:"inputs"`
	Events   int            `json:"events"`
	Problems int            `json:"problems"`
	Tasks    int            `json:"tasks"`
	Keys     int            `json:"keys"`
	States   map[string]int `json:"states"`
	Findings map[string]int `json:"findings"`
	FailOn   string         `json:"fail_on"`
	Failed   bool           `json:"failed"`
}

// Build joins facts and the policy's analysis into a report. failOn is the
// lowest severity that fails the run ("none" never fails).
func Build(f *analyzer.Facts, a *policy.Analysis, rules []policy.RuleInfo, failOn string) (*Report, error) {
	return build(f, a, rules, failOn, false)
}

// BuildReleasing is Build for a caller that reads f and a no further: it
// drops each key scope's facts (and their classes) once their evidence is
// drawn, so that the facts of a large history and the report's evidence
// are never all held at once (issue 15: the two together were the peak of
// a 1 GB analyze). f's scopes are left without facts.
func BuildReleasing(f *analyzer.Facts, a *policy.Analysis, rules []policy.RuleInfo, failOn string) (*Report, error) {
	return build(f, a, rules, failOn, true)
}

func build(f *analyzer.Facts, a *policy.Analysis, rules []policy.RuleInfo, failOn string, release bool) (*Report, error) {
	if len(a.Scopes) != len(f.Scopes) {
		return nil, fmt.Errorf("report: policy judged %d key scopes, the facts hold %d", len(a.Scopes), len(f.Scopes))
	}
	r := &Report{Version: Version, Tool: CurrentTool(), Inputs: f.Inputs, Skipped: f.Skipped, Keys: make([]KeyScope, 0, len(f.Scopes)),
		Findings: a.Findings, Rules: rules}
	if r.Findings == nil {
		r.Findings = []policy.Finding{}
	}
	s := &r.Summary
	s.Inputs, s.Tasks, s.Keys, s.FailOn = len(f.Inputs), len(f.Tasks), len(f.Scopes), failOn
	s.States, s.Findings = map[string]int{}, map[string]int{}
	for _, in := range f.Inputs {
		s.Events += in.Events
		s.Problems += len(in.Problems) + in.ProblemsOmitted
	}
	for i, sc := range f.Scopes {
		v := a.Scopes[i]
		if v.ID != sc.ID || len(v.Classes) != len(sc.Facts) {
			return nil, fmt.Errorf("report: policy verdict %d does not match key scope %s", i, sc.ID)
		}
		// Evidence of its exact length: appended one by one, a million
		// facts' evidence held a quarter more in spare capacity.
		k := KeyScope{Key: sc.Key, Scope: sc.Scope, State: v.State, Destination: sc.Destination,
			ContentSHA256: sc.ContentSHA256, Tasks: make([]TaskSummary, 0, len(sc.Tasks)), Evidence: make([]Evidence, 0, len(sc.Facts))}
		for _, id := range sc.Tasks {
			t := f.Tasks[id]
			k.Tasks = append(k.Tasks, TaskSummary{ID: t.ID, Relation: t.Relation, Parent: t.Parent, Resumes: t.Resumes,
				Ended: t.Ended, Status: t.Status, SupersededBy: t.SupersededBy, Complete: t.Complete,
				Interruptions: t.Interruptions, Start: t.Start})
		}
		for j := range sc.Facts {
			fact := &sc.Facts[j]
			k.Evidence = append(k.Evidence, Evidence{Seq: fact.Seq, TS: fact.TS.String(), Task: fact.Task, Type: fact.Type,
				Class: v.Classes[j], Segment: fact.Segment, Detail: detail(fact), File: fact.At.File, Line: fact.At.Line})
		}
		if effect.Consumes(v.State) {
			for j := range k.Evidence {
				if c := k.Evidence[j].Class; c == "crossing" || c == "confirmation" {
					e := k.Evidence[j]
					k.Consumed = &e
					break
				}
			}
		}
		r.Keys = append(r.Keys, k)
		s.States[v.State]++
		if release {
			sc.Facts, a.Scopes[i].Classes = nil, nil
		}
	}
	for _, fd := range r.Findings {
		s.Findings[fd.Severity]++
		if r.Fails(fd) {
			s.Failed = true
		}
	}
	// A run that read no event judged nothing: it never passes (SPEC §7).
	if s.Events == 0 {
		s.Failed = true
	}
	return r, nil
}

// omitted says how many problems of an input were counted, not listed
// (--max-problems), and where the first of them is; "" when none were.
func omitted(in transcripts.Input) string {
	if in.ProblemsOmitted == 0 {
		return ""
	}
	return fmt.Sprintf("%d more problem(s) not listed (--max-problems), the first at line %d", in.ProblemsOmitted, in.OmittedFrom)
}

// detail is the short qualifier of a fact shown next to its type.
func detail(f *analyzer.Fact) string {
	r := f.Rare()
	switch {
	case f.Type == "gate_check":
		return r.Checkpoint + " " + r.Decision
	case f.Type == "readback":
		return r.Result
	case f.Type == "status":
		return r.Label
	case r.OK != nil:
		if *r.OK {
			return "ok"
		}
		return "not ok"
	case r.IdempotencyToken != "":
		return "token " + r.IdempotencyToken
	}
	return ""
}

// CheckReport is the result of `check` (SPEC §8).
type CheckReport struct {
	Version string `json:"version"`
	// Tool is the effectlint that wrote the report (nil: the running one).
	Tool       *Tool               `json:"tool,omitempty"`
	Decision   string              `json:"decision"`
	Task       string              `json:"task"`
	Checkpoint string              `json:"checkpoint"`
	Key        *string             `json:"key"`
	Scope      *string             `json:"scope"`
	State      *string             `json:"state"`
	Executor   *string             `json:"executor"`
	Reasons    []CheckReason       `json:"reasons"`
	Inputs     []transcripts.Input `json:"inputs"`
}

// CheckReason is one reason of a gate decision.
type CheckReason struct {
	Rule     string             `json:"rule"`
	Message  string             `json:"message"`
	Evidence []analyzer.Pointer `json:"evidence"`
}

// BuildCheck turns a gate decision into a check report.
func BuildCheck(f *analyzer.Facts, g *policy.Gate) *CheckReport {
	q := f.Query
	c := &CheckReport{Version: Version, Tool: CurrentTool(), Decision: g.Decision, Task: q.Task, Checkpoint: q.Checkpoint,
		State: g.State, Executor: g.Executor, Reasons: []CheckReason{}, Inputs: f.Inputs}
	if q.Key != "" {
		c.Key, c.Scope = &q.Key, &q.Scope
	}
	for _, r := range g.Reasons {
		ev := r.Evidence
		if ev == nil {
			ev = []analyzer.Pointer{}
		}
		sort.SliceStable(ev, func(i, j int) bool {
			if ev[i].File != ev[j].File {
				return ev[i].File < ev[j].File
			}
			return ev[i].Line < ev[j].Line
		})
		ev = slices.Compact(ev) // one line can be a task's start and a reference
		c.Reasons = append(c.Reasons, CheckReason{Rule: r.Rule, Message: r.Message, Evidence: ev})
	}
	return c
}

// Options configure renderers.
type Options struct {
	// Color is "auto", "always" or "never".
	Color string
	// Width is the text report's width in cells; 0 fits COLUMNS or the
	// terminal (see termWidth).
	Width int
	// Show is which key scopes the text report draws: ShowFindings ("" is
	// the same) or ShowAll. Other formats always carry every key scope.
	Show string
}

// Renderer writes a report in one format.
type Renderer interface {
	Analyze(w io.Writer, r *Report) error
	Check(w io.Writer, c *CheckReport) error
}

// Formats lists the formats Get knows: for people (text, markdown, html)
// and for machines (json, sarif, junit, github).
var Formats = []string{"text", "markdown", "html", "json", "sarif", "junit", "github"}

// DescribesChecks reports whether a format can render a gate decision
// (`check`); SARIF describes findings only.
func DescribesChecks(format string) bool { return format != "sarif" }

// Get returns the renderer of a format.
func Get(format string, opt Options) (Renderer, error) {
	switch format {
	case "text":
		return textRenderer{opt: opt}, nil
	case "json":
		return jsonRenderer{}, nil
	case "markdown":
		return markdownRenderer{}, nil
	case "html":
		return htmlRenderer{}, nil
	case "sarif":
		return sarifRenderer{}, nil
	case "junit":
		return junitRenderer{}, nil
	case "github":
		return githubRenderer{}, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", format, plainList(Formats))
}
