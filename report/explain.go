package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

// ScopeExplanation is what `explain --key` says about one key scope: its
// state and why, and the findings on it.
type ScopeExplanation struct {
	Scope    *analyzer.Scope
	State    *policy.StateExplanation
	Findings []policy.Finding
}

// explainer renders explanations as plain text: short, every fact with
// its file:line and what it was, every rule with its file:line.
type explainer struct {
	w     io.Writer
	facts map[analyzer.Pointer]string
	err   error
}

func newExplainer(w io.Writer, f *analyzer.Facts) *explainer {
	return &explainer{w: w, facts: describeFacts(f)}
}

func (x *explainer) printf(format string, args ...any) {
	if x.err == nil {
		_, x.err = fmt.Fprintf(x.w, format, args...)
	}
}

// describeFacts names every event a pointer can point at.
func describeFacts(f *analyzer.Facts) map[analyzer.Pointer]string {
	m := map[analyzer.Pointer]string{}
	add := func(p analyzer.Pointer, s string) {
		if _, ok := m[p]; !ok {
			m[p] = s
		}
	}
	fact := func(fc analyzer.Fact) {
		s := fc.Task + " " + fc.Type
		if d := detail(&fc); d != "" {
			s += " " + d
		}
		if fc.SegmentEnded {
			s += " (segment ended)"
		}
		add(fc.At, s)
	}
	for _, sc := range f.Scopes {
		for _, fc := range sc.Facts {
			fact(fc)
		}
	}
	for _, fc := range f.Unkeyed {
		fact(fc)
	}
	for _, in := range f.Inputs {
		for _, p := range in.Problems {
			add(analyzer.Pointer{File: p.File, Line: p.Line}, "unreadable: "+p.Message)
		}
	}
	for _, a := range f.Authorizations {
		add(a.At, "authorization "+a.ID+" by "+a.By)
	}
	for _, t := range f.Tasks {
		for _, i := range t.Interruptions {
			add(i.At, t.ID+" interrupted ("+i.Reason+")")
		}
		for _, in := range t.Intents {
			add(in.At, t.ID+" intent "+in.ID)
		}
		if t.History {
			add(t.Start, t.ID+" starts")
		}
	}
	return m
}

func (x *explainer) pointers(indent string, ps []analyzer.Pointer) {
	ps = append([]analyzer.Pointer{}, ps...)
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		return ps[i].Line < ps[j].Line
	})
	width := 0
	for _, p := range ps {
		width = max(width, len(ptr(p)))
	}
	for _, p := range ps {
		x.printf("%s%-*s  %s\n", indent, width, ptr(p), clean(x.facts[p]))
	}
}

// firings lists rule definitions with the facts that made them hold;
// facts already shown by the previous firing are not repeated.
func (x *explainer) firings(indent string, fs []policy.Firing) {
	var last []analyzer.Pointer
	for _, fi := range fs {
		name := fi.Text
		if fi.Title != "" {
			name = fi.Title + ": " + name
		}
		x.printf("%s%s  %s\n", indent, fi.Location, clean(name))
		if len(fi.Tasks) > 0 {
			x.printf("%s  tasks %s\n", indent, clean(strings.Join(fi.Tasks, ", ")))
		}
		if len(fi.Facts) > 0 && !samePointers(fi.Facts, last) {
			x.pointers(indent+"  ", fi.Facts)
		}
		last = fi.Facts
	}
}

func samePointers(a, b []analyzer.Pointer) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ExplainKey writes why each key scope has its state, and its findings.
func ExplainKey(w io.Writer, f *analyzer.Facts, scopes []ScopeExplanation, rules []policy.RuleInfo) error {
	x := newExplainer(w, f)
	byID := map[string]policy.RuleInfo{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	for i, s := range scopes {
		if i > 0 {
			x.printf("\n")
		}
		sc := s.Scope
		x.printf("key   %s\n", clean(sc.Key))
		x.printf("scope %s: %s\n", clean(sc.Scope), s.State.State)
		x.printf("  destination %s; tasks %s\n", clean(describeDestination(sc.Destination)), clean(strings.Join(sc.Tasks, ", ")))
		x.printf("  decided by (rules that fired, facts that made them hold)\n")
		x.firings("    ", s.State.Firings)
		if len(s.Findings) == 0 {
			x.printf("  no findings on this key scope\n")
			continue
		}
		x.printf("  findings\n")
		for _, fd := range s.Findings {
			task := ""
			if fd.Task != nil {
				task = " task " + *fd.Task
			}
			rule := ""
			if r, ok := byID[fd.Rule]; ok {
				rule = fmt.Sprintf("  (%s, %s)", r.Title, r.Location)
			}
			x.printf("    %s %s%s%s\n", strings.ToUpper(fd.Severity), clean(fd.Rule), clean(task), clean(rule))
			x.printf("      %s\n", clean(fd.Message))
			x.pointers("      ", fd.Evidence)
		}
	}
	return x.err
}

// ExplainGate writes why the gate decided as it did for f.Query.
func ExplainGate(w io.Writer, f *analyzer.Facts, g *policy.GateExplanation) error {
	x := newExplainer(w, f)
	q := f.Query
	x.printf("%s task %s at %s\n", strings.ToUpper(g.Gate.Decision), clean(q.Task), q.Checkpoint)
	if q.Key != "" {
		x.printf("  key      %s\n  scope    %s\n", clean(q.Key), clean(q.Scope))
	}
	if g.Gate.State != nil {
		x.printf("  state    %s\n", *g.Gate.State)
	}
	if g.Gate.Executor != nil {
		x.printf("  executor %s\n", clean(*g.Gate.Executor))
	}
	x.printf("reasons (the rules that fired, and the facts they rest on)\n")
	for _, r := range g.Gate.Reasons {
		x.printf("  %s  %s\n", clean(r.Rule), clean(r.Message))
		if fi, ok := firingOf(g, r); ok {
			text := fi.Text
			// A head that names the reason says enough.
			if i := strings.Index(text, " if {"); i > 0 && fi.Reason != "" && strings.Contains(text[:i], `"`+r.Rule+`"`) {
				text = text[:i]
			}
			if fi.Title != "" {
				text = fi.Title + ": " + text
			}
			x.printf("    rule  %s  %s\n", fi.Location, clean(text))
		}
		x.pointers("    ", r.Evidence)
	}
	if g.State != nil {
		whose := "the key scope's evidence"
		if g.StateOf == "others" {
			whose = "the other tasks' evidence"
		}
		x.printf("why %s is %s\n", whose, g.State.State)
		x.firings("  ", g.State.Firings)
	}
	return x.err
}

// firingOf finds the definition that produced a reason: by its id and
// message, else by its id alone (the trace does not always show the
// message); for an allow, the branch whose value is the reason.
func firingOf(g *policy.GateExplanation, r policy.Reason) (policy.Firing, bool) {
	for _, exact := range []bool{true, false} {
		for _, fi := range g.Firings {
			switch {
			case g.Gate.Decision == "allow" && fi.Value == r.Rule:
				return fi, true
			case fi.Reason == r.Rule && (!exact || fi.Message == r.Message):
				return fi, true
			}
		}
	}
	return policy.Firing{}, false
}

func describeDestination(d analyzer.Destination) string {
	s := d.Provider + "/" + d.ID
	if d.Provider == "" {
		s = "title " + fmt.Sprintf("%q", d.Title)
	} else if d.Title != "" {
		s += fmt.Sprintf(" %q", d.Title)
	}
	return s
}
