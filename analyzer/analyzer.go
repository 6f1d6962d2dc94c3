// Package analyzer turns events into the policy input: tasks and their
// relations, segments, intents and keys, key scopes and evidence facts, each
// with its file and line. It computes plain facts only; every verdict is
// decided by the Rego rules.
package analyzer

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/effectlint/effectlint/transcripts"

	"github.com/effectlint/effectlint/effect"
)

// taskEvents are the event types that shape a task rather than being
// evidence about a delivery.
var taskEvents = map[string]bool{
	"task_started": true, "task_spawned": true, "task_ended": true,
	"interrupted": true, "intent": true, "authorization": true,
}

// Builder collects events and builds Facts. Use New, Add every event, then
// Build once.
//
// A month of logs is millions of events, so the Builder keeps little per
// event: evidence becomes its Fact when it is added (extra fields as JSON
// text, transcript text already clipped by the readers) and is never
// copied again: Build orders an index, then moves the facts in place so
// that each key scope's facts are one run of a single array.
type Builder struct {
	chunks  [][]Fact // facts in input order, factChunk per chunk (no regrowth)
	nfacts  int
	factAt  []stamp
	factSrc []uint8
	lives   []lifecycle
	order   []uint32 // every event in input order: a fact, or a lifecycle event (lifeBit)
	sources []string
	hashes  map[string]hashResult
	paths   []PathMap
	// problems are lines the analyzer itself finds unreadable (a
	// malformed key or digest): they join their input's problems.
	problems []transcripts.Problem
}

// PathMap reads a recorded path under From as the same path under To:
// post-incident review runs on another machine than the agent did.
type PathMap struct{ From, To string }

// MapPaths adds path maps (the longest matching From wins).
func (b *Builder) MapPaths(maps ...PathMap) { b.paths = append(b.paths, maps...) }

// mapPath applies the longest path map whose From is p or a parent of p.
func (b *Builder) mapPath(p string) string {
	best := -1
	for i, m := range b.paths {
		from := filepath.Clean(m.From)
		if p == from || strings.HasPrefix(p, strings.TrimSuffix(from, string(filepath.Separator))+string(filepath.Separator)) {
			if best < 0 || len(from) > len(filepath.Clean(b.paths[best].From)) {
				best = i
			}
		}
	}
	if best < 0 {
		return p
	}
	m := b.paths[best]
	return filepath.Join(m.To, strings.TrimPrefix(p, filepath.Clean(m.From)))
}

const factChunk = 4096

// stamp is a time as the order of events needs it, without a pointer (a
// time.Time holds its location): a month of events is millions of them.
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int32(t.Nanosecond())} }

func (s stamp) compare(o stamp) int {
	if c := cmp.Compare(s.sec, o.sec); c != 0 {
		return c
	}
	return cmp.Compare(s.nsec, o.nsec)
}

func (s stamp) time() time.Time { return time.Unix(s.sec, int64(s.nsec)) }

// lifecycle is an event that shapes a task (taskEvents): it is read by
// Build, not kept as a fact.
type lifecycle struct {
	e   transcripts.Event
	src uint8
}

const lifeBit = 1 << 31

type hashResult struct {
	sum string
	err error
}

// New returns an empty Builder.
func New() *Builder { return &Builder{hashes: map[string]hashResult{}} }

// Add records one event. Events may come in any order; Build orders them.
func (b *Builder) Add(e transcripts.Event) {
	src := b.source(e.Source)
	if taskEvents[e.Type] {
		b.order = append(b.order, uint32(len(b.lives))|lifeBit)
		b.lives = append(b.lives, lifecycle{e: e, src: src})
		return
	}
	if b.nfacts%factChunk == 0 {
		b.chunks = append(b.chunks, make([]Fact, 0, factChunk))
	}
	b.order = append(b.order, uint32(b.nfacts))
	c := &b.chunks[len(b.chunks)-1]
	*c = append(*c, newFact(&e))
	b.nfacts++
	b.factAt = append(b.factAt, stampOf(e.TS))
	b.factSrc = append(b.factSrc, src)
}

// fact is the i-th fact added.
func (b *Builder) fact(i uint32) *Fact { return &b.chunks[i/factChunk][i%factChunk] }

func (b *Builder) source(s string) uint8 {
	for i, x := range b.sources {
		if x == s {
			return uint8(i)
		}
	}
	if len(b.sources) == 255 {
		panic("analyzer: more than 255 source formats")
	}
	b.sources = append(b.sources, s)
	return uint8(len(b.sources) - 1)
}

// newFact turns an evidence event into its fact, without its place in
// time (Seq, Segment), which Build gives.
func newFact(e *transcripts.Event) Fact {
	fact := Fact{TS: InstantOf(e.TS), Task: e.Task, Type: e.Type, At: Pointer{e.File, e.Line}}
	var buf [8]string
	extra := buf[:0] // the keys of the fields that stay fields
	for k, v := range e.Fields {
		switch k {
		case "intent":
			fact.Intent, _ = v.(string)
		case "checkpoint":
			if c, _ := v.(string); c != "" {
				fact.rare().Checkpoint = c
			}
		case "decision":
			if d, _ := v.(string); d != "" {
				fact.rare().Decision = d
			}
		case "result":
			if r, _ := v.(string); r != "" {
				fact.rare().Result = r
			}
		case "label":
			if l, _ := v.(string); l != "" {
				fact.rare().Label = l
			}
		case "idempotency_token":
			if tok, _ := v.(string); tok != "" {
				fact.rare().IdempotencyToken = tok
			}
		case "ok":
			if ok, isBool := v.(bool); isBool {
				fact.rare().OK = &ok
				continue
			}
			fallthrough
		default:
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		if fs := fieldsOf(e.Fields, extra); fs != "" {
			fact.rare().Fields = fs
		}
	}
	return fact
}

// str is a lifecycle event's string field.
func (l *lifecycle) str(name string) string { return l.e.Str(name) }

// Build orders the events (by time; ties by task id, then input order, and
// inputs are read in path order) and derives the facts.
func (b *Builder) Build(read transcripts.Result) *Facts {
	// Ties break so that splitting the same events over files differently
	// cannot change the order (SPEC §3): by task id, then, within one
	// task, by a rank that reads the instant the fail-closed way (a
	// crossing or approach before the interruption, end or restart that
	// shares its time), then by type and content; input order only
	// between identical events.
	lifeAt := make([]stamp, len(b.lives))
	for i := range b.lives {
		lifeAt[i] = stampOf(b.lives[i].e.TS)
	}
	lifeRank := b.lifeRanks(lifeAt)
	at := func(r uint32) (stamp, string) {
		if r&lifeBit != 0 {
			return lifeAt[r&^lifeBit], b.lives[r&^lifeBit].e.Task
		}
		return b.factAt[r], b.fact(r).Task
	}
	rankOf := func(r uint32) (uint8, string) {
		if r&lifeBit != 0 {
			l := &b.lives[r&^lifeBit]
			return lifeRank[r&^lifeBit], l.e.Type
		}
		t := b.fact(r).Type
		return factRank(t), t
	}
	slices.SortStableFunc(b.order, func(x, y uint32) int {
		tx, kx := at(x)
		ty, ky := at(y)
		if c := tx.compare(ty); c != 0 {
			return c
		}
		if c := strings.Compare(kx, ky); c != 0 {
			return c
		}
		rx, typeX := rankOf(x)
		ry, typeY := rankOf(y)
		if c := cmp.Compare(rx, ry); c != 0 {
			return c
		}
		if c := strings.Compare(typeX, typeY); c != 0 {
			return c
		}
		return strings.Compare(b.content(x), b.content(y))
	})
	f := &Facts{
		Version: FactsVersion, Inputs: read.Inputs, Skipped: read.Skipped,
		Tasks: map[string]*Task{}, Scopes: []*Scope{}, Unkeyed: []Fact{},
		Authorizations: []Authorization{}, Titles: map[string][]TitleUse{},
		UnattributedProblems: []Pointer{},
	}
	if f.Inputs == nil {
		f.Inputs = []transcripts.Input{}
	}
	if f.Skipped == nil {
		f.Skipped = []string{}
	}
	evidence := make([]uint32, 0, b.nfacts) // facts, in order
	// The intents declared so far, by task and intent id: comparing each
	// intent with every earlier one of its task was quadratic in a task's
	// intents.
	declared := map[[2]string][]int{}
	for seq, r := range b.order {
		ts, id := at(r)
		t := f.task(id)
		var file string
		var line int
		var src uint8
		if r&lifeBit != 0 {
			l := &b.lives[r&^lifeBit]
			file, line, src = l.e.File, l.e.Line, l.src
		} else {
			fact := b.fact(r)
			file, line, src = fact.At.File, fact.At.Line, b.factSrc[r]
			fact.Seq, fact.Segment = seq, t.Segment
			evidence = append(evidence, r)
		}
		if !t.History {
			var tsText string
			if r&lifeBit != 0 {
				tsText = formatTS(b.lives[r&^lifeBit].e.TS)
			} else {
				tsText = b.fact(r).TS.String()
			}
			t.History, t.startSeq, t.startTime, t.StartTS = true, seq, ts.time(), tsText
			t.Start, t.Source = Pointer{file, line}, b.sources[src]
		}
		t.files[file] = true
		if r&lifeBit == 0 {
			fact := b.fact(r)
			t.Gated = t.Gated || fact.Type == "gate_check"
			if t.Ended {
				t.incomplete(fmt.Sprintf("%s at %s:%d after the task ended", fact.Type, fact.At.File, fact.At.Line))
			}
			continue
		}
		l := &b.lives[r&^lifeBit]
		e := &l.e
		if t.Ended && !(e.Type == "task_started" && t.started) && e.Type != "task_ended" {
			// (A repeated task_ended, a log line written twice, says
			// nothing new.)
			// SPEC §3: events after task_ended, other than a restart,
			// make the history inconsistent.
			t.incomplete(fmt.Sprintf("%s at %s:%d after the task ended", e.Type, e.File, e.Line))
		}
		switch e.Type {
		case "task_started":
			if t.started {
				// A second task_started of a known task is a restart: the
				// segment before it has ended, as if an interruption with
				// reason restart preceded it (a crash writes nothing).
				t.Segment++
				t.Ended, t.Status = false, ""
				t.Interruptions = append(t.Interruptions, Interruption{Seq: seq, TS: formatTS(e.TS),
					Reason: "restart", Segment: t.Segment, At: Pointer{e.File, e.Line}})
				// A restart that tells another story of the task (resumes
				// another task, another relation or parent) has two
				// readings, and neither is taken (a fourth adversarial
				// review: a restart's resumes was ignored, and the task it
				// named stayed eligible).
				rel, res, par := l.str("relation"), l.str("resumes"), l.str("parent")
				if (rel != "" && rel != t.Relation) || res != t.Resumes && (res != "" || rel == "resumed") || (par != "" && par != t.Parent) {
					t.incomplete(fmt.Sprintf("task_started at %s:%d (relation %q, resumes %q, parent %q) disagrees with the task's first start (relation %q, resumes %q, parent %q)",
						e.File, e.Line, rel, res, par, t.Relation, t.Resumes, t.Parent))
				}
				continue
			}
			t.started = true
			if t.Relation == "" {
				t.Relation, t.Resumes = l.str("relation"), l.str("resumes")
				if p := l.str("parent"); p != "" {
					t.Parent = p
				}
				if t.Relation == "" {
					t.Relation = "root"
				}
				for _, ref := range []string{t.Parent, t.Resumes} {
					if ref != "" {
						rt := f.task(ref)
						rt.ReferencedAt = append(rt.ReferencedAt, Pointer{e.File, e.Line})
					}
				}
			}
		case "task_spawned":
			if c := l.str("child"); c != "" {
				ct := f.task(c)
				if ct.Parent == "" {
					ct.Parent = e.Task
				}
				ct.ReferencedAt = append(ct.ReferencedAt, Pointer{e.File, e.Line})
			}
		case "task_ended":
			t.Ended, t.Status, t.endSeq = true, l.str("status"), seq
		case "interrupted":
			t.Segment++
			t.Interruptions = append(t.Interruptions, Interruption{Seq: seq, TS: formatTS(e.TS),
				Reason: l.str("reason"), Segment: t.Segment, At: Pointer{e.File, e.Line}})
		case "intent":
			in := b.intent(e, seq, len(t.Intents))
			in.at = ts
			same := [2]string{t.ID, in.ID}
			for _, i := range declared[same] {
				if prev := t.Intents[i]; prev.Key != in.Key || prev.Key == "" || prev.Authorization != in.Authorization {
					// Evidence that names this id could mean either. One
					// reason per declaration, naming the first it differs
					// from: one per pair made N declarations of one id
					// N²/2 reasons (300 took a check 4.7 s, issue 15).
					t.incomplete(fmt.Sprintf("intent %s is declared twice, with different keys (%s:%d, %s:%d)",
						in.ID, prev.At.File, prev.At.Line, in.At.File, in.At.Line))
					break
				}
			}
			if n := len(t.Intents); n > 0 && t.Intents[n-1].at == in.at {
				t.Intents[n-1].tied, in.tied = true, true // in time order: ties are neighbours
			}
			declared[same] = append(declared[same], len(t.Intents))
			t.Intents = append(t.Intents, in)
		case "authorization":
			f.Authorizations = append(f.Authorizations, b.authorization(e, seq))
		}
	}
	b.lives, b.order, b.factSrc, lifeAt = nil, nil, nil, nil // factAt: until the facts are attributed
	f.addProblems(b.problems)
	f.linkTasks(f.linkLineages())
	f.markProblems()
	f.unrecordedAuthorizations()
	// Again: the two steps above may name tasks first (a problem line's
	// task), which need a lineage too (an empty one, not null).
	f.onCycle = f.linkLineages()
	inherited := f.inheritedIntents(f.onCycle)
	for _, t := range f.Tasks {
		if t.Relation == "resumed" {
			// Also when it declares intents of its own later: until then
			// its evidence is the inherited intent's.
			if in := inherited[t]; in != nil {
				c := *in
				t.InheritedIntent = &c
				// Of intents tied at one instant, any may be the
				// latest: it may hold each (a twentieth review: a
				// running resumer was no task of the other's scope).
				if g := f.tiedGroup(in); len(g) > 1 {
					t.mayHold = g
				}
			}
			f.inheritedAtATie(t)
		}
	}
	f.rankTasks()
	scopes := f.openScopes()
	// Each fact goes to its key scope (or to the unkeyed ones, group
	// len(f.Scopes)); the facts then move, in place, into one run per
	// group, in order.
	index := make(map[string]int32, len(f.Scopes))
	for i, s := range f.Scopes {
		index[s.ID] = int32(i)
	}
	group := make([]int32, b.nfacts)
	count := make([]int, len(f.Scopes)+1)
	// The crossings and retreats of each task's segment, in order: what
	// may resolve an approach (SPEC §4 rule 2), for otherReadings.
	f.resolving = map[taskSegment][]resolution{}
	f.intentIdx = map[*Task]*intentIndex{}
	for _, r := range evidence {
		if fact := b.fact(r); crossingType(fact.Type) || fact.Type == "picker_dismissed" {
			k := taskSegment{fact.Task, fact.Segment}
			f.resolving[k] = append(f.resolving[k], resolution{fact.Seq, b.factAt[r], fact.Intent})
		}
	}
	for _, r := range evidence {
		g := int32(len(f.Scopes))
		if s := f.attribute(b.fact(r), b.factAt[r], scopes); s != nil {
			g = index[s.ID]
		}
		group[r] = g
		count[g]++
	}
	next := make([]int, len(count))
	for g := 1; g < len(count); g++ {
		next[g] = next[g-1] + count[g-1]
	}
	start := slices.Clone(next)
	dest := make([]int32, b.nfacts)
	for _, r := range evidence {
		dest[r] = int32(next[group[r]])
		next[group[r]]++
	}
	group, evidence = nil, nil
	b.permute(dest)
	dest = nil
	for g, n := range count {
		run := b.run(start[g], n)
		if g < len(f.Scopes) {
			f.Scopes[g].Facts = run
		} else {
			f.Unkeyed = run
		}
	}
	f.resolving, f.intentIdx = nil, nil
	if len(f.ambiguous) > 0 {
		// A run shares its chunk: the merge makes a slice of its own.
		f.Unkeyed = append(slices.Clip(f.Unkeyed), f.ambiguous...)
		slices.SortStableFunc(f.Unkeyed, func(x, y Fact) int { return cmp.Compare(x.Seq, y.Seq) })
		f.ambiguous = nil
	}
	b.chunks = nil
	f.collectTitles()
	return f
}

// Ranks of events within one task and one instant (SPEC §3): what shapes
// the task first, then retreats, checks, approaches, crossings,
// uncertainty, labels and unknown types, and last what ends a segment
// (interrupted, task_ended, a restart), so that a crossing or approach
// that shares its time with the end of its segment counts as before it,
// and one that shares it with a retreat as after it: a retreat resolves
// an approach only when it comes later (SPEC §4 rule 2), and at one
// instant that is not known (two adversarial reviews: a picker opened,
// dismissed and opened again within a second, then a crash, read as
// resolved, and a check allowed).
const (
	rankDeclare = iota // the first task_started, intent, authorization, task_spawned
	rankRetreat
	rankCheck
	rankApproach
	rankCrossing
	rankUncertainty
	rankOther
	rankEnd
)

var factRanks = map[string]uint8{
	"gate_check": rankCheck, "picker_opened": rankApproach,
	"picker_accepted": rankCrossing, "send_fired": rankCrossing, "request_sent": rankCrossing,
	"response": rankCrossing, "outgoing_item_seen": rankCrossing, "readback": rankCrossing,
	"ui_changed": rankUncertainty, "timeout": rankUncertainty, "response_lost": rankUncertainty,
	"failure_shown": rankUncertainty, "picker_dismissed": rankRetreat,
}

func factRank(typ string) uint8 {
	if r, ok := factRanks[typ]; ok {
		return r
	}
	return rankOther
}

// lifeRanks ranks the lifecycle events. A task's first task_started (the
// earliest; ties by content, then input order) declares it; every later
// one is a restart and ends a segment.
func (b *Builder) lifeRanks(at []stamp) []uint8 {
	first := map[string]int{}
	for i := range b.lives {
		e := &b.lives[i].e
		if e.Type != "task_started" {
			continue
		}
		j, ok := first[e.Task]
		if !ok {
			first[e.Task] = i
			continue
		}
		if c := at[i].compare(at[j]); c < 0 || c == 0 && b.content(uint32(i)|lifeBit) < b.content(uint32(j)|lifeBit) {
			first[e.Task] = i
		}
	}
	ranks := make([]uint8, len(b.lives))
	for i := range b.lives {
		switch e := &b.lives[i].e; e.Type {
		case "interrupted", "task_ended":
			ranks[i] = rankEnd
		case "task_started":
			if first[e.Task] != i {
				ranks[i] = rankEnd
			}
		}
	}
	return ranks
}

// content is an event's fields as text, to order identical-looking events
// the same way whatever files they came from. Only events of one task,
// instant and type are ever compared, so this is rarely called.
func (b *Builder) content(r uint32) string {
	if r&lifeBit != 0 {
		l := &b.lives[r&^lifeBit]
		return string(NewFields(l.e.Fields))
	}
	f := b.fact(r)
	rare := f.Rare()
	ok := ""
	if rare.OK != nil {
		ok = strconv.FormatBool(*rare.OK)
	}
	return strings.Join([]string{f.Intent, rare.Checkpoint, rare.Decision, rare.Result, rare.Label, ok, rare.IdempotencyToken, string(rare.Fields)}, "\x00")
}

// permute moves fact i to position dest[i] for every i, in place across
// the chunks, by following the cycles of the permutation; dest is used up.
func (b *Builder) permute(dest []int32) {
	for i := range dest {
		for dest[i] >= 0 && int(dest[i]) != i {
			j := dest[i]
			x, y := b.fact(uint32(i)), b.fact(uint32(j))
			*x, *y = *y, *x
			dest[i], dest[j] = dest[j], -1
		}
		dest[i] = -1
	}
}

// run returns the n facts from position start: a part of one chunk, or,
// for the few runs that cross from one chunk into the next, a copy. No
// second array of all facts is ever made.
func (b *Builder) run(start, n int) []Fact {
	if n == 0 {
		return []Fact{}
	}
	first, last := start/factChunk, (start+n-1)/factChunk
	if first == last {
		off := start % factChunk
		return b.chunks[first][off : off+n : off+n]
	}
	out := make([]Fact, 0, n)
	for c := first; c <= last; c++ {
		lo, hi := 0, len(b.chunks[c])
		if c == first {
			lo = start % factChunk
		}
		if c == last {
			hi = (start+n-1)%factChunk + 1
		}
		out = append(out, b.chunks[c][lo:hi]...)
	}
	return out
}

func formatTS(t time.Time) string { return t.Format(time.RFC3339Nano) }

func (f *Facts) task(id string) *Task {
	t := f.Tasks[id]
	if t == nil {
		t = &Task{ID: id, Complete: true, files: map[string]bool{}, Interruptions: []Interruption{},
			Intents: []Intent{}, Keys: []string{}, IncompleteBecause: []string{}, Problems: []Pointer{},
			ReferencedAt: []Pointer{}}
		f.Tasks[id] = t
	}
	return t
}

func (t *Task) incomplete(why string) {
	t.Complete = false
	for _, w := range t.IncompleteBecause {
		if w == why {
			return
		}
	}
	t.IncompleteBecause = append(t.IncompleteBecause, why)
}

// linkTasks marks the tasks that are referenced but have no history (they
// were created when first named) and records which task supersedes which.
// onCycle holds the tasks whose resumes links come back to them
// (linkLineages).
func (f *Facts) linkTasks(onCycle map[*Task]bool) {
	ids := f.sortedTaskIDs()
	for _, id := range ids {
		t := f.Tasks[id]
		if !t.History {
			t.incomplete("referenced but no history in the inputs")
			t.Relation = "unknown"
		}
	}
	for _, id := range ids {
		t := f.Tasks[id]
		if t.Resumes == "" {
			continue
		}
		// A task that resumes itself, or a cycle of resumes, is no
		// lineage: which task continues which cannot be told (SPEC §3).
		if t.Resumes == t.ID {
			t.incomplete("resumes itself")
		} else if onCycle[t] {
			t.incomplete("its resumes links form a cycle")
		}
		if t.Relation != "resumed" {
			continue
		}
		r := f.Tasks[t.Resumes]
		if !r.History {
			// A task that continues a history we cannot see may be
			// continuing a send: nothing it does can be ruled safe.
			t.incomplete(fmt.Sprintf("resumes task %s, which has no history", r.ID))
		}
		if r.SupersededBy == "" || f.Tasks[r.SupersededBy].startSeq > t.startSeq {
			r.SupersededBy = t.ID
		}
	}
}

// addProblems gives each problem the analyzer found to its input.
func (f *Facts) addProblems(ps []transcripts.Problem) {
	for _, p := range ps {
		for i := range f.Inputs {
			if f.Inputs[i].Path == p.File {
				f.Inputs[i].Problems = append(f.Inputs[i].Problems, p)
				break
			}
		}
	}
}

// unrecordedAuthorizations moves every intent that names an authorization
// with no record for its key into the original scope (SPEC §4): a made-up
// authorization id must not open a scope whose crossings hide from the
// original one. The intent keeps the name, for UNKNOWN_AUTHORIZATION.
func (f *Facts) unrecordedAuthorizations() {
	byID := map[string][]Authorization{} // not a scan of every record per intent (issue 15)
	for _, a := range f.Authorizations {
		byID[a.ID] = append(byID[a.ID], a)
	}
	for _, t := range f.Tasks {
		for i := range t.Intents {
			in := &t.Intents[i]
			if in.Authorization != "" && in.Key != "" && !f.authorizedBy(byID[in.Authorization], in.Authorization, in.Key) {
				in.Scope, in.ScopeID = ScopeOriginal, in.Key+"#"+ScopeOriginal
			}
		}
	}
}

// Authorized reports whether an authorization record with this id names
// this key. Only the record's own key is authorized (SPEC §4: an intent
// that names an authorization with no record for its key counts in the
// original scope of its key). A record for another spelling of the
// destination (one that only may be the same) once opened the scope for
// the intent too; a review found that hid a duplicate of the original
// scope from analyze. The gate still weighs such an intent's original
// scope for a check in the authorization's scope (rules.rego's
// weighed_scope), so the one more delivery cannot be made twice by
// spelling the channel two ways.
func (f *Facts) Authorized(id, key string) bool {
	return f.authorizedBy(f.Authorizations, id, key)
}

// authorizedBy is Authorized over the records as.
func (f *Facts) authorizedBy(as []Authorization, id, key string) bool {
	for _, a := range as {
		if a.ID == id && a.Key == key {
			return true
		}
	}
	return false
}

// markProblems makes every task an unreadable line may belong to incomplete.
// Problems beyond the listing limit are counted, not listed: they may have
// been any task's, so they count as one problem of no task.
func (f *Facts) markProblems() {
	var byFile map[string][]*Task
	for _, in := range f.Inputs {
		if in.ProblemsOmitted > 0 {
			in.Problems = append(in.Problems[:len(in.Problems):len(in.Problems)],
				transcripts.Problem{File: in.Path, Line: in.OmittedFrom, Message: "problems not listed"})
		}
		for _, p := range in.Problems {
			ptr := Pointer{p.File, p.Line}
			if p.Task != "" {
				t := f.task(p.Task)
				if !t.History {
					t.History = true // its lines exist, they just cannot be read
					t.Relation = "unknown"
				}
				t.incomplete("unreadable lines")
				t.Problems = append(t.Problems, ptr)
				continue
			}
			f.UnattributedProblems = append(f.UnattributedProblems, ptr)
			if byFile == nil { // the tasks of each file, once (not every task per problem)
				byFile = map[string][]*Task{}
				for _, t := range f.Tasks {
					for file := range t.files {
						byFile[file] = append(byFile[file], t)
					}
				}
			}
			for _, t := range byFile[p.File] {
				t.incomplete("an unreadable part of " + p.File + " may be any task's")
				t.Problems = append(t.Problems, ptr)
			}
		}
	}
}

func (f *Facts) sortedTaskIDs() []string {
	ids := make([]string, 0, len(f.Tasks))
	for id := range f.Tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// rankTasks orders tasks by start time, ties by id (not by file order), as
// the executor election of SPEC §5 needs. Tasks without history come last.
func (f *Facts) rankTasks() {
	ids := f.sortedTaskIDs()
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := f.Tasks[ids[i]], f.Tasks[ids[j]]
		if a.History != b.History {
			return a.History
		}
		if !a.startTime.Equal(b.startTime) {
			return a.startTime.Before(b.startTime)
		}
		return a.ID < b.ID
	})
	for i, id := range ids {
		f.Tasks[id].StartRank = i
	}
}

// linkLineages sets every task's Lineage: the tasks it continues through
// `resumes` links, nearest first, up to the first task already listed or
// the task itself (a cycle is cut there). Walking each task's links with a
// set of its own cost depth² in time and memory along a chain of
// resumptions: 4,000 deep (a 1.7 MB history) took a check 13 s and
// 745 MB (issue 15). A task's lineage is its next task followed by that
// task's lineage, so lineages share their tails: walked from the deepest
// task first, a chain is one array whose suffixes are its tasks'
// lineages. The tasks of a cycle each list the others, in the cycle's
// order, from one array holding the cycle twice. Lineages share memory,
// so they must not be changed. It returns the tasks on a cycle.
func (f *Facts) linkLineages() map[*Task]bool {
	next := func(t *Task) *Task { return f.Tasks[t.Resumes] }
	// The cycles, found by walking from each task not yet seen: a walk
	// that meets its own path has found a cycle, whose tasks get their
	// lineage now.
	const unseen, walking, done = 0, 1, 2
	state := make(map[*Task]int, len(f.Tasks))
	onCycle := make(map[*Task]bool)
	var path []*Task
	for _, id := range f.sortedTaskIDs() {
		path = path[:0]
		cur := f.Tasks[id]
		for cur != nil && state[cur] == unseen {
			state[cur] = walking
			path = append(path, cur)
			cur = next(cur)
		}
		if cur != nil && state[cur] == walking {
			at := slices.Index(path, cur)
			cycle := path[at:]
			twice := make([]string, 0, 2*len(cycle))
			for range 2 {
				for _, c := range cycle {
					twice = append(twice, c.ID)
				}
			}
			for i, c := range cycle {
				onCycle[c] = true
				c.Lineage = twice[i+1 : i+len(cycle) : i+len(cycle)]
			}
		}
		for _, t := range path {
			state[t] = done
		}
	}
	// Every other task's depth: one more than its next task's (a task
	// with none has no lineage).
	depth := make(map[*Task]int, len(f.Tasks))
	var of func(t *Task) int
	of = func(t *Task) int {
		if onCycle[t] {
			return len(t.Lineage)
		}
		if d, ok := depth[t]; ok {
			return d
		}
		// Iteratively: a chain may be deeper than the stack likes.
		var up []*Task
		cur := t
		for cur != nil && !onCycle[cur] {
			if _, ok := depth[cur]; ok {
				break
			}
			up = append(up, cur)
			cur = next(cur)
		}
		for i := len(up) - 1; i >= 0; i-- {
			d := 0
			if n := next(up[i]); n != nil {
				d = 1 + of(n)
			}
			depth[up[i]] = d
		}
		return depth[t]
	}
	var rest []*Task
	for _, id := range f.sortedTaskIDs() {
		if t := f.Tasks[id]; !onCycle[t] {
			of(t)
			rest = append(rest, t)
		}
	}
	// Deepest first: a task whose lineage is not set yet walks it, and
	// every task on the walk not on a cycle takes the walk's tail. A walk
	// also keeps, for each such task, the tail that begins with it: a
	// task resuming one already walked takes that (the tasks of a broom,
	// many resuming one task deep in a chain, each walked the chain:
	// quadratic, issue 15).
	slices.SortStableFunc(rest, func(a, b *Task) int { return depth[b] - depth[a] })
	set := make(map[*Task]bool, len(rest))
	withSelf := make(map[*Task][]string, len(rest))
	for _, t := range rest {
		if set[t] {
			continue
		}
		if tail, ok := withSelf[next(t)]; ok {
			t.Lineage, set[t] = tail, true
			continue
		}
		walk := make([]string, 0, depth[t])
		var tasks []*Task
		for cur := next(t); len(walk) < depth[t]; cur = next(cur) {
			walk = append(walk, cur.ID)
			tasks = append(tasks, cur)
		}
		t.Lineage, set[t] = walk, true
		for i, a := range tasks {
			if onCycle[a] {
				continue
			}
			withSelf[a] = walk[i:len(walk):len(walk)]
			if !set[a] {
				a.Lineage, set[a] = walk[i+1:len(walk):len(walk)], true
			}
		}
	}
	return onCycle
}

// inheritedIntent is the intent a resumed task takes over: the latest its
// predecessors declared before it started. An intent a superseded task
// writes later does not move the resumer's evidence (a fourth adversarial
// review: t1's late intent for C9 took t2's send from C1's scope, and the
// consumed scope was free again).
//
// It is taken along the resumes links (t's lineage, linkLineages), each
// task judged at its own start: a resumer of a resumer continues what the
// one it resumes held then (a fourth review: t3 resumed t2, which had
// taken over t1's q1; t1's later q9 went to t3).
func (f *Facts) inheritedIntent(t *Task) *Intent {
	at := t // the task whose start is the bound
	for _, id := range t.Lineage {
		cur := f.Tasks[id]
		if in := intentBefore(cur, at); in != nil {
			return in
		}
		if !inheritsFrom(at, cur) {
			return nil
		}
		at = cur
	}
	return nil
}

// intentBefore is cur's latest intent before task at started (any, when
// at has no history). A task's intents are in the order of the events.
func intentBefore(cur, at *Task) *Intent {
	n := len(cur.Intents)
	if at.History {
		n = sort.Search(n, func(i int) bool { return cur.Intents[i].Seq >= at.startSeq })
	}
	if n == 0 {
		return nil
	}
	return &cur.Intents[n-1]
}

// inheritsFrom reports whether task at, when cur (which it resumes) holds
// no intent from before its start, takes over what cur inherited.
func inheritsFrom(at, cur *Task) bool {
	return cur.Relation == "resumed" && (!cur.History || !at.History || cur.startSeq < at.startSeq)
}

// inheritedIntents is inheritedIntent of every task, each from the task it
// resumes: off a cycle, a task's lineage is the task it resumes followed by
// that task's lineage, so what it inherits through that task is what that
// task inherits. Walking each lineage was quadratic along a chain of
// resumptions (issue 15); the tasks of a cycle still walk theirs.
func (f *Facts) inheritedIntents(onCycle map[*Task]bool) map[*Task]*Intent {
	var tasks []*Task
	for _, id := range f.sortedTaskIDs() {
		tasks = append(tasks, f.Tasks[id])
	}
	// Nearest the root first: a task's next one is done before it.
	slices.SortStableFunc(tasks, func(a, b *Task) int { return len(a.Lineage) - len(b.Lineage) })
	out := make(map[*Task]*Intent, len(tasks))
	for _, t := range tasks {
		cur := f.Tasks[t.Resumes]
		switch {
		case onCycle[t]:
			out[t] = f.inheritedIntent(t)
		case cur == nil:
		default:
			if in := intentBefore(cur, t); in != nil {
				out[t] = in
			} else if inheritsFrom(t, cur) {
				out[t] = out[cur]
			}
		}
	}
	return out
}

// inheritedAtATie: a resumed task that started at the very instant the
// task it resumes declared an intent took over that intent or the one
// before it, and the order at one instant is not known (a fourth
// adversarial review: which one it got depended on the task ids, and a
// check for the other destination allowed). When the two are of different
// key scopes, the resumer's history is incomplete: every check stops.
func (f *Facts) inheritedAtATie(t *Task) {
	cur := f.Tasks[t.Resumes]
	if cur == nil || !t.History {
		return
	}
	start := stampOf(t.startTime)
	var before *Intent
	var at []*Intent
	for i := range cur.Intents {
		switch c := &cur.Intents[i]; c.at.compare(start) {
		case -1:
			before = c
		case 0:
			at = append(at, c)
		}
	}
	// Each intent declared at the instant, and the one before, may be
	// the one it took over. Keyless intents are readings of their own
	// (a nineteenth review: two keyless intents have no scope, and the
	// scopes compared equal). It is a task of each one's key scope: else
	// a scope it may hold would not weigh its incomplete history (a
	// property test: which one it was given turned on the order by
	// content at the instant).
	if len(at) == 0 {
		return
	}
	last, other := at[len(at)-1], "none"
	if before != nil {
		// With any intent tied with it (a twentieth review).
		at, other = append(at, f.tiedGroup(before)...), before.ID
	}
	for _, c := range at {
		if before == nil || !oneReading(before, c) {
			t.incomplete(fmt.Sprintf("it started at the instant task %s declared intent %s, so which intent it took over (%s or %s) is not known", cur.ID, last.ID, last.ID, other))
			t.mayHold = at
			return
		}
	}
}

func (b *Builder) intent(e *transcripts.Event, seq, n int) Intent {
	in := Intent{ID: e.Str("intent"), Task: e.Task, Authorization: e.Str("authorization"),
		Seq: seq, At: Pointer{e.File, e.Line}}
	if in.ID == "" {
		in.ID = fmt.Sprintf("#%d", n+1)
	}
	in.Scope = ScopeOriginal
	if in.Authorization != "" {
		in.Scope = in.Authorization
	}
	k, err := b.eventKey(e)
	if err != nil {
		in.KeyError = err.Error()
		// Where the destination is known, an unkeyed crossing is
		// relevant only to the scopes that may share it (SPEC §4).
		if d, ok := e.Fields["destination"].(map[string]any); ok && e.Str("key") == "" {
			in.Destination.Provider, _ = d["provider"].(string)
			in.Destination.ID, _ = d["id"].(string)
			in.Destination.Title, _ = d["title"].(string)
			// In the form a key gives it, or an URL spelled otherwise
			// would not be weighed for its own key (a nineteenth review).
			in.Destination = in.Destination.Canonical()
		}
		return in
	}
	in.Key, in.Destination, in.ContentSHA256 = k.String(), k.Destination, k.SHA256
	if c, ok := e.Fields["content"].(map[string]any); ok {
		in.ContentName, _ = c["name"].(string)
	}
	if d, ok := e.Fields["destination"].(map[string]any); ok && in.Destination.Title == "" {
		in.Destination.Title, _ = d["title"].(string)
	}
	in.WeakDestination = k.Destination.Weak()
	in.ScopeID = in.Key + "#" + in.Scope
	return in
}

func (b *Builder) authorization(e *transcripts.Event, seq int) Authorization {
	a := Authorization{ID: e.Str("authorization"), By: e.Str("by"), Reason: e.Str("reason"),
		Seq: seq, At: Pointer{e.File, e.Line}}
	if k, err := b.eventKey(e); err != nil {
		a.KeyError = err.Error()
	} else {
		a.Key = k.String()
		if dm, ok := e.Fields["destination"].(map[string]any); ok && !k.Destination.Weak() {
			t, _ := dm["title"].(string)
			a.title = effect.FoldedTitle(t)
		}
	}
	return a
}

// eventKey computes the key an intent or authorization line names: a
// precomputed `key`, or `destination` + `content`. A key or digest that is
// malformed is a problem of its line (SPEC §2), never a silently unkeyed
// intent; a content file that cannot be read leaves the intent unkeyed.
func (b *Builder) eventKey(e *transcripts.Event) (Key, error) {
	k, err := b.lineKey(e)
	var m *malformedError
	if errors.As(err, &m) {
		b.problems = append(b.problems, transcripts.Problem{File: e.File, Line: e.Line, Task: e.Task,
			Message: e.Type + ": " + m.Error()})
		if m.canonical != nil {
			return *m.canonical, nil // readable all the same: keyed as meant
		}
	}
	return k, err
}

// malformedError is a key or digest written wrongly; canonical is set when
// the key could be read all the same.
type malformedError struct {
	err       error
	canonical *Key
}

func (m *malformedError) Error() string { return m.err.Error() }

func (b *Builder) lineKey(e *transcripts.Event) (Key, error) {
	dm, _ := e.Fields["destination"].(map[string]any)
	cm, _ := e.Fields["content"].(map[string]any)
	if s, present := e.Fields["key"]; present {
		str, _ := s.(string)
		k, err := effect.ParseKey(str)
		if err != nil {
			if lk, lerr := effect.ParseKeyLenient(str); lerr == nil {
				return Key{}, &malformedError{err: err, canonical: &lk}
			}
			return Key{}, &malformedError{err: err}
		}
		return k, b.agreesWithKey(e, k, dm, cm)
	}
	if dm == nil || cm == nil {
		return Key{}, fmt.Errorf("no key: needs key, or destination and content")
	}
	return b.fieldsKey(e, destinationOf(dm), cm)
}

func destinationOf(dm map[string]any) Destination {
	var d Destination
	d.Provider, _ = dm["provider"].(string)
	d.ID, _ = dm["id"].(string)
	d.Title, _ = dm["title"].(string)
	return d
}

// agreesWithKey: a line that gives a key and also a destination or a
// content must name the same key with them. Else it has two readings and
// neither is taken (a problem of the line, which stops every check): read
// by its key alone, its destination's crossings would hide (an adversarial
// review: an intent keyed slack/C2 whose destination was slack/C1 sent,
// and a check for slack/C1 allowed). A part the line leaves out is the
// key's; a content path that cannot be read leaves the line without a key.
func (b *Builder) agreesWithKey(e *transcripts.Event, k Key, dm, cm map[string]any) error {
	if dm == nil && cm == nil {
		return nil
	}
	d := k.Destination
	if dm != nil {
		// The parts the destination leaves out are the key's: {"id":"C2"}
		// with a key for slack/C1 names slack/C2, another key (a fourth
		// adversarial review: it was never compared).
		given := destinationOf(dm)
		if _, ok := dm["provider"]; ok {
			d.Provider = given.Provider
		}
		if _, ok := dm["id"]; ok {
			d.ID = given.ID
		}
		if _, ok := dm["title"]; ok {
			d.Title = given.Title
		}
	}
	if cm == nil {
		cm = map[string]any{"sha256": k.SHA256}
	}
	other, err := b.fieldsKey(e, d, cm)
	if err != nil {
		return err // a path that cannot be read cannot confirm the key
	}
	if other.String() != k.String() {
		return &malformedError{err: fmt.Errorf("key %s and the line's destination and content (%s) name different keys", k, other)}
	}
	return nil
}

// fieldsKey is the key of a destination and a content object.
func (b *Builder) fieldsKey(e *transcripts.Event, d Destination, cm map[string]any) (Key, error) {
	shaField, hasSHA := cm["sha256"]
	p, _ := cm["path"].(string)
	if hasSHA {
		sha, _ := shaField.(string)
		if _, err := effect.NormalizeSHA256(sha); err != nil {
			return Key{}, &malformedError{err: err}
		}
		k, err := effect.NewKey(d, sha)
		if err != nil || p == "" {
			return k, err
		}
		// A path beside the digest must hold those bytes: else the line
		// has two readings (a fourth adversarial review: the sha256 won
		// silently). A path that cannot be read cannot confirm it, and
		// leaves the intent without a key (SPEC §2), which fails closed.
		sum, err := b.hashPath(e, p)
		if err != nil {
			return Key{}, fmt.Errorf("content path: %v (the sha256 beside it cannot be confirmed)", err)
		}
		if sum != k.SHA256 {
			return Key{}, &malformedError{err: fmt.Errorf("content sha256 %s and the bytes of path %s (sha256 %s) differ", k.SHA256, p, sum)}
		}
		return k, nil
	}
	if p == "" {
		return Key{}, fmt.Errorf("content needs sha256 or path")
	}
	sum, err := b.hashPath(e, p)
	if err != nil {
		return Key{}, fmt.Errorf("content path: %v", err)
	}
	return effect.NewKey(d, sum)
}

// hashPath is the SHA-256 of the file a line's content path names
// (relative to the line's file, through the path maps), hashed once a run.
func (b *Builder) hashPath(e *transcripts.Event, p string) (string, error) {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) && e.File != "-" {
		p = filepath.Join(filepath.Dir(filepath.FromSlash(e.File)), p)
	}
	p = b.mapPath(filepath.Clean(p))
	h, ok := b.hashes[p]
	if !ok {
		h.sum, h.err = effect.HashRegularFile(p)
		b.hashes[p] = h
	}
	return h.sum, h.err
}

// attribute ties one fact to an intent's key scope (SPEC §3: the named
// intent, else the task's latest intent, else the inherited one). It
// returns nil for a fact tied to no key.
func (f *Facts) attribute(fact *Fact, at stamp, scopes map[string]*Scope) *Scope {
	t := f.Tasks[fact.Task]
	fact.SegmentEnded = fact.Segment < t.Segment || t.Ended || t.SupersededBy != ""
	named := fact.Intent
	in, why := f.intentFor(t, named, fact.Seq)
	if in != nil && mayHaveCrossed(fact) {
		f.otherReadings(t, in, named, fact, at)
	}
	if fact.Type == "picker_dismissed" {
		if why := f.otherRetreatReading(t, in, named, at); why != "" {
			// A retreat that may be another intent's resolves no
			// approach, in no scope. Not a key scope's fact, it is
			// among the unkeyed, marked so that the rules resolve
			// nothing with it.
			fact.rare().UnkeyedBecause = why
			fact.rare().Ambiguous = true
			return nil
		}
	}
	if in == nil || in.KeyError != "" {
		if in != nil {
			// The intent it is given, as a keyed fact carries it, and
			// the task that declared it: the rules resolve an unkeyed
			// approach only by evidence of the same intent (a retreat of
			// another keyless intent, or a reading of another, resolves
			// nothing: stop 25's CI; a seventeenth review: a resumed
			// task's own intent of its predecessor's id).
			fact.Intent = in.ID
			fact.rare().IntentTask = in.Task
			why = "intent " + in.ID + " has no key: " + in.KeyError
			if d := in.Destination; d != (Destination{}) {
				fact.rare().UnkeyedDestination = &d
			}
		}
		fact.rare().UnkeyedBecause = why
		t.KeyUnknown = true
		return nil
	}
	fact.Intent = in.ID
	return scopes[in.ScopeID]
}

// crossingType: the evidence types of SPEC §2's crossing class, those the
// ranks order as crossings (rules.rego's crossing_types:
// TestCrossingType_AsTheRules).
func crossingType(typ string) bool { return factRank(typ) == rankCrossing }

// mayHaveCrossed: a crossing, or an approach (SPEC §2), which an unkeyed
// fact must be to matter.
func mayHaveCrossed(fact *Fact) bool {
	switch {
	case crossingType(fact.Type), fact.Type == "picker_opened":
		return true
	case fact.Type == "gate_check":
		return fact.Decision() == "allow" && (fact.Checkpoint() == "picker" || fact.Checkpoint() == "send")
	}
	return false
}

// oneReading reports whether evidence given intent a or intent b is in one
// key scope. A keyless intent is a reading of its own: its content, so its
// key, is not known.
func oneReading(a, b *Intent) bool {
	return a.Seq == b.Seq && a.Task == b.Task || a.KeyError == "" && b.KeyError == "" && a.ScopeID == b.ScopeID
}

// maxReadings is the number of other readings of one fact copied one by
// one; past it the fact is copied once, with no destination known.
const maxReadings = 8

// otherRetreatReading says why a retreat given intent in may be another
// intent's ("" when it may not):
//   - unnamed, it is given the latest intent, and when two of other
//     readings share that instant either may be the latest (a nineteenth
//     review: a picker opened naming one of two tied intents, dismissed
//     unnamed, and a check of its channel allowed);
//   - named, the tasks it continues may have declared another intent of
//     that id by then (a twenty-first review: a predecessor's late q1 for
//     another channel, and the dismissal named q1 resolved the picker of
//     the q1 in force).
func (f *Facts) otherRetreatReading(t *Task, in *Intent, named string, at stamp) string {
	if in == nil {
		// Named, it is given no intent, as an approach naming the id
		// is; the tasks it continues may have declared intents of that
		// id since its task started, and it may be theirs (a
		// twenty-second review).
		if c := f.lineageNamed(t, named, at); len(c) > 0 {
			return fmt.Sprintf("it names %s, which task %s did not take over, and task %s, which it continues, declared an intent of that id, so it may be that one's", named, t.ID, c[0].Task)
		}
		return ""
	}
	if named == "" {
		if o := f.tiedWith(in); o != nil {
			return fmt.Sprintf("task %s's intents %s and %s are ordered by one instant (%s), so it may be either's", in.Task, in.ID, o.ID, formatTS(in.at.time()))
		}
		return ""
	}
	for _, c := range f.lineageNamed(t, named, at) {
		if !oneReading(c, in) {
			return fmt.Sprintf("it names %s, and task %s, which task %s continues, declared an intent of that id (%s), so it may be that one's", named, c.Task, t.ID, c.Key+c.KeyError)
		}
	}
	return ""
}

// lineageNamed lists the intents of id named (none for "") that the tasks
// t continues declared at or before instant at.
// It looks among the intents of that id, not along the lineage: walked
// for each fact, a chain of resumptions whose evidence names an id made it
// quadratic (issue 15).
func (f *Facts) lineageNamed(t *Task, named string, at stamp) []*Intent {
	if named == "" {
		return nil
	}
	if f.byID == nil {
		f.byID = map[string][]*Intent{}
		for _, id := range f.sortedTaskIDs() {
			task := f.Tasks[id]
			for i := range task.Intents {
				in := &task.Intents[i]
				f.byID[in.ID] = append(f.byID[in.ID], in)
			}
		}
	}
	var out []*Intent
	for _, c := range f.byID[named] {
		if x := f.Tasks[c.Task]; x != t && c.at.compare(at) <= 0 && f.continues(t, x) {
			out = append(out, c)
		}
	}
	return out
}

// continues reports whether x is in t's lineage. Off a cycle a lineage is
// the task it resumes followed by that task's lineage (linkLineages), so
// x is at one place of it or nowhere.
func (f *Facts) continues(t, x *Task) bool {
	if f.onCycle[t] || f.onCycle[x] {
		return slices.Contains(t.Lineage, x.ID)
	}
	n := len(t.Lineage) - len(x.Lineage) - 1
	return n >= 0 && t.Lineage[n] == x.ID
}

// tiedGroup is in and every intent its task declared at in's instant
// (none for nil).
func (f *Facts) tiedGroup(in *Intent) []*Intent {
	if in == nil {
		return nil
	}
	if !in.tied {
		return []*Intent{in}
	}
	var out []*Intent
	owner := f.Tasks[in.Task]
	if x := f.indexOf(owner); x != nil && x.byTime {
		// In order of time, the intents at in's instant are in's run
		// (a scan of them all, for every crossing, was quadratic in a
		// task of many intents at one instant).
		if i, ok := x.pos[in]; ok {
			for j := x.runStart[i]; j < x.runEnd[i]; j++ {
				out = append(out, &owner.Intents[j])
			}
			return out
		}
	}
	for i := range owner.Intents {
		if c := &owner.Intents[i]; c.at == in.at {
			out = append(out, c)
		}
	}
	return out
}

// lastBefore is the last of t's intents (in their order) declared before
// at; nil when none.
func (f *Facts) lastBefore(t *Task, at stamp) *Intent {
	if x := f.indexOf(t); x != nil && x.byTime {
		// In order of time, those before the instant are a prefix (a
		// scan for every crossing was quadratic in a task's intents).
		if k := sort.Search(len(t.Intents), func(k int) bool { return t.Intents[k].at.compare(at) >= 0 }); k > 0 {
			return &t.Intents[k-1]
		}
		return nil
	}
	var before *Intent
	for i := range t.Intents {
		if c := &t.Intents[i]; c.at.compare(at) < 0 {
			before = c
		}
	}
	return before
}

// namedAt lists t's intents of id named declared at at, in their order.
func (f *Facts) namedAt(t *Task, named string, at stamp) []*Intent {
	var out []*Intent
	if x := f.indexOf(t); x != nil {
		for _, i := range x.byName[named] {
			if c := &t.Intents[i]; c.at == at {
				out = append(out, c)
			}
		}
		return out
	}
	for i := range t.Intents {
		if c := &t.Intents[i]; c.ID == named && c.at == at {
			out = append(out, c)
		}
	}
	return out
}

// tiedWith returns an intent declared by in's task at in's instant that is
// another reading than in (nil when none, or when in is nil).
func (f *Facts) tiedWith(in *Intent) *Intent {
	for _, c := range f.tiedGroup(in) {
		if !oneReading(c, in) {
			return c
		}
	}
	return nil
}

// otherReadings: evidence that may have crossed is given one intent, and
// some orders of the history give it another. SPEC §3 reads ties the
// fail-closed way, and §4 makes a crossing of a task that had declared no
// intent unkeyed; so for each other reading the fact is copied among the
// unkeyed facts (UNKEYED_CROSSING says why) with that reading's
// destination, and a check of a scope it may share stops on it. Four
// adversarial reviews found each of these allowing:
//   - made before the task declared the intent it is given (its first,
//     declared later; a named id declared only later; an approach nothing
//     in no key scope resolves, resolvedBefore): no intent was in force,
//     no destination known;
//   - sharing its instant with that intent: the intent in force before
//     the instant (none, for a task with no earlier intent), every other
//     intent declared at it, and, for a named id, a predecessor's intent
//     of that name;
//   - given an intent tied with others at one instant: those others.
//
// A reading of the same key scope changes nothing and is left out.
func (f *Facts) otherReadings(t *Task, in *Intent, named string, fact *Fact, at stamp) {
	type reading struct {
		in  *Intent
		why string
	}
	var others []reading
	sharing := func(o *Intent) reading {
		return reading{o, fmt.Sprintf("it shares its instant (%s) with task %s's intent %s, so it may be intent %s's", fact.TS, t.ID, in.ID, o.ID)}
	}
	none := in.Seq > fact.Seq && (crossingType(fact.Type) || !f.resolvedBefore(t, fact, in))
	if in.at == at {
		before := f.lastBefore(t, at)
		if before == nil && t.InheritedIntent != nil && t.InheritedIntent != in {
			before = t.InheritedIntent
		}
		// The intent in force before the instant, and any declared
		// with it at its own instant (a twentieth review: of two tied
		// intents before, one was read).
		for _, b := range f.tiedGroup(before) {
			if named == "" || b.ID == named {
				others = append(others, sharing(b))
			}
		}
		if before == nil && named == "" && (crossingType(fact.Type) || !f.resolvedBefore(t, fact, in)) {
			none = true
		}
		if named != "" {
			for _, c := range f.namedAt(t, named, at) {
				others = append(others, sharing(c))
			}
		}
	}
	// Evidence naming an id may mean any intent of that id its lineage
	// declared by then: which one its task took over turns on instants
	// and ties (a twentieth review: a predecessor declared the id at the
	// instant its resumer started, and the send went to one of the two).
	for _, c := range f.lineageNamed(t, named, at) {
		others = append(others, reading{c, fmt.Sprintf("it names %s, and task %s, which task %s continues, declared an intent of that id", named, c.Task, t.ID)})
	}
	// The intents tied with in are its declaring task's: a resumed task's
	// inherited intent may be one of two its predecessor declared at one
	// instant (a nineteenth review: the other reading was lost).
	for _, c := range f.tiedGroup(in) {
		if named == "" || c.ID == named { // in itself is left out below
			others = append(others, reading{c, fmt.Sprintf("task %s's intents %s and %s are ordered by one instant (%s), so it may be intent %s's", in.Task, c.ID, in.ID, formatTS(in.at.time()), c.ID)})
		}
	}
	// A copy carries the intent of its reading ("" for none), so that the
	// rules resolve it only by evidence of that same reading.
	copyAs := func(o *Intent, why string) {
		c := *fact
		rare := fact.Rare()
		rare.UnkeyedDestination, rare.UnkeyedBecause, c.Intent, rare.IntentTask = nil, why, "", ""
		if o != nil {
			d := o.Destination
			rare.UnkeyedDestination, c.Intent, rare.IntentTask = &d, o.ID, o.Task
		}
		c.FactRare = &rare
		f.ambiguous = append(f.ambiguous, c)
	}
	if none {
		copyAs(nil, fmt.Sprintf("task %s had declared no intent yet (%s, which it is given, comes later or at the same instant)", t.ID, in.ID))
	}
	// One copy a reading: an inherited intent is a copy of its
	// predecessor's, so intents are told apart by task and place.
	type intentAt struct {
		task string
		seq  int
	}
	seen := map[intentAt]bool{}
	var distinct []reading
	for _, r := range others {
		o := r.in
		if seen[intentAt{o.Task, o.Seq}] || oneReading(o, in) {
			continue
		}
		seen[intentAt{o.Task, o.Seq}] = true
		distinct = append(distinct, r)
	}
	if len(distinct) > maxReadings {
		// One copy that may be any destination's, not one a reading:
		// evidence naming an id that N tasks of a chain declared would
		// make N² copies.
		// It names no intent, yet is not the no-intent reading: it is
		// marked ambiguous, so that nothing resolves it (a
		// twenty-third review: an unnamed retreat of no intent did).
		copyAs(nil, fmt.Sprintf("%s; and %d other intents", distinct[0].why, len(distinct)-1))
		f.ambiguous[len(f.ambiguous)-1].rare().Ambiguous = true
		return
	}
	for _, r := range distinct {
		copyAs(r.in, r.why)
	}
}

// resolution is a crossing or retreat, by its place in the order, its
// instant and the intent it names.
type resolution struct {
	seq    int
	at     stamp
	intent string
}

// resolvedBefore reports whether an approach read with no intent in force
// (made before, or at the instant of, the intent it is given: in) is
// resolved within that reading: by a crossing or retreat of its task and
// segment after it that is in no key scope either. That is one at an
// instant before any intent of the task and the intent given, when the
// task inherits none, and naming no intent or the approach's own. Any
// other is an intent's, in its own key scope, and an approach is resolved
// only in its own scope (docs/decisions.md). A fifteenth review: a
// worker's allowing send check before any intent, then a picker opened
// and dismissed for its later intent's channel, allowed a check of
// another channel; a sixteenth: the same through a retreat of an intent
// in force while the approach named one declared later, and an approach
// at its task's first intent's instant.
func (f *Facts) resolvedBefore(t *Task, fact *Fact, in *Intent) bool {
	if t.InheritedIntent != nil {
		return false
	}
	bound := in.at
	if len(t.Intents) > 0 && t.Intents[0].at.compare(bound) < 0 {
		bound = t.Intents[0].at
	}
	rs := f.resolving[taskSegment{fact.Task, fact.Segment}]
	i, _ := slices.BinarySearchFunc(rs, fact.Seq, func(r resolution, seq int) int { return cmp.Compare(r.seq, seq) })
	for ; i < len(rs) && rs[i].seq < in.Seq; i++ {
		r := rs[i]
		if r.seq > fact.Seq && r.at.compare(bound) < 0 && (r.intent == "" || r.intent == fact.Intent) {
			return true
		}
	}
	return false
}

// inheritedNamed is the intent of that id task t took over: along its
// lineage, the latest of that id a task declared before the task resuming
// it started, as inheritedIntent bounds an unnamed one. An intent a task
// declared after its resumer started moves none of the resumer's evidence
// (a nineteenth review: t2's send named q, went to t1's late q, and t0's q,
// the one in force, was free again).
//
// Off a cycle, what t takes over through the task it resumes is what that
// task takes over, so the answer is kept per task and id: walking the
// lineage for each fact naming an id was quadratic along a chain whose
// evidence names its root's id (issue 15: 9.0 s at 8,000 deep). The tasks
// of a cycle walk theirs (inheritedNamedWalk), as inheritedIntents does.
func (f *Facts) inheritedNamed(t *Task, named string) *Intent {
	var pending []*Task // each takes the answer of the next task up
	var answer *Intent
	for at := t; ; {
		if in, ok := f.namedTakenOver[taskNamed{at, named}]; ok {
			answer = in
			break
		}
		if f.onCycle[at] {
			answer = f.inheritedNamedWalk(at, named)
			pending = append(pending, at)
			break
		}
		pending = append(pending, at)
		cur := f.Tasks[at.Resumes]
		if cur == nil {
			break
		}
		if last := lastNamedBefore(cur, at, named); last != nil {
			answer = last
			break
		}
		if !inheritsFrom(at, cur) {
			break
		}
		at = cur
	}
	if f.namedTakenOver == nil {
		f.namedTakenOver = map[taskNamed]*Intent{}
	}
	for _, p := range pending {
		f.namedTakenOver[taskNamed{p, named}] = answer
	}
	return answer
}

// taskNamed is a task and an intent id it may have taken over.
type taskNamed struct {
	task  *Task
	named string
}

// lastNamedBefore is the latest intent of that id cur declared before at,
// the task resuming it, started (any, when either is not a native task).
func lastNamedBefore(cur, at *Task, named string) *Intent {
	var last *Intent
	for i := range cur.Intents {
		if c := &cur.Intents[i]; c.ID == named && (!at.History || c.Seq < at.startSeq) {
			last = c
		}
	}
	return last
}

// inheritedNamedWalk is inheritedNamed by walking t's lineage: what a task
// on a cycle takes over is not its predecessor's answer (that one's walk
// comes back round to it).
func (f *Facts) inheritedNamedWalk(t *Task, named string) *Intent {
	at := t
	for cur, seen := f.Tasks[t.Resumes], map[string]bool{t.ID: true}; cur != nil && !seen[cur.ID]; cur = f.Tasks[cur.Resumes] {
		seen[cur.ID] = true
		if last := lastNamedBefore(cur, at, named); last != nil {
			return last
		}
		if !inheritsFrom(at, cur) {
			return nil
		}
		at = cur
	}
	return nil
}

// taskSegment names one segment of one task.
type taskSegment struct {
	task    string
	segment int
}

func (f *Facts) intentFor(t *Task, named string, seq int) (*Intent, string) {
	if named != "" {
		// The intent of that name in force then: the task's own declared
		// before, else a predecessor's, else its own declared later (a
		// fourth review: a resumer's send named q, the inherited q, and
		// went to the other q the resumer declared afterwards).
		var own, later *Intent
		if x := f.indexOf(t); x != nil {
			// The intents of that name, in order of Seq: own is the
			// last before seq, later the first at or after it.
			ids := x.byName[named]
			j := sort.Search(len(ids), func(k int) bool { return t.Intents[ids[k]].Seq >= seq })
			if j > 0 {
				own = &t.Intents[ids[j-1]]
			}
			if j < len(ids) {
				later = &t.Intents[ids[j]]
			}
		} else {
			for i := range t.Intents {
				if in := &t.Intents[i]; in.ID == named {
					if in.Seq < seq {
						own = in
					} else if later == nil {
						later = in
					}
				}
			}
		}
		if own != nil {
			return own, ""
		}
		if in := f.inheritedNamed(t, named); in != nil {
			return in, ""
		}
		if later != nil {
			return later, ""
		}
		return nil, fmt.Sprintf("names intent %q, which task %s does not declare", named, t.ID)
	}
	var latest *Intent
	if x := f.indexOf(t); x != nil {
		// The latest before seq is the one before the first at or
		// after it.
		if i := firstAtOrAfter(t, seq); i > 0 {
			latest = &t.Intents[i-1]
		}
	} else {
		for i := range t.Intents {
			if t.Intents[i].Seq < seq {
				latest = &t.Intents[i]
			}
		}
	}
	if latest != nil {
		return latest, ""
	}
	if t.InheritedIntent != nil {
		// A resumed task's evidence before its own first intent is the
		// inherited intent's: that one was in force (a fourth review: a
		// resumer's send went to the intent it declared seven seconds
		// later, and the inherited scope was free again).
		return t.InheritedIntent, ""
	}
	if len(t.Intents) > 0 {
		// Evidence before the task declared its intent (a gate check
		// first, say) belongs to the intent it declares next.
		return &t.Intents[0], ""
	}
	return nil, "task " + t.ID + " declares no intent"
}

// intentIndex finds a task's intent in force at a fact without a scan of
// the task's intents: intentFor scanned them for every fact of the task,
// facts × intents (a task of 32,000 intents, each with its crossing: a
// check took 1.9 s, 55 % of it here; the 46th review found it).
type intentIndex struct {
	byName map[string][]int // intent id → indexes into Intents, in order
	// When the intents are also in order of time (they are declared in
	// time order, so always, but it is checked): where each is, and the
	// run of intents at its instant (tiedGroup), [runStart, runEnd).
	byTime           bool
	pos              map[*Intent]int
	runStart, runEnd []int
}

// indexOf is t's index while facts are attributed; nil outside
// attribution, for a task of few intents, or when t's intents are not in
// order of Seq (then intentFor scans, as before). In order, the intents
// before a Seq are a prefix, of all and of each id's.
func (f *Facts) indexOf(t *Task) *intentIndex {
	if f.intentIdx == nil || len(t.Intents) < 8 {
		return nil
	}
	if x, ok := f.intentIdx[t]; ok {
		return x
	}
	var x *intentIndex
	if slices.IsSortedFunc(t.Intents, func(a, b Intent) int { return cmp.Compare(a.Seq, b.Seq) }) {
		x = &intentIndex{byName: map[string][]int{}}
		for i := range t.Intents {
			x.byName[t.Intents[i].ID] = append(x.byName[t.Intents[i].ID], i)
		}
		x.byTime = slices.IsSortedFunc(t.Intents, func(a, b Intent) int { return a.at.compare(b.at) })
		if x.byTime {
			n := len(t.Intents)
			x.pos = make(map[*Intent]int, n)
			x.runStart, x.runEnd = make([]int, n), make([]int, n)
			for i := range t.Intents {
				x.pos[&t.Intents[i]] = i
				x.runStart[i] = i
				if i > 0 && t.Intents[i-1].at == t.Intents[i].at {
					x.runStart[i] = x.runStart[i-1]
				}
			}
			for i := n - 1; i >= 0; i-- {
				x.runEnd[i] = i + 1
				if i < n-1 && t.Intents[i+1].at == t.Intents[i].at {
					x.runEnd[i] = x.runEnd[i+1]
				}
			}
		}
	}
	f.intentIdx[t] = x
	return x
}

// firstAtOrAfter is the index of t's first intent with Seq ≥ seq
// (len(t.Intents) when none).
func firstAtOrAfter(t *Task, seq int) int {
	return sort.Search(len(t.Intents), func(k int) bool { return t.Intents[k].Seq >= seq })
}

// openScopes creates a scope for every keyed intent (own or inherited),
// lists matching tasks by start, and lists scopes by id. Facts are added
// to them afterwards, in time order.
func (f *Facts) openScopes() map[string]*Scope {
	scopes := map[string]*Scope{}
	for _, id := range f.sortedTaskIDs() {
		t := f.Tasks[id]
		intents := t.Intents
		if t.InheritedIntent != nil {
			intents = append(intents[:len(intents):len(intents)], *t.InheritedIntent)
		}
		for _, in := range t.mayHold {
			intents = append(intents[:len(intents):len(intents)], *in)
		}
		keys := map[string]bool{}
		for _, in := range intents {
			if in.KeyError != "" {
				t.KeyUnknown = true
				continue
			}
			if !keys[in.Key] {
				keys[in.Key] = true
				t.Keys = append(t.Keys, in.Key)
			}
			s := scopes[in.ScopeID]
			if s == nil {
				s = &Scope{ID: in.ScopeID, Key: in.Key, Scope: in.Scope, Destination: in.Destination,
					ContentSHA256: in.ContentSHA256}
				scopes[in.ScopeID] = s
			}
			if len(s.Tasks) == 0 || s.Tasks[len(s.Tasks)-1] != id {
				s.Tasks = append(s.Tasks, id)
			}
		}
		sort.Strings(t.Keys)
	}
	for _, s := range scopes {
		sort.Slice(s.Tasks, func(i, j int) bool { return f.Tasks[s.Tasks[i]].StartRank < f.Tasks[s.Tasks[j]].StartRank })
		s.Facts = []Fact{}
		f.Scopes = append(f.Scopes, s)
	}
	sort.Slice(f.Scopes, func(i, j int) bool { return f.Scopes[i].ID < f.Scopes[j].ID })
	return scopes
}

// collectTitles indexes the titles intents and authorization records give
// provider identities.
func (f *Facts) collectTitles() {
	use := func(title, identity string, at Pointer) {
		for _, u := range f.Titles[title] {
			if u.Identity == identity {
				return
			}
		}
		f.Titles[title] = append(f.Titles[title], TitleUse{Identity: identity, At: at})
	}
	for _, id := range f.sortedTaskIDs() {
		for _, in := range f.Tasks[id].Intents {
			if in.Destination.Title == "" || in.Destination.Weak() {
				continue
			}
			use(effect.FoldedTitle(in.Destination.Title), in.Destination.Identity(), in.At)
		}
	}
	for _, a := range f.Authorizations {
		if d, ok := a.titled(); ok {
			use(a.title, d.Identity(), a.At)
		}
	}
	for _, uses := range f.Titles {
		sort.Slice(uses, func(i, j int) bool { return uses[i].Identity < uses[j].Identity })
	}
}
