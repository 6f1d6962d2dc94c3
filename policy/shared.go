package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Sharing what does not depend on the question.
//
// A resume check asks one question per intent the task holds or inherits
// (CheckEach), and each question is one evaluation of the gate over the
// same history: the same input but for `input.query` and the scopes the
// question weighs (checkDoc). OPA memoizes rules only within one
// evaluation, so a value every question needs — which unkeyed approaches
// were resolved, which tasks are incomplete — was computed again for every
// question: N questions cost N times the history (a task with 800 intents
// over 50,000 events of delegated workers ran past the 30 s limit; issue
// 15).
//
// A rule or function whose definitions read, directly or through the rules
// they use, only the input items every question shares (sharedInput) has
// one value per history (per arguments, for a function). One that reads
// the weighed scopes as well, but not the query, has one value per set of
// weighed scopes: a task whose 200 intents may all be one destination asks
// 200 questions, each weighing the same 200 scopes. historyCache keeps
// those values from one evaluation to the next. Which rules qualify is
// read from the compiled rules (questionFree), not listed by hand, so a
// rule that starts reading the query stops being shared by itself.
//
// The values are OPA's own: the same ones its per-evaluation cache would
// have held had the questions been asked in one evaluation. Rules under
// `with` (which pushes a cache frame) are never shared; rules.rego has
// none.

// sharedInput are the items of the gate's input that are the same for
// every question about one history (part.sharedItems).
var sharedInput = map[string]bool{
	"version": true, "inputs": true, "skipped": true, "tasks": true, "unkeyed": true,
	"authorizations": true, "titles": true, "unattributed_problems": true, "options": true,
}

// sharedInputAndScopes are those and the weighed scopes: the items of the
// questions that weigh the same scopes.
var sharedInputAndScopes = func() map[string]bool {
	m := map[string]bool{"scopes": true}
	for k := range sharedInput {
		m[k] = true
	}
	return m
}()

// sharing names the rules whose values questions share: free, every
// question about a history; scopeFree (free among them), the questions
// weighing the same scopes.
type sharing struct {
	free, scopeFree map[string]bool
}

// packageRef is data.effectlint, the built-in rules' package.
var packageRef = ast.MustParseRef("data." + Package)

// questionFree returns the names of the rules and functions of package
// effectlint whose value depends on nothing but the input items named in
// items,
// the arguments (for functions) and the store's data: every definition of
// the name (else branches included) reads no other input item and uses
// only rules that are question-free themselves. Anything it cannot follow
// (a ref into the package with a variable name, the input as a whole, a
// rule path of more than one part) makes a rule question-dependent.
func questionFree(c *ast.Compiler, items map[string]bool) map[string]bool {
	// The rules of the package, by name, and what each name uses.
	uses := map[string]map[string]bool{}
	reads := map[string]bool{} // reads more than the shared input, or cannot be followed
	for _, m := range c.Modules {
		if !m.Package.Path.Equal(packageRef) {
			continue
		}
		for _, r := range m.Rules {
			name, ok := packageRuleName(r)
			if !ok {
				// A multi-part rule path: never shared, nor anything using
				// the package as a whole.
				reads[""] = true
				continue
			}
			if uses[name] == nil {
				uses[name] = map[string]bool{}
			}
			ast.WalkRefs(r, func(ref ast.Ref) bool {
				switch {
				case ref.HasPrefix(ast.InputRootRef):
					if len(ref) < 2 || !inputItem(ref[1], items) {
						reads[name] = true
					}
				case ref.HasPrefix(packageRef):
					if len(ref) < 3 {
						reads[name] = true // the package as a whole
						break
					}
					s, ok := ref[2].Value.(ast.String)
					if !ok {
						reads[name] = true // a rule named by a variable
						break
					}
					uses[name][string(s)] = true
				case ref.HasPrefix(ast.DefaultRootRef) && len(ref) < 3:
					reads[name] = true // data, or a package, as a whole
				}
				return false
			})
		}
	}
	if reads[""] {
		return map[string]bool{}
	}
	// A name is question-free when it reads only shared items and every
	// name it uses is question-free; Rego forbids recursion, so a walk of
	// the uses ends.
	free := map[string]bool{}
	done := map[string]bool{}
	var visit func(string) bool
	visit = func(name string) bool {
		if done[name] {
			return free[name]
		}
		done[name] = true // a cycle (impossible in compiled Rego) reads as dependent
		ok := !reads[name]
		for u := range uses[name] {
			if _, known := uses[u]; !known {
				// Not a rule of the package (data of the store under the
				// same path would be a conflict): treat as dependent.
				ok = false
				continue
			}
			if !visit(u) {
				ok = false
			}
		}
		free[name] = ok
		return ok
	}
	for name := range uses {
		visit(name)
	}
	for name, ok := range free {
		if !ok {
			delete(free, name)
		}
	}
	return free
}

// packageRuleName is the name of a rule of the package when its path is
// data.effectlint.<name> (a rule with a ref head of more parts is not
// followed).
func packageRuleName(r *ast.Rule) (string, bool) {
	ref := r.Head.Ref()
	if len(ref) == 0 {
		return "", false
	}
	v, ok := ref[0].Value.(ast.Var)
	if !ok {
		return "", false
	}
	if len(ref) > 1 {
		// A partial set or object rule names its key in the ref (`x
		// contains ...` has a one-part ref; `x[k] := ...` two): the key is
		// not a path part when it is a variable.
		if len(ref) > 2 || ref[1].IsGround() {
			return "", false
		}
	}
	return string(v), true
}

func inputItem(t *ast.Term, items map[string]bool) bool {
	s, ok := t.Value.(ast.String)
	return ok && items[string(s)]
}

// historyCache holds the values shared while answering the questions of
// one check about one history. It is not safe for concurrent use: the
// questions of one check are evaluated one after the other.
type historyCache struct {
	sharing
	values   topdown.VirtualCache            // of the question-free rules
	byScopes map[string]topdown.VirtualCache // of the scope-free rules, by weighed scopes
}

func newHistoryCache(s sharing) *historyCache {
	return &historyCache{sharing: s, values: topdown.NewVirtualCache(), byScopes: map[string]topdown.VirtualCache{}}
}

// evaluation returns the virtual cache of one evaluation, of a question
// weighing the scopes named scopes: its own values, with the shared ones
// read from and written to h.
func (h *historyCache) evaluation(scopes string) topdown.VirtualCache {
	s := h.byScopes[scopes]
	if s == nil {
		s = topdown.NewVirtualCache()
		h.byScopes[scopes] = s
	}
	return &evalCache{own: topdown.NewVirtualCache(), h: h, scoped: s}
}

// shares reports whether a cache key is the value of a rule in names: a
// rule's (data.effectlint.<name>, or an element of it) or a function
// call's (the function's ref, then its arguments).
func shares(key ast.Ref, names map[string]bool) bool {
	if len(key) == 0 {
		return false
	}
	if fn, ok := key[0].Value.(ast.Ref); ok {
		return len(fn) == 3 && fn.HasPrefix(packageRef) && named(fn[2], names)
	}
	return len(key) >= 3 && key.HasPrefix(packageRef) && named(key[2], names)
}

func named(t *ast.Term, names map[string]bool) bool {
	s, ok := t.Value.(ast.String)
	return ok && names[string(s)]
}

// evalCache is one evaluation's topdown.VirtualCache. Under a `with`
// (depth > 0) nothing is shared: the values there are not the history's.
type evalCache struct {
	own    topdown.VirtualCache
	h      *historyCache
	scoped topdown.VirtualCache
	depth  int
}

func (c *evalCache) Push() { c.depth++; c.own.Push() }

func (c *evalCache) Pop() { c.depth--; c.own.Pop() }

// store is where a key's value is shared, nil when it is not.
func (c *evalCache) store(key ast.Ref) topdown.VirtualCache {
	switch {
	case c.depth > 0:
		return nil
	case shares(key, c.h.free):
		return c.h.values
	case shares(key, c.h.scopeFree):
		return c.scoped
	}
	return nil
}

func (c *evalCache) Get(ref ast.Ref) (*ast.Term, bool) {
	if s := c.store(ref); s != nil {
		if v, undefined := s.Get(ref); v != nil || undefined {
			return v, undefined
		}
	}
	return c.own.Get(ref)
}

func (c *evalCache) Put(ref ast.Ref, value *ast.Term) {
	c.own.Put(ref, value)
	if s := c.store(ref); s != nil {
		s.Put(ref, value)
	}
}

func (c *evalCache) Keys() []ast.Ref { return c.own.Keys() }
