package policy

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/effectlint/effectlint/analyzer"
)

// questionFree follows what each rule reads, directly and through the
// rules and functions it uses, else branches included.
func TestQuestionFree_FollowsWhatRulesRead(t *testing.T) {
	src := `package effectlint

q := input.query

free_count := count(input.tasks)

free_derived := free_count + 1

asks := q.task

scoped := [s | some s in input.scopes]

scoped_derived := count(scoped) + free_count

free_fn(x) := x + free_count

asking_fn(x) := concat(x, [asks])

whole := input

by_variable := input[k] if k := "tasks"

store_data := data.elsewhere.value

free_test if free_fn(1) > 0

asking_test if asking_fn("a") != ""

asks_in_comprehension := [x | some x in input.tasks; x == q]

asks_in_else := 1 if {
	false
} else := input.query

set_free contains t if some t in input.unkeyed

set_asking contains t if {
	some t in input.unkeyed
	t == q.task
}

object_free[k] := v if some k, v in input.tasks
`
	mod, err := ast.ParseModuleWithOpts("t.rego", src, parserOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := ast.NewCompiler().WithCapabilities(sandbox())
	if c.Compile(map[string]*ast.Module{"t.rego": mod}); c.Failed() {
		t.Fatal(c.Errors)
	}
	names := func(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
	free := []string{"free_count", "free_derived", "free_fn", "free_test", "object_free", "set_free", "store_data"}
	if got := names(questionFree(c, sharedInput)); !slices.Equal(got, free) {
		t.Errorf("free of the question and the scopes: %v, want %v", got, free)
	}
	scopeFree := slices.Sorted(slices.Values(append(free, "scoped", "scoped_derived")))
	if got := names(questionFree(c, sharedInputAndScopes)); !slices.Equal(got, scopeFree) {
		t.Errorf("free of the question: %v, want %v", got, scopeFree)
	}
}

// The built-in rules: what every question asks differs by the question;
// what concerns the history alone does not.
func TestQuestionFree_OfTheBuiltinRules(t *testing.T) {
	e := builtinEngine(t)
	for _, name := range []string{"q", "q_scope", "relevant_unkeyed", "stop", "gate", "may_be_same_as_asked", "weighed_scope"} {
		if e.sharing.free[name] || e.sharing.scopeFree[name] {
			t.Errorf("%s is shared, but reads the question", name)
		}
	}
	for _, name := range []string{"unkeyed_last_resolution", "unkeyed_candidates", "incomplete_tasks", "unkeyed_may_have_crossed", "crossing"} {
		if !e.sharing.free[name] {
			t.Errorf("%s is not shared, but reads only what every question shares", name)
		}
	}
	if !e.sharing.scopeFree["scope_runs"] || e.sharing.free["scope_runs"] {
		t.Errorf("scope_runs reads the weighed scopes: shared by the questions weighing the same ones only")
	}
}

// Every question of every history, asked one after the other over one
// document (the values shared), decides as each asked alone. The
// questions are those of every task at every checkpoint, each intent a
// resume check weighs, and a new task naming each scope's key.
func TestSharedValues_SameGatesAsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	e := builtinEngine(t)
	asked := 0
	for name, f := range histories(t) {
		if strings.HasPrefix(name, "corpus-") {
			continue
		}
		qs := questions(f, 12)
		together, alone, err := AskedTogetherAndAlone(e, f, qs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range qs {
			if !reflect.DeepEqual(together[i], alone[i]) {
				t.Errorf("%s: %s at %s (key %q): shared %+v, alone %+v", name, qs[i].Task, qs[i].Checkpoint, qs[i].Key, together[i], alone[i])
			}
		}
		asked += len(qs)
	}
	if asked < 1000 {
		t.Errorf("only %d questions asked: the comparison proves little", asked)
	}
}

// questions lists what a history may be asked: every task's (at most
// limit of them, spread) at every checkpoint with every intent it holds,
// and a new task's naming each scope's key and destination.
func questions(f *analyzer.Facts, limit int) []*analyzer.Query {
	ids := slices.Sorted(maps.Keys(f.Tasks))
	if len(ids) > limit {
		var some []string
		for i := 0; i < len(ids); i += len(ids) / limit {
			some = append(some, ids[i])
		}
		ids = some
	}
	var qs []*analyzer.Query
	for _, cp := range []string{"resume", "picker", "send"} {
		for _, id := range append(ids, "new-task") {
			qs = append(qs, f.AskAll(id, cp, analyzer.IntentSpec{})...)
		}
		for i, s := range f.Scopes {
			if i >= limit {
				break
			}
			qs = append(qs, f.AskAll("new-task", cp, analyzer.IntentSpec{Destination: s.Destination, SHA256: s.ContentSHA256})...)
		}
	}
	return qs
}
