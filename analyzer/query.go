package analyzer

import (
	"fmt"
	"slices"
	"sort"

	"github.com/effectlint/effectlint/effect"
)

// IntentSpec is an intent named on the command line, for a task that has
// no history yet (or wants to act on another key than its last intent).
type IntentSpec struct {
	Key           string
	Destination   Destination
	File          string // content to hash
	SHA256        string
	Authorization string
}

// Empty reports whether nothing was given.
func (s IntentSpec) Empty() bool {
	return s.Key == "" && s.Destination == (Destination{}) && s.File == "" && s.SHA256 == ""
}

// Compute returns the key the spec names.
func (s IntentSpec) Compute() (Key, error) {
	if s.Key != "" {
		if s.Destination != (Destination{}) || s.File != "" || s.SHA256 != "" {
			return Key{}, fmt.Errorf("an intent names either a key or a destination with content, not both")
		}
		return effect.ParseKey(s.Key)
	}
	if s.Destination == (Destination{}) {
		return Key{}, fmt.Errorf("the intent names no destination (a provider and id, or a title)")
	}
	sha := s.SHA256
	switch {
	case s.File != "" && s.SHA256 != "":
		return Key{}, fmt.Errorf("an intent names its content either by a file or by a sha256, not both")
	case s.File != "":
		h, err := effect.HashFile(s.File)
		if err != nil {
			return Key{}, fmt.Errorf("content: %v", err)
		}
		sha = h
	case sha == "":
		return Key{}, fmt.Errorf("the intent names no content (a file to hash, or a sha256)")
	}
	return effect.NewKey(s.Destination, sha)
}

// Ask builds the query of `check`: may task proceed at checkpoint? The
// intent is spec when given, else the task's latest (or inherited) intent.
func (f *Facts) Ask(task, checkpoint string, spec IntentSpec) *Query {
	return f.AskAll(task, checkpoint, spec)[0]
}

// AskAll builds every query a check must answer: one, except at resume
// without an intent given, where every intent the task holds or inherits
// is judged (SPEC §5), latest first; the check allows only when all do.
func (f *Facts) AskAll(task, checkpoint string, spec IntentSpec) []*Query {
	t := f.Tasks[task]
	base := Query{Task: task, Checkpoint: checkpoint, TaskKnown: t != nil && t.History}
	if !spec.Empty() {
		q := base
		q.IntentGiven = true
		k, err := spec.Compute()
		if err != nil {
			q.KeyError = err.Error()
			return []*Query{&q}
		}
		f.scoped(&q, k, spec.Authorization)
		q.Titles, q.Identities = f.titlesOf(q.Destination), f.identitiesOf(q.Destination)
		return []*Query{&q}
	}
	var intents []Intent
	if t != nil {
		var latest *Intent
		if n := len(t.Intents); n > 0 {
			latest = &t.Intents[n-1]
		} else if t.InheritedIntent != nil {
			latest = t.InheritedIntent
			for _, in := range t.mayHold {
				intents = append(intents, *in)
			}
		}
		// Of intents declared at one instant any may be the latest (a
		// twentieth review: a send check judged one of two).
		if latest != nil {
			intents = append([]Intent{*latest}, intents...)
			for _, in := range f.tiedGroup(latest) {
				intents = append(intents, *in)
			}
		}
	}
	if len(intents) == 0 {
		q := base
		q.KeyError = "the task declares no intent and none was given"
		return []*Query{&q}
	}
	if checkpoint == "resume" {
		// Every other intent of the task, then of the tasks it
		// continues, latest first.
		for i := len(t.Intents) - 2; i >= 0; i-- {
			intents = append(intents, t.Intents[i])
		}
		for _, id := range t.Lineage {
			if r := f.Tasks[id]; r != nil {
				for i := len(r.Intents) - 1; i >= 0; i-- {
					intents = append(intents, r.Intents[i])
				}
			}
		}
	}
	var out []*Query
	seen := map[string]bool{}
	for _, in := range intents {
		q := base
		q.Intent = in.ID
		if in.KeyError != "" {
			q.KeyError = in.KeyError
		} else {
			k, err := effect.ParseKey(in.Key)
			if err != nil {
				q.KeyError = err.Error()
			} else {
				f.scoped(&q, k, in.Authorization)
				q.Destination = in.Destination // with its title, if any
				q.Titles, q.Identities = f.titlesOf(q.Destination), f.identitiesOf(q.Destination)
			}
		}
		id := q.ScopeID + "\x00" + q.KeyError
		if !seen[id] {
			seen[id] = true
			out = append(out, &q)
		}
	}
	return out
}

// scoped sets the query's key and scope: the authorization's scope when
// a record authorizes the key, else the original scope (SPEC §4: an
// authorization with no record never opens a scope of its own).
func (f *Facts) scoped(q *Query, k Key, authorization string) {
	q.Key, q.Authorization = k.String(), authorization
	q.Destination, q.ContentSHA256 = k.Destination, k.SHA256
	q.Scope = ScopeOriginal
	if authorization != "" && f.Authorized(authorization, q.Key) {
		q.Scope = authorization
	}
	q.ScopeID = q.Key + "#" + q.Scope
}

// titlesOf lists the canonical titles of d and those the history gives
// its provider identity (but for letter case). For d known by its title
// alone, the titles the history gives any identity that carries d's title
// too: two titles one channel carries may name the same channel (a fourth
// adversarial review: tasks for "alpha" and for "beta", slack/C1 titled
// both, were both allowed at send).
func (f *Facts) titlesOf(d Destination) []string {
	set := map[string]bool{}
	if t := effect.FoldedTitle(d.Title); t != "" {
		set[t] = true
	}
	if !d.Weak() {
		for _, id := range d.FoldedIdentities() {
			for _, t := range f.identityTitles()[id] {
				set[t] = true
			}
		}
	} else {
		for _, identity := range f.identitiesOf(d) {
			for _, t := range f.identityTitles()[identity] {
				set[t] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// identitiesOf lists the provider identities (folded) the history's
// intents and records give the title of d, when d is known by its title
// alone (an adversarial review: with "finance" given slack/C1 only in a
// record, a task asking for "finance" did not weigh slack/C1's scope, and
// two tasks were allowed at send).
func (f *Facts) identitiesOf(d Destination) []string {
	out := []string{}
	if !d.Weak() {
		return out
	}
	title := effect.FoldedTitle(d.Title)
	for identity, titles := range f.identityTitles() {
		if slices.Contains(titles, title) {
			out = append(out, identity)
		}
	}
	sort.Strings(out)
	return out
}

// identityTitles maps each provider identity (folded) to the titles the
// history's intents and authorization records give it, built once: an
// authorization check may ask for every intent. A record's title counts
// as an intent's does (an adversarial review: with "finance" written only
// in A1's record for slack/C1, a redelivery under A1 to "finance" went
// unseen and A1's one more delivery was allowed twice).
func (f *Facts) identityTitles() map[string][]string {
	if f.titlesByIdentity == nil {
		f.titlesByIdentity = map[string][]string{}
		for _, t := range f.Tasks {
			for _, in := range t.Intents {
				if in.Destination.Title != "" && !in.Destination.Weak() {
					for _, k := range in.Destination.FoldedIdentities() {
						f.titlesByIdentity[k] = append(f.titlesByIdentity[k], effect.FoldedTitle(in.Destination.Title))
					}
				}
			}
		}
		for _, a := range f.Authorizations {
			if d, ok := a.titled(); ok {
				for _, k := range d.FoldedIdentities() {
					f.titlesByIdentity[k] = append(f.titlesByIdentity[k], a.title)
				}
			}
		}
	}
	return f.titlesByIdentity
}

// titled is the destination of a record that gives its provider identity
// a title.
func (a Authorization) titled() (Destination, bool) {
	if a.title == "" || a.Key == "" {
		return Destination{}, false
	}
	k, err := effect.ParseKey(a.Key)
	if err != nil || k.Destination.Weak() {
		return Destination{}, false
	}
	return k.Destination, true
}
