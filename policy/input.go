package policy

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/transcripts"
)

// The policy input built directly from the facts, without the JSON text in
// between: json.Marshal and ast.ValueFromReader cost more than evaluating
// the rules for large histories (OPA-NOTES: ≈120 ms per 100k facts). The
// result is the value Input gives (TestInputValue_SameAsJSON holds the two
// to it), so what `effectlint facts` prints is still exactly what the
// rules see.

// part is a subset of the facts document: the built-in rules are evaluated
// per group of key scopes (parts holding those scopes and their tasks) and
// once for everything that is not a scope.
type part struct {
	facts  *analyzer.Facts
	scopes []*analyzer.Scope
	// tasks, when not nil, replaces the facts' tasks.
	tasks map[string]*analyzer.Task
	// global: inputs, skipped, unkeyed facts, titles, problems and every
	// authorization; otherwise these are empty and authorizations holds
	// those of the part's keys.
	global         bool
	authorizations []analyzer.Authorization
	// fields: give facts their extra fields. The built-in rules never read
	// them (TestBuiltinRulesDoNotReadFields).
	fields bool
	// types, when not nil, keeps in the scopes only the facts of these
	// types: the built-in rules' scope_fact_types (evaluate.go).
	types map[string]bool
	// unkeyedTypes, when not nil, keeps among the unkeyed facts only the
	// facts of these types: the built-in rules' unkeyed_fact_types.
	unkeyedTypes map[string]bool
}

// wholeInput is the complete facts document, extra fields included: what
// users' rules and explanations see.
func wholeInput(f *analyzer.Facts) ast.Value {
	return part{facts: f, scopes: f.Scopes, global: true, authorizations: f.Authorizations, fields: true}.value()
}

var keyTerms = map[string]*ast.Term{}

// k is the term of an object key (shared: terms are never changed).
func k(name string) *ast.Term {
	if t, ok := keyTerms[name]; ok {
		return t
	}
	panic("policy: key " + name + " not registered")
}

func init() {
	for _, name := range strings.Fields(`version inputs skipped tasks scopes unkeyed authorizations titles identities
		unattributed_problems options query require_checks path format events problems notices file line
		task message id relation parent resumes history source gated start_rank start_ts ended status
		superseded_by complete incomplete_because segment interruptions intents inherited_intent keys
		key_unknown start referenced_at lineage seq ts reason at key key_error scope scope_id authorization
		destination weak_destination content_sha256 content_name provider title by identity facts type
		segment_ended intent unkeyed_because checkpoint decision result label ok idempotency_token fields
		checkpoint task_known intent_given unkeyed_destination intent_task ambiguous`) {
		keyTerms[name] = ast.StringTerm(name)
	}
}

// sterm converts a string as encoding/json would write it: invalid UTF-8
// bytes become U+FFFD (each one).
func sterm(s string) *ast.Term {
	if s == "" {
		return ast.InternedEmptyString // as null and emptyArray
	}
	if utf8.ValidString(s) {
		return ast.StringTerm(s)
	}
	b, _ := json.Marshal(s)
	var v string
	_ = json.Unmarshal(b, &v)
	return ast.StringTerm(v)
}

func num(n int) *ast.Term { return ast.InternedTerm(n) }

func boolean(b bool) *ast.Term { return ast.InternedTerm(b) }

func item(name string, v *ast.Term) [2]*ast.Term { return [2]*ast.Term{k(name), v} }

func obj(items ...[2]*ast.Term) *ast.Term { return ast.NewTerm(ast.NewObject(items...)) }

// null and emptyArray are OPA's own interned terms: a month of history
// has hundreds of thousands of empty lists and absent values in its task
// table alone, each a term of its own before (issue 15). Input terms are
// never changed, by OPA (its built-in functions return these same terms)
// or here, so one term serves them all.
func null() *ast.Term { return ast.InternedNullTerm }

func emptyArray() *ast.Term { return ast.InternedEmptyArray }

func strs(ss []string) *ast.Term { return interner(nil).strs(ss) }

// list converts a slice (nil: null, as encoding/json writes it).
func list[T any](xs []T, conv func(*T) *ast.Term) *ast.Term {
	if xs == nil {
		return null()
	}
	if len(xs) == 0 {
		return emptyArray()
	}
	ts := make([]*ast.Term, len(xs))
	for i := range xs {
		ts[i] = conv(&xs[i])
	}
	return ast.ArrayTerm(ts...)
}

// interner gives equal strings one term, in a document where they repeat:
// a task table held about 6 KB a task as OPA values (110–130 MB for the 20,000
// tasks of a million events), its files, ids, keys and statuses each a
// term of their own (issue 15). A nil interner makes a term of each string.
type interner map[string]*ast.Term

func (m interner) str(s string) *ast.Term {
	if m == nil {
		return sterm(s)
	}
	t, ok := m[s]
	if !ok {
		t = sterm(s)
		m[s] = t
	}
	return t
}

func pointer(p *analyzer.Pointer) *ast.Term { return interner(nil).pointer(p) }

func (m interner) pointer(p *analyzer.Pointer) *ast.Term {
	return obj(item("file", m.str(p.File)), item("line", num(p.Line)))
}

func problem(p *transcripts.Problem) *ast.Term {
	items := []([2]*ast.Term){item("file", sterm(p.File)), item("line", num(p.Line))}
	if p.Task != "" {
		items = append(items, item("task", sterm(p.Task)))
	}
	return obj(append(items, item("message", sterm(p.Message)))...)
}

func input(in *transcripts.Input) *ast.Term {
	items := []([2]*ast.Term){item("path", sterm(in.Path)), item("format", sterm(in.Format)),
		item("events", num(in.Events)), item("problems", list(in.Problems, problem))}
	if len(in.Notices) > 0 {
		items = append(items, item("notices", strs(in.Notices)))
	}
	return obj(items...)
}

func destination(d *analyzer.Destination) *ast.Term { return interner(nil).destination(d) }

func (m interner) destination(d *analyzer.Destination) *ast.Term {
	var items [][2]*ast.Term
	if d.Provider != "" {
		items = append(items, item("provider", m.str(d.Provider)))
	}
	if d.ID != "" {
		items = append(items, item("id", m.str(d.ID)))
	}
	if d.Title != "" {
		items = append(items, item("title", m.str(d.Title)))
	}
	return obj(items...)
}

func intent(in *analyzer.Intent) *ast.Term { return interner(nil).intent(in) }

// intent: the strings that are one key's or one task's for all its intents
// and facts go through m; those of one intent alone (its scope id, content
// and name) are terms of their own.
func (m interner) intent(in *analyzer.Intent) *ast.Term {
	items := []([2]*ast.Term){item("id", m.str(in.ID)), item("task", m.str(in.Task)), item("key", m.str(in.Key))}
	if in.KeyError != "" {
		items = append(items, item("key_error", sterm(in.KeyError)))
	}
	items = append(items, item("scope", m.str(in.Scope)), item("scope_id", sterm(in.ScopeID)),
		item("authorization", m.str(in.Authorization)), item("destination", m.destination(&in.Destination)),
		item("weak_destination", boolean(in.WeakDestination)), item("content_sha256", sterm(in.ContentSHA256)))
	if in.ContentName != "" {
		items = append(items, item("content_name", sterm(in.ContentName)))
	}
	return obj(append(items, item("seq", num(in.Seq)), item("at", m.pointer(&in.At)))...)
}

func (m interner) interruption(i *analyzer.Interruption) *ast.Term {
	return obj(item("seq", num(i.Seq)), item("ts", sterm(i.TS)), item("reason", m.str(i.Reason)),
		item("segment", num(i.Segment)), item("at", m.pointer(&i.At)))
}

func (m interner) strs(ss []string) *ast.Term {
	if ss == nil {
		return null()
	}
	if len(ss) == 0 {
		return emptyArray()
	}
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = m.str(s)
	}
	return ast.ArrayTerm(ts...)
}

// lineages converts the tasks' lineages, sharing what
// analyzer.Facts.linkLineages shares: along a chain of N resumptions the
// lineages list N²/2 ids, but they are tails of one array. Two slices
// whose last elements are at one address are views of one array that end
// at the same place, so the shorter is the longer's tail: each such array
// becomes one term array, and each lineage a slice of it (ast.Array.Slice
// shares the elements). Converting each lineage on its own took a check
// of a chain 4,000 deep 2.8 s and most of 745 MB (issue 15).
//
// The task table's strings go through one interner, the lineages' ids
// included.
type lineages struct {
	full map[*string]*ast.Array // by the address of the last element
	strs interner
}

func newLineages(tasks map[string]*analyzer.Task) *lineages {
	x := &lineages{full: map[*string]*ast.Array{}, strs: interner{}}
	longest := map[*string][]string{}
	for _, t := range tasks {
		if t == nil || len(t.Lineage) == 0 {
			continue
		}
		if l := t.Lineage; len(l) > len(longest[&l[len(l)-1]]) {
			longest[&l[len(l)-1]] = l
		}
	}
	for end, l := range longest {
		ts := make([]*ast.Term, len(l))
		for i, id := range l {
			ts[i] = x.strs.str(id)
		}
		x.full[end] = ast.NewArray(ts...)
	}
	return x
}

func (x *lineages) term(l []string) *ast.Term {
	if l == nil {
		return null()
	}
	if len(l) == 0 {
		return emptyArray()
	}
	full := x.full[&l[len(l)-1]]
	if full.Len() == len(l) {
		return ast.NewTerm(full)
	}
	return ast.NewTerm(full.Slice(full.Len()-len(l), -1))
}

func (x *lineages) task(t *analyzer.Task) *ast.Term {
	if t == nil {
		return null()
	}
	m := x.strs
	inherited := null()
	if t.InheritedIntent != nil {
		inherited = m.intent(t.InheritedIntent)
	}
	return obj(item("id", m.str(t.ID)), item("relation", m.str(t.Relation)), item("parent", m.str(t.Parent)),
		item("resumes", m.str(t.Resumes)), item("history", boolean(t.History)), item("source", m.str(t.Source)),
		item("gated", boolean(t.Gated)), item("start_rank", num(t.StartRank)), item("start_ts", sterm(t.StartTS)),
		item("ended", boolean(t.Ended)), item("status", m.str(t.Status)), item("superseded_by", m.str(t.SupersededBy)),
		item("complete", boolean(t.Complete)), item("incomplete_because", m.strs(t.IncompleteBecause)),
		item("problems", list(t.Problems, m.pointer)), item("segment", num(t.Segment)),
		item("interruptions", list(t.Interruptions, m.interruption)), item("intents", list(t.Intents, m.intent)),
		item("inherited_intent", inherited), item("keys", m.strs(t.Keys)), item("key_unknown", boolean(t.KeyUnknown)),
		item("start", m.pointer(&t.Start)), item("referenced_at", list(t.ReferencedAt, m.pointer)),
		item("lineage", x.term(t.Lineage)))
}

func authorization(a *analyzer.Authorization) *ast.Term {
	items := []([2]*ast.Term){item("id", sterm(a.ID)), item("by", sterm(a.By)), item("reason", sterm(a.Reason)), item("key", sterm(a.Key))}
	if a.KeyError != "" {
		items = append(items, item("key_error", sterm(a.KeyError)))
	}
	return obj(append(items, item("seq", num(a.Seq)), item("at", pointer(&a.At)))...)
}

func titleUse(u *analyzer.TitleUse) *ast.Term {
	return obj(item("identity", sterm(u.Identity)), item("at", pointer(&u.At)))
}

// factConv converts facts, with or without their extra fields, and keeps
// in scopes and among the unkeyed facts only the facts of the given types
// (nil: all).
type factConv struct {
	fields bool
	types  map[string]bool
}

func (c factConv) fact(f *analyzer.Fact) *ast.Term {
	rare := f.Rare()
	items := make([][2]*ast.Term, 0, 16)
	items = append(items, item("seq", num(f.Seq)), item("ts", sterm(f.TS.String())), item("task", sterm(f.Task)),
		item("type", sterm(f.Type)), item("segment", num(f.Segment)), item("segment_ended", boolean(f.SegmentEnded)),
		item("at", pointer(&f.At)))
	for _, s := range [...]struct {
		name, v string
	}{{"intent", f.Intent}, {"unkeyed_because", rare.UnkeyedBecause}, {"checkpoint", rare.Checkpoint},
		{"decision", rare.Decision}, {"result", rare.Result}, {"label", rare.Label}, {"intent_task", rare.IntentTask}} {
		if s.v != "" {
			items = append(items, item(s.name, sterm(s.v)))
		}
	}
	if rare.UnkeyedDestination != nil {
		items = append(items, item("unkeyed_destination", destination(rare.UnkeyedDestination)))
	}
	if rare.Ambiguous {
		items = append(items, item("ambiguous", boolean(true)))
	}
	if rare.OK != nil {
		items = append(items, item("ok", boolean(*rare.OK)))
	}
	if rare.IdempotencyToken != "" {
		items = append(items, item("idempotency_token", sterm(rare.IdempotencyToken)))
	}
	if c.fields && rare.Fields != "" {
		v, err := ast.ValueFromReader(strings.NewReader(string(rare.Fields)))
		if err != nil {
			v = ast.String(err.Error()) // Fields holds encoding/json output: cannot happen
		}
		items = append(items, item("fields", ast.NewTerm(v)))
	}
	return obj(items...)
}

func (c factConv) scope(s *analyzer.Scope) *ast.Term {
	if s == nil {
		return null()
	}
	return obj(item("id", sterm(s.ID)), item("key", sterm(s.Key)), item("scope", sterm(s.Scope)),
		item("destination", destination(&s.Destination)), item("content_sha256", sterm(s.ContentSHA256)),
		item("tasks", strs(s.Tasks)), item("facts", c.scopeFacts(s.Facts)))
}

func (c factConv) scopeFacts(facts []analyzer.Fact) *ast.Term {
	if c.types == nil || facts == nil {
		return list(facts, c.fact)
	}
	ts := make([]*ast.Term, 0, len(facts))
	for i := range facts {
		if c.types[facts[i].Type] {
			ts = append(ts, c.fact(&facts[i]))
		}
	}
	return ast.ArrayTerm(ts...)
}

func query(q *analyzer.Query) *ast.Term {
	items := []([2]*ast.Term){item("task", sterm(q.Task)), item("checkpoint", sterm(q.Checkpoint)), item("task_known", boolean(q.TaskKnown)),
		item("intent_given", boolean(q.IntentGiven)), item("key", sterm(q.Key)), item("key_error", sterm(q.KeyError)),
		item("scope", sterm(q.Scope)), item("scope_id", sterm(q.ScopeID)), item("authorization", sterm(q.Authorization)),
		item("destination", destination(&q.Destination)), item("content_sha256", sterm(q.ContentSHA256)),
		item("titles", strs(q.Titles)), item("identities", strs(q.Identities))}
	if q.Intent != "" {
		items = append(items, item("intent", sterm(q.Intent)))
	}
	return obj(items...)
}

// value builds the part's input document.
func (p part) value() ast.Value {
	items := append(p.sharedItems(), item("scopes", p.scopesTerm()))
	if p.facts.Query != nil {
		items = append(items, item("query", query(p.facts.Query)))
	}
	return ast.NewObject(items...)
}

// scopesTerm is the part's scopes, each with its facts of p.types.
func (p part) scopesTerm() *ast.Term {
	c := factConv{fields: p.fields, types: p.types}
	return list(p.scopes, func(s **analyzer.Scope) *ast.Term { return c.scope(*s) })
}

// sharedItems is every item of the part's document but its scopes and
// its query: what every question a check asks of one history shares
// (checkDoc).
func (p part) sharedItems() [][2]*ast.Term {
	f := p.facts
	tasks := p.tasks
	if tasks == nil {
		tasks = f.Tasks
	}
	taskItems := make([][2]*ast.Term, 0, len(tasks))
	x := newLineages(tasks)
	for id, t := range tasks {
		taskItems = append(taskItems, [2]*ast.Term{sterm(id), x.task(t)})
	}
	empty := emptyArray
	inputs, skipped, unkeyed, unattributed := empty(), empty(), empty(), empty()
	titles := obj()
	if p.global {
		inputs = list(f.Inputs, input)
		skipped = strs(f.Skipped)
		// Of the types the rules read: a check over delegated workers'
		// histories weighs thousands of unkeyed facts, most of them tool
		// outputs and screen changes no rule reads (issue 15).
		unkeyed = factConv{fields: p.fields, types: p.unkeyedTypes}.scopeFacts(f.Unkeyed)
		unattributed = list(f.UnattributedProblems, pointer)
		if f.Titles == nil {
			titles = null()
		} else {
			items := make([][2]*ast.Term, 0, len(f.Titles))
			for t, uses := range f.Titles {
				items = append(items, [2]*ast.Term{sterm(t), list(uses, titleUse)})
			}
			titles = obj(items...)
		}
	}
	var tasksTerm *ast.Term
	if tasks == nil {
		tasksTerm = null()
	} else {
		tasksTerm = obj(taskItems...)
	}
	return []([2]*ast.Term){item("version", sterm(f.Version)), item("inputs", inputs), item("skipped", skipped),
		item("tasks", tasksTerm), item("unkeyed", unkeyed),
		item("authorizations", list(p.authorizations, authorization)), item("titles", titles),
		item("unattributed_problems", unattributed),
		item("options", obj(item("require_checks", boolean(f.Options.RequireChecks))))}
}
