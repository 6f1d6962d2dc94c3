package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
)

// Evaluating the built-in rules by parts.
//
// Key scopes are independent: every built-in rule about a scope reads that
// scope, its tasks and the options, and nothing else. So the scopes are cut
// into groups (scopes that share a task stay together, with every task
// they name and the authorizations of their keys), each group is evaluated
// on its own, on every core, and once more the document without scopes
// gives what concerns inputs, tasks, titles and authorizations. A finding
// that two parts both give (a task in a group is also in the whole) is the
// same value: the findings are a set again, as Rego makes them, in Rego's
// order. Time and memory grow with the size of a group, not of the
// history: OPA keeps only the groups being evaluated, and nothing in the
// rules can compare two scopes' facts. TestAnalyzeByParts_SameAsWhole holds
// the parts to the whole document's result.

// groupFacts is the number of facts after which a group is closed.
const groupFacts = 2048

// groups cuts the scopes into groups of scope indexes, in order.
func groups(f *analyzer.Facts) [][]int {
	n := len(f.Scopes)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	join := func(i int, task string) {
		if j, ok := owner[task]; ok {
			if a, b := find(i), find(j); a != b {
				parent[max(a, b)] = min(a, b)
			}
			return
		}
		owner[task] = i
	}
	for i, s := range f.Scopes {
		for _, id := range s.Tasks {
			join(i, id)
		}
		for j := range s.Facts {
			join(i, s.Facts[j].Task)
		}
	}
	var order []int
	members := map[int][]int{}
	for i := range f.Scopes {
		r := find(i)
		if members[r] == nil {
			order = append(order, r)
		}
		members[r] = append(members[r], i)
	}
	var out [][]int
	var cur []int
	size := 0
	for _, r := range order {
		for _, i := range members[r] {
			cur = append(cur, i)
			size += len(f.Scopes[i].Facts) + 1
		}
		if size >= groupFacts {
			slices.Sort(cur)
			out = append(out, cur)
			cur, size = nil, 0
		}
	}
	if len(cur) > 0 {
		slices.Sort(cur)
		out = append(out, cur)
	}
	return out
}

// authorizationsByKey indexes the authorizations by key, in order, so that
// each group finds its own without scanning every record (issue 15).
func authorizationsByKey(f *analyzer.Facts) map[string][]int {
	out := map[string][]int{}
	for i, a := range f.Authorizations {
		out[a.Key] = append(out[a.Key], i)
	}
	return out
}

// groupPart is the input of one group: its scopes (their facts of the
// given types; nil: all), their tasks and the authorizations of their
// keys (byKey: authorizationsByKey).
func groupPart(f *analyzer.Facts, group []int, types map[string]bool, byKey map[string][]int) part {
	p := part{facts: f, scopes: make([]*analyzer.Scope, len(group)), tasks: map[string]*analyzer.Task{},
		authorizations: []analyzer.Authorization{}, types: types}
	keys := map[string]bool{}
	for i, si := range group {
		s := f.Scopes[si]
		p.scopes[i] = s
		keys[s.Key] = true
		for _, id := range s.Tasks {
			p.tasks[id] = f.Tasks[id]
		}
		for j := range s.Facts {
			id := s.Facts[j].Task
			p.tasks[id] = f.Tasks[id]
		}
	}
	var idx []int
	for key := range keys {
		idx = append(idx, byKey[key]...)
	}
	slices.Sort(idx) // the records' order, as the scan gives it
	for _, i := range idx {
		p.authorizations = append(p.authorizations, f.Authorizations[i])
	}
	return p
}

// checkDoc is the gate's input for one history that is asked several
// questions: a resume check asks one per intent the task holds or
// inherits (analyzer.Facts.AskAll). What every question shares (the tasks,
// unkeyed facts, inputs, titles, problems) is converted once; each
// question adds its own scopes and itself. Converting the whole document
// for each question was quadratic: a task with 800 intents spent 4.5 s of
// 6.5 building inputs (issue 15).
type checkDoc struct {
	f            *analyzer.Facts
	types        map[string]bool
	unkeyedTypes map[string]bool
	shared       [][2]*ast.Term       // checkInput's, built on first use
	whole        [][2]*ast.Term       // wholeInput's (users' rules), built on first use
	index        *scopeIndex          // built on first use
	scopes       map[string]*ast.Term // the weighed scopes' terms, by question (question)
	cache        *historyCache        // values the questions share, made on first use
}

// evaluation is the virtual cache of one of doc's gate evaluations, of a
// question weighing the scopes named scopes (question): the values of the
// rules free of the question are shared with every other question, those
// of the rules free of all but its scopes with the questions weighing the
// same scopes.
func (d *checkDoc) evaluation(free sharing, scopes string) topdown.VirtualCache {
	if d.cache == nil {
		d.cache = newHistoryCache(free)
	}
	return d.cache.evaluation(scopes)
}

// scopeIndex finds the scopes a question may weigh without looking at
// every scope. A scope is left out only when no rule of rules.rego's
// weighed_scope can weigh it: its content differs from the asked key's,
// or its destination may not be the asked one (may_be_same_as_asked):
//   - two strong destinations (a provider and an id) may be the same when
//     their folded identities are equal;
//   - a strong one and one known by title alone, when the strong one's
//     title is the other's, or (asked by title) the history gives that
//     title the strong one's identity (input.query.identities);
//   - two known by title alone, when their titles are equal, or when the
//     history gives the asked identity that title (input.query.titles).
//
// Identities and titles are folded as the rules fold them, by the domain's
// own functions: strong_destination is !Weak, folded_identities is
// FoldedIdentities, folded_title is effect.FoldedTitle
// (TestFoldedIdentity_IsTheIndexs, TestFoldedTitle_IsTheAnalyzers).
// TestScopeIndex_KeepsEveryScopeTheRulesMayWeigh asks the rules
// themselves, over random destinations. Before, every scope of
// the content was given: a resume check of a task that sent one file to N
// channels asks N questions (one per intent), each weighing N scopes; 400
// intents took 24 s, 300 title-only channels 11.7 s (issue 15).
type scopeIndex struct {
	byID      map[string][]int
	byContent map[string]*contentScopes
}

// contentScopes are the scopes of one content, by position in f.Scopes.
type contentScopes struct {
	strong      map[string][]int // by folded identity
	strongTitle map[string][]int // strong, by canonical title
	weakTitle   map[string][]int // known by title alone, by canonical title
}

func newScopeIndex(scopes []*analyzer.Scope) *scopeIndex {
	x := &scopeIndex{byID: map[string][]int{}, byContent: map[string]*contentScopes{}}
	for i, s := range scopes {
		x.byID[s.ID] = append(x.byID[s.ID], i)
		c := x.byContent[s.ContentSHA256]
		if c == nil {
			c = &contentScopes{strong: map[string][]int{}, strongTitle: map[string][]int{}, weakTitle: map[string][]int{}}
			x.byContent[s.ContentSHA256] = c
		}
		t := effect.FoldedTitle(s.Destination.Title)
		if !s.Destination.Weak() {
			for _, id := range s.Destination.FoldedIdentities() {
				c.strong[id] = append(c.strong[id], i)
			}
			if t != "" {
				c.strongTitle[t] = append(c.strongTitle[t], i)
			}
		} else {
			c.weakTitle[t] = append(c.weakTitle[t], i)
		}
	}
	return x
}

// weighable lists, in the scopes' order, the positions of the scopes
// question q may weigh: the scope asked about and, for a key, the scopes
// of its content the rules may weigh.
func (x *scopeIndex) weighable(q *analyzer.Query) []int {
	at := slices.Clone(x.byID[q.ScopeID])
	if c := x.byContent[q.ContentSHA256]; c != nil && q.Key != "" {
		t := effect.FoldedTitle(q.Destination.Title)
		if !q.Destination.Weak() {
			for _, id := range q.Destination.FoldedIdentities() {
				at = append(at, c.strong[id]...)
			}
		} else if t != "" {
			at = append(at, c.strongTitle[t]...)
		}
		for _, id := range q.Identities {
			at = append(at, c.strong[id]...)
		}
		if t != "" {
			at = append(at, c.weakTitle[t]...)
		}
		for _, title := range q.Titles {
			at = append(at, c.weakTitle[effect.FoldedTitle(title)]...)
		}
	}
	slices.Sort(at)
	return slices.Compact(at)
}

func newCheckDoc(f *analyzer.Facts, types, unkeyedTypes map[string]bool) *checkDoc {
	return &checkDoc{f: f, types: types, unkeyedTypes: unkeyedTypes}
}

// input is the gate's input for q: the whole document without extra
// fields and without the scopes no gate rule reads
// (TestCheckInput_SameDecisionAsWhole). It keeps the scope asked about
// and every scope of the same content whose destination the rules may
// find the same (scopeIndex), with their facts of the given types (nil:
// all).
func (d *checkDoc) input(q *analyzer.Query) ast.Value {
	v, _ := d.question(q)
	return v
}

// question is input(q) and the name of the scopes it weighs: questions
// that weigh the same scopes get the same name and the same scopes term.
func (d *checkDoc) question(q *analyzer.Query) (ast.Value, string) {
	f := d.f
	if d.index == nil {
		d.index = newScopeIndex(f.Scopes)
	}
	at := d.index.weighable(q)
	var b strings.Builder
	for _, i := range at {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	name := b.String()
	if d.scopes == nil {
		d.scopes = map[string]*ast.Term{}
	}
	term := d.scopes[name]
	if term == nil {
		p := part{facts: f, scopes: []*analyzer.Scope{}, global: true, authorizations: f.Authorizations, types: d.types, unkeyedTypes: d.unkeyedTypes}
		if f.Scopes == nil {
			p.scopes = nil
		}
		for _, i := range at {
			p.scopes = append(p.scopes, f.Scopes[i])
		}
		if d.shared == nil {
			d.shared = p.sharedItems()
		}
		term = p.scopesTerm()
		d.scopes[name] = term
	}
	return asking(d.shared, term, q), name
}

// wholeInput is wholeInput(f) with f.Query = q: what users' rules see.
func (d *checkDoc) wholeInput(q *analyzer.Query) ast.Value {
	p := part{facts: d.f, scopes: d.f.Scopes, global: true, authorizations: d.f.Authorizations, fields: true}
	if d.whole == nil {
		d.whole = append(p.sharedItems(), item("scopes", p.scopesTerm()))
	}
	return asking(d.whole, nil, q)
}

// asking is a document of the shared items (left as they are: no
// evaluation changes its input), the scopes when not nil, and the query.
func asking(shared [][2]*ast.Term, scopes *ast.Term, q *analyzer.Query) ast.Value {
	items := make([][2]*ast.Term, 0, len(shared)+2)
	items = append(items, shared...)
	if scopes != nil {
		items = append(items, item("scopes", scopes))
	}
	return ast.NewObject(append(items, item("query", query(q)))...)
}

// checkInput is the gate's input for f.Query (checkDoc.input).
func checkInput(f *analyzer.Facts, types, unkeyedTypes map[string]bool) ast.Value {
	return newCheckDoc(f, types, unkeyedTypes).input(f.Query)
}

type evalTimeoutKey struct{}

// EachEvaluationWithin bounds every evaluation started under the returned
// context by d (0: no bound): each group of key scopes, the document
// without scopes, users' rules. A history grows by adding groups, so a
// bound on the whole would fail large histories; a rule that loops still
// fails in its first group.
func EachEvaluationWithin(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, evalTimeoutKey{}, d)
}

func evalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(evalTimeoutKey{}).(time.Duration); ok && d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

type partResult struct {
	scopes   []ScopeVerdict
	findings []any
	err      error
}

// wholePart is what analyze evaluates once beside the groups of key
// scopes: everything that is not a scope.
func (e *Engine) wholePart(f *analyzer.Facts) part {
	p := part{facts: f, scopes: []*analyzer.Scope{}, global: true, authorizations: f.Authorizations, unkeyedTypes: e.unkeyedTypes}
	if f.Scopes == nil {
		p.scopes = nil
	}
	return p
}

// analyzeBuiltin evaluates the built-in rules by parts.
func (e *Engine) analyzeBuiltin(ctx context.Context, f *analyzer.Facts) (*Analysis, error) {
	gs := groups(f)
	whole := e.wholePart(f)
	results := make([]partResult, len(gs)+1)
	byKey := authorizationsByKey(f)
	run := func(j int) {
		p := whole
		if j > 0 {
			p = groupPart(f, gs[j-1], e.scopeTypes, byKey)
		}
		results[j] = e.evalPart(ctx, p)
	}
	workers := min(runtime.GOMAXPROCS(0), len(results))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				run(j)
			}
		}()
	}
	for j := range results {
		next <- j
	}
	close(next)
	wg.Wait()

	out := &Analysis{Scopes: make([]ScopeVerdict, len(f.Scopes))}
	set := ast.NewSet()
	for j, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		if j > 0 {
			if len(r.scopes) != len(gs[j-1]) {
				return nil, fmt.Errorf("policy: the rules judged %d of %d key scopes", len(r.scopes), len(gs[j-1]))
			}
			for i, si := range gs[j-1] {
				out.Scopes[si] = r.scopes[i]
			}
		}
		for _, x := range r.findings {
			v, err := ast.InterfaceToValue(x)
			if err != nil {
				return nil, err
			}
			set.Add(ast.NewTerm(v))
		}
	}
	all, err := ast.JSON(set)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out.Findings); err != nil {
		return nil, fmt.Errorf("policy: findings: %v", err)
	}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	return out, nil
}

func (e *Engine) evalPart(ctx context.Context, p part) partResult {
	if err := ctx.Err(); err != nil {
		return partResult{err: fmt.Errorf("%w: %v", ErrTimeout, err)}
	}
	ctx, cancel := evalContext(ctx)
	defer cancel()
	rs, err := e.analyze.Eval(ctx, rego.EvalParsedInput(p.value()))
	if err != nil {
		return partResult{err: evalError(err)}
	}
	if len(rs) != 1 {
		return partResult{err: fmt.Errorf("policy: the rules gave %d results, want 1 (is a rule undefined?)", len(rs))}
	}
	var r partResult
	b, err := json.Marshal(rs[0].Bindings["scopes"])
	if err == nil {
		err = json.Unmarshal(b, &r.scopes)
	}
	if err != nil {
		return partResult{err: fmt.Errorf("policy: scopes: %v", err)}
	}
	if p.types != nil && len(r.scopes) == len(p.scopes) {
		for i, s := range p.scopes {
			if r.scopes[i].Classes, err = allClasses(s.Facts, p.types, r.scopes[i].Classes); err != nil {
				return partResult{err: err}
			}
		}
	}
	fs, ok := rs[0].Bindings["findings"].([]any)
	if !ok {
		return partResult{err: fmt.Errorf("policy: the query gave no findings")}
	}
	r.findings = fs
	return r
}

// Facts the built-in rules do not read.
//
// rules.rego's scope_fact_types names the fact types its rules read in key
// scopes; a scope fact of any other type is class "other" and changes no
// verdict. Most of a history is such facts (tool output, screen text,
// task starts), and the rules scan a scope's facts a dozen times, so the
// built-in rules are given only the facts of those types, and the classes
// of the others are filled in as "other". Users' rules see every fact.
// TestAnalyzeByParts_SameAsWhole, TestCheckInput_SameDecisionAsWhole and
// TestProperty_PartsJudgeAsTheWhole hold the filtered evaluation to the
// whole unfiltered document; TestScopeFactTypes_NameEveryTypeTheRulesRead
// holds the set to the rules.

// readFactTypes reads scope_fact_types and unkeyed_fact_types from
// the compiled rules; when the rules do not define one (a copy of older
// rules) or define it empty, every fact is given (for the unkeyed facts:
// those of scope_fact_types).
func (e *Engine) readFactTypes(ctx context.Context) error {
	for _, t := range []struct {
		rule string
		set  *map[string]bool
	}{{"scope_fact_types", &e.scopeTypes}, {"unkeyed_fact_types", &e.unkeyedTypes}} {
		pq, err := e.prepare(ctx, "types := [t | some t in data.effectlint."+t.rule+"]")
		if err != nil {
			return err
		}
		b, err := evalBindings(ctx, pq, ast.NewObject())
		if err != nil {
			return err
		}
		var types []string
		if err := decode(b, "types", &types); err != nil {
			return err
		}
		if len(types) > 0 {
			*t.set = make(map[string]bool, len(types))
			for _, typ := range types {
				(*t.set)[typ] = true
			}
		}
	}
	if e.unkeyedTypes == nil {
		e.unkeyedTypes = e.scopeTypes
	}
	return nil
}

// allClasses spreads the classes the rules gave to a scope's facts of the
// given types over all its facts, the others being "other".
func allClasses(facts []analyzer.Fact, types map[string]bool, given []string) ([]string, error) {
	kept := 0
	for i := range facts {
		if types[facts[i].Type] {
			kept++
		}
	}
	if kept != len(given) {
		return nil, fmt.Errorf("policy: the rules classed %d facts of a scope, want %d", len(given), kept)
	}
	out := make([]string, len(facts))
	n := 0
	for i := range facts {
		if types[facts[i].Type] {
			out[i], n = given[n], n+1
		} else {
			out[i] = "other"
		}
	}
	return out, nil
}
