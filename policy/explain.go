package policy

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/effectlint/effectlint/analyzer"
)

// Explanations come from OPA's own trace of a targeted evaluation (what
// `opa eval --explain` reads): the rule definitions whose bodies succeeded
// ("fired"), with the facts their bodies bound. Early exit is off, so a
// rule that holds for several facts shows every one of them.

// Firing is one rule definition that fired in an explained evaluation.
type Firing struct {
	Rule    string // the rule's name, e.g. status_unknown
	Package string
	// Location is the definition's file:line.
	Location string
	// Text is the definition's source on one line, shortened.
	Text string
	// Title is the rule's METADATA title, when it has one.
	Title string
	// Value is what a definition with a constant value produced, e.g.
	// "send_status_unknown" for a branch of state_of.
	Value string
	// Reason is the id of the finding or stop reason a definition of a
	// set rule added (its object's "rule"), and Message its message when
	// the trace shows it (several definitions may add one id).
	Reason  string
	Message string
	// Facts are the evidence facts its body bound: the facts that made it
	// hold. Tasks are the tasks it bound.
	Facts []analyzer.Pointer
	Tasks []string
	// Depth is 0 for the decision rule, 1 for a rule its body called.
	Depth int
}

// StateExplanation says why a key scope has its state.
type StateExplanation struct {
	ScopeID string
	State   string
	// Firings: the branch of state_of that decided, then the rules its
	// body called that held (status_unknown's definitions, ...).
	Firings []Firing
}

// GateExplanation says why the gate decided as it did.
type GateExplanation struct {
	Gate *Gate
	// Firings are the definitions that produced the decision: the stop
	// rules that fired (built-in and users'), or the allow reason's branch.
	Firings []Firing
	// State explains the state that decided: for KEY_CONSUMED the state of
	// the other tasks' evidence, otherwise the key scope's own state. Nil
	// when the question has no key.
	State *StateExplanation
	// StateOf says whose evidence State is about: "others" or "scope".
	StateOf string
}

// ExplainState explains the state of one key scope (by its id,
// "<key>#<scope>").
func (e *Engine) ExplainState(ctx context.Context, f *analyzer.Facts, scopeID string) (*StateExplanation, error) {
	in, err := Input(f)
	if err != nil {
		return nil, err
	}
	// The scope is picked by index: a comparison in the query would only
	// be checked after state_of ran for every scope (OPA moves it), and
	// the trace would mix the scopes.
	for i, s := range f.Scopes {
		if s.ID == scopeID {
			return e.explainState(ctx, in, scopeID,
				fmt.Sprintf("s := input.scopes[%d]; x := data.effectlint.state_of(s.facts, data.effectlint.scope_tasks(s), s.id)", i))
		}
	}
	return nil, fmt.Errorf("policy: no key scope %s", scopeID)
}

func (e *Engine) explainState(ctx context.Context, in ast.Value, scopeID, query string) (*StateExplanation, error) {
	events, rs, err := e.trace(ctx, in, query)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("policy: no key scope %s", scopeID)
	}
	state, _ := rs[0].Bindings["x"].(string)
	return &StateExplanation{ScopeID: scopeID, State: state, Firings: e.firings(events, "data.effectlint.state_of", true)}, nil
}

// ExplainGate explains the decision of the gate for f.Query.
func (e *Engine) ExplainGate(ctx context.Context, f *analyzer.Facts) (*GateExplanation, error) {
	g, err := e.Check(ctx, f)
	if err != nil {
		return nil, err
	}
	in, err := Input(f)
	if err != nil {
		return nil, err
	}
	x := &GateExplanation{Gate: g}
	if g.Decision == "allow" {
		events, _, err := e.trace(ctx, in, "x := data.effectlint.allow_reason")
		if err != nil {
			return nil, err
		}
		x.Firings = e.firings(events, "data.effectlint.allow_reason", false)
	} else {
		sets := []string{"data.effectlint.stop"}
		for _, c := range e.custom.Stop {
			sets = append(sets, c.ref.Append(ast.StringTerm("stop")).String())
		}
		for _, set := range sets {
			events, _, err := e.trace(ctx, in, "x := "+set)
			if err != nil {
				return nil, err
			}
			x.Firings = append(x.Firings, e.firings(events, set, false)...)
		}
	}
	if f.Query.Key == "" {
		return x, nil
	}
	x.StateOf, x.State = "scope", nil
	query := "x := data.effectlint.state_of(data.effectlint.q_facts, data.effectlint.q_tasks, null)"
	for _, r := range g.Reasons {
		if r.Rule == "KEY_CONSUMED" {
			x.StateOf = "others"
			query = "x := data.effectlint.state_of(data.effectlint.others_facts, data.effectlint.other_tasks, null)"
		}
	}
	if x.State, err = e.explainState(ctx, in, f.Query.ScopeID, query); err != nil {
		return nil, err
	}
	return x, nil
}

// trace evaluates query with a buffer tracer and early exit off.
func (e *Engine) trace(ctx context.Context, in ast.Value, query string) ([]*topdown.Event, rego.ResultSet, error) {
	pq, err := e.prepare(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	tr := topdown.NewBufferTracer()
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(in), rego.EvalQueryTracer(tr), rego.EvalEarlyExit(false))
	if err != nil {
		return nil, nil, evalError(err)
	}
	return *tr, rs, nil
}

// firings reads the trace: the definitions of the rule at path that fired
// as the query's own (depth 0), and, with children, the rules their bodies
// called that fired (depth 1). Definitions are merged by location, facts
// and tasks by value, so each definition appears once.
func (e *Engine) firings(events []*topdown.Event, path string, children bool) []Firing {
	var out []Firing
	index := map[string]int{} // depth|location|reason → out index
	add := func(ev *topdown.Event, r *ast.Rule, depth int) {
		fi := e.firing(ev, r, depth)
		k := fmt.Sprintf("%d|%s|%s|%s|%s", depth, fi.Location, fi.Value, fi.Reason, fi.Message)
		if i, ok := index[k]; ok {
			out[i].Facts = mergePointers(out[i].Facts, fi.Facts)
			out[i].Tasks = mergeStrings(out[i].Tasks, fi.Tasks)
			return
		}
		index[k] = len(out)
		out = append(out, fi)
	}
	decided := map[uint64]bool{}
	for _, ev := range events {
		r, ok := ev.Node.(*ast.Rule)
		if !ok || ev.Op != topdown.ExitOp || ev.ParentID != 0 || rulePath(r) != path {
			continue
		}
		decided[ev.QueryID] = true
		add(ev, r, 0)
	}
	if children {
		for _, ev := range events {
			r, ok := ev.Node.(*ast.Rule)
			if ok && ev.Op == topdown.ExitOp && decided[ev.ParentID] {
				add(ev, r, 1)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Depth != out[j].Depth {
			return out[i].Depth < out[j].Depth
		}
		return locLess(out[i].Location, out[j].Location)
	})
	return out
}

func (e *Engine) firing(ev *topdown.Event, r *ast.Rule, depth int) Firing {
	fi := Firing{Rule: ruleName(r), Depth: depth, Facts: []analyzer.Pointer{}, Tasks: []string{}}
	if r.Module != nil {
		fi.Package = strings.TrimPrefix(r.Module.Package.Path.String(), "data.")
	}
	if l := r.Location; l != nil {
		fi.Location = fmt.Sprintf("%s:%d", l.File, l.Row)
		fi.Text = shortText(ruleText(string(l.Text)), 160)
	}
	if r.Annotations != nil {
		for _, a := range r.Annotations {
			if a.Title != "" {
				fi.Title = a.Title
			}
		}
	}
	if v := r.Head.Value; v != nil && ast.IsConstant(v.Value) {
		if s, ok := v.Value.(ast.String); ok {
			fi.Value = string(s)
		} else {
			fi.Value = v.String()
		}
	}
	// A set rule whose head is an object literal names its reason there.
	if k := r.Head.Key; k != nil {
		if obj, ok := k.Value.(ast.Object); ok {
			if t := obj.Get(ast.StringTerm("rule")); t != nil {
				if s, ok := t.Value.(ast.String); ok {
					fi.Reason = string(s)
				}
			}
		}
	}
	if ev.Locals == nil {
		return fi
	}
	ev.Locals.Iter(func(_ ast.Value, v ast.Value) bool {
		obj, ok := v.(ast.Object)
		if !ok {
			return false
		}
		if p, ok := pointerOf(obj); ok {
			fi.Facts = mergePointers(fi.Facts, []analyzer.Pointer{p})
		}
		if id, ok := taskOf(obj); ok {
			fi.Tasks = mergeStrings(fi.Tasks, []string{id})
		}
		if rule, msg := obj.Get(ast.StringTerm("rule")), obj.Get(ast.StringTerm("message")); rule != nil && msg != nil {
			if s, ok := rule.Value.(ast.String); ok {
				fi.Reason = string(s)
			}
			if s, ok := msg.Value.(ast.String); ok {
				fi.Message = string(s)
			}
		}
		return false
	})
	return fi
}

// rulePath is data.<package>.<name> of a rule.
func rulePath(r *ast.Rule) string {
	if r.Module == nil {
		return ""
	}
	return r.Module.Package.Path.Extend(r.Head.Ref().GroundPrefix()).String()
}

func ruleName(r *ast.Rule) string { return r.Head.Ref()[0].Value.String() }

// pointerOf recognizes an evidence fact (it has seq and at {file, line}).
func pointerOf(obj ast.Object) (analyzer.Pointer, bool) {
	at := obj.Get(ast.StringTerm("at"))
	if at == nil || obj.Get(ast.StringTerm("seq")) == nil {
		return analyzer.Pointer{}, false
	}
	ao, ok := at.Value.(ast.Object)
	if !ok {
		return analyzer.Pointer{}, false
	}
	var p analyzer.Pointer
	if t := ao.Get(ast.StringTerm("file")); t != nil {
		s, _ := t.Value.(ast.String)
		p.File = string(s)
	}
	if t := ao.Get(ast.StringTerm("line")); t != nil {
		if n, ok := t.Value.(ast.Number); ok {
			p.Line, _ = n.Int()
		}
	}
	return p, true
}

// taskOf recognizes a task (it has id and start_rank).
func taskOf(obj ast.Object) (string, bool) {
	id := obj.Get(ast.StringTerm("id"))
	if id == nil || obj.Get(ast.StringTerm("start_rank")) == nil {
		return "", false
	}
	s, ok := id.Value.(ast.String)
	return string(s), ok
}

// ruleText renders one definition's source on one line: up to the end of
// its own body (an else chain's later branches left out), comments
// dropped, body lines joined by "; ".
func ruleText(src string) string {
	var b strings.Builder
	depth, opened := 0, false
	var quote rune
	escaped := false
	for _, r := range src {
		b.WriteRune(r)
		switch {
		case quote != 0:
			if escaped {
				escaped = false
			} else if r == '\\' && quote == '"' {
				escaped = true
			} else if r == quote {
				quote = 0
			}
			continue
		case r == '"' || r == '`':
			quote = r
		case r == '{' || r == '[' || r == '(':
			depth++
			opened = opened || r == '{'
		case r == '}' || r == ']' || r == ')':
			depth--
		}
		if opened && depth == 0 && r == '}' {
			break
		}
	}
	var parts []string
	for _, line := range strings.Split(b.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts = append(parts, line)
	}
	var out strings.Builder
	for i, p := range parts {
		if i > 0 {
			prev := parts[i-1]
			if strings.HasSuffix(prev, "{") || strings.HasSuffix(prev, "[") || strings.HasSuffix(prev, "(") || strings.HasSuffix(prev, ",") ||
				strings.HasPrefix(p, "}") || strings.HasPrefix(p, "]") || strings.HasPrefix(p, ")") {
				out.WriteString(" ")
			} else {
				out.WriteString("; ")
			}
		}
		out.WriteString(p)
	}
	return out.String()
}

func shortText(s string, n int) string {
	s = oneLine(s)
	if len(s) > n {
		s = s[:n-1] + "…"
	}
	return s
}

func mergePointers(a, b []analyzer.Pointer) []analyzer.Pointer {
	for _, p := range b {
		found := false
		for _, q := range a {
			if p == q {
				found = true
				break
			}
		}
		if !found {
			a = append(a, p)
		}
	}
	sort.Slice(a, func(i, j int) bool {
		if a[i].File != a[j].File {
			return a[i].File < a[j].File
		}
		return a[i].Line < a[j].Line
	})
	return a
}

func mergeStrings(a, b []string) []string {
	for _, s := range b {
		found := false
		for _, t := range a {
			if s == t {
				found = true
				break
			}
		}
		if !found {
			a = append(a, s)
		}
	}
	sort.Strings(a)
	return a
}

func locLess(a, b string) bool {
	fa, ra := splitLoc(a)
	fb, rb := splitLoc(b)
	if fa != fb {
		return fa < fb
	}
	return ra < rb
}

func splitLoc(s string) (string, int) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return s, 0
	}
	var n int
	fmt.Sscanf(s[i+1:], "%d", &n)
	return s[:i], n
}
