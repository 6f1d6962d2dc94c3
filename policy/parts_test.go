package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/corpus"
	"github.com/effectlint/effectlint/internal/largescenario"
	"github.com/effectlint/effectlint/transcripts"

	"github.com/effectlint/effectlint/policy/builtin"
)

// The built-in rules are evaluated by parts (evaluate.go) over an input
// built without JSON (input.go). These tests hold both to what evaluating
// the whole JSON document gives: the value, every state and finding in the
// same order, every gate decision.

// tb is what testing.T and rapid.T share.
type tb interface {
	Helper()
	Fatal(args ...any)
}

// builtinEngine is the built-in rules compiled once for all tests.
func builtinEngine(t tb) *Engine {
	t.Helper()
	e, err := CompileCached(context.Background(), Config{Builtin: []Module{{Name: builtin.RulesName, Source: builtin.Rules}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// engineFrom compiles a copy of the built-in rules read from path.
func engineFrom(t tb, path string) *Engine {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := CompileCached(context.Background(), Config{Builtin: []Module{{Name: "rules.rego", Source: string(src)}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func factsOf(t tb, paths ...string) *analyzer.Facts {
	return factsFrom(t, "", paths...)
}

// factsFrom reads paths, "-" being stdin.
func factsFrom(t tb, stdin string, paths ...string) *analyzer.Facts {
	t.Helper()
	b := analyzer.New()
	res, err := transcripts.Read(paths, transcripts.Options{Stdin: strings.NewReader(stdin)}, b.Add)
	if err != nil {
		t.Fatal(err)
	}
	return b.Build(res)
}

// histories are the scenarios, the 200-worker fan-out, and small generated
// corpora in both formats. They are read once for the package's tests
// (about 2 s each time): a test that sets a history's Query sets it back
// to nil.
func histories(t *testing.T) map[string]*analyzer.Facts {
	t.Helper()
	historiesOnce.Do(func() {
		ok := false
		defer func() {
			if !ok {
				historiesFailed = true
			}
		}()
		historiesRead = readHistories(t)
		ok = true
	})
	if historiesFailed {
		t.Fatal("reading the histories failed (in an earlier test)")
	}
	for name, f := range historiesRead {
		if f.Query != nil {
			t.Fatalf("history %s still holds an earlier test's question", name)
		}
	}
	return historiesRead
}

var (
	historiesOnce   sync.Once
	historiesRead   map[string]*analyzer.Facts
	historiesFailed bool
)

func readHistories(t *testing.T) map[string]*analyzer.Facts {
	t.Helper()
	tmp, err := os.MkdirTemp("", "effectlint-histories-")
	if err != nil {
		t.Fatal(err)
	}
	// Facts keep no file open and read no file later: the corpora can go.
	defer os.RemoveAll(tmp)
	tempDir := func() string {
		d, err := os.MkdirTemp(tmp, "")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	out := map[string]*analyzer.Facts{}
	dirs, _ := filepath.Glob("../testdata/scenarios/*")
	for _, d := range dirs {
		out[filepath.Base(d)] = factsOf(t, d)
	}
	large := tempDir()
	if err := largescenario.Write(large); err != nil {
		t.Fatal(err)
	}
	out["large-200-workers"] = factsOf(t, large)
	for _, format := range []string{corpus.Native, corpus.ClaudeCode} {
		dir := tempDir()
		if _, err := corpus.Write(dir, corpus.Config{Tasks: 400, Events: 6000, Format: format, OutputBytes: 200, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		out["corpus-"+format] = factsOf(t, dir)
	}
	// The shapes of the scaling series (families, shared destinations and
	// titles, delegated workers, redeliveries, problems, foreign files).
	for name, sh := range corpus.Shapes {
		if name == "friendly" {
			continue
		}
		sh.Redeliveries = max(sh.Redeliveries, 100)
		dir := tempDir()
		if _, err := corpus.Write(dir, corpus.Config{Tasks: 300, Events: 4000, Format: corpus.Native, OutputBytes: 100, Seed: 4, Shape: sh}); err != nil {
			t.Fatal(err)
		}
		out["shape-"+name] = factsOf(t, dir)
	}
	return out
}

// jsonInput is the policy input as the JSON document of the facts: what
// Input builds directly, and the reference it is held to.
func jsonInput(f *analyzer.Facts) (ast.Value, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return ast.ValueFromReader(bytes.NewReader(b))
}

// wholeAnalysis evaluates the built-in rules over the JSON document, as
// effectlint did before it evaluated by parts.
func wholeAnalysis(t tb, e *Engine, f *analyzer.Facts) *Analysis {
	t.Helper()
	in, err := jsonInput(f)
	if err != nil {
		t.Fatal(err)
	}
	pq, err := e.prepare(context.Background(), "scopes := data.effectlint.scopes; findings := data.effectlint.findings")
	if err != nil {
		t.Fatal(err)
	}
	b, err := evalBindings(context.Background(), pq, in)
	if err != nil {
		t.Fatal(err)
	}
	var out Analysis
	if err := decode(b, "scopes", &out.Scopes); err != nil {
		t.Fatal(err)
	}
	if err := decode(b, "findings", &out.Findings); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(out.Findings, func(i, j int) bool { return findingLess(out.Findings[i], out.Findings[j]) })
	return &out
}

func wholeGate(t tb, e *Engine, f *analyzer.Facts) *Gate {
	t.Helper()
	in, err := jsonInput(f)
	if err != nil {
		t.Fatal(err)
	}
	return gateOn(t, e, in)
}

// gateOn evaluates the built-in gate over the whole document in.
func gateOn(t tb, e *Engine, in ast.Value) *Gate {
	t.Helper()
	b, err := evalBindings(context.Background(), *e.check, in)
	if err != nil {
		t.Fatal(err)
	}
	var g *Gate
	if err := decode(b, "gate", &g); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(g.Reasons, func(i, j int) bool {
		if g.Reasons[i].Order != g.Reasons[j].Order {
			return g.Reasons[i].Order < g.Reasons[j].Order
		}
		return g.Reasons[i].Message < g.Reasons[j].Message
	})
	return g
}

// wholeWithoutQuery is the JSON document of f without its question. A
// test that asks hundreds of questions of one history converts the facts
// once and adds each question with withQuery: converting the whole
// document per question was most of the policy package's test time.
func wholeWithoutQuery(t tb, f *analyzer.Facts) ast.Object {
	t.Helper()
	q := f.Query
	f.Query = nil
	defer func() { f.Query = q }()
	in, err := jsonInput(f)
	if err != nil {
		t.Fatal(err)
	}
	doc, ok := in.(ast.Object)
	if !ok {
		t.Fatal("the document is not an object")
	}
	return doc
}

// withQuery is doc with q as Input writes it (TestCheckInput holds the
// two equal for the first question of every history).
func withQuery(t tb, doc ast.Object, q *analyzer.Query) ast.Value {
	t.Helper()
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := ast.NewObject()
	doc.Foreach(func(k, v *ast.Term) { out.Insert(k, v) })
	out.Insert(ast.InternedTerm("query"), ast.NewTerm(qv))
	return out
}

func TestInputValue_SameAsJSON(t *testing.T) {
	for name, f := range histories(t) {
		want, err := jsonInput(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := wholeInput(f); got.Compare(want) != 0 {
			t.Errorf("%s: the input built directly differs from the JSON document", name)
		}
		f.Query = f.Ask("t2", "send", analyzer.IntentSpec{})
		want, _ = jsonInput(f)
		if got := wholeInput(f); got.Compare(want) != 0 {
			t.Errorf("%s: with a query, the input built directly differs from the JSON document", name)
		}
		f.Query = nil
	}
	// Strings encoding/json changes (invalid UTF-8), a nil slice, fields.
	f := factsOf(t, "../testdata/scenarios/06-overnight-resume-duplicate")
	f.Scopes[0].Facts[0].Task = "t\xff\xfex"
	rare := f.Scopes[0].Facts[0].Rare()
	rare.Fields = analyzer.NewFields(map[string]any{"x": json.Number("1.5e3"), "y": []any{"a", nil, true}})
	f.Scopes[0].Facts[0].FactRare = &rare
	f.Skipped = nil
	// The task table's strings go through an interner: invalid UTF-8
	// there too, met twice, and an empty list.
	for _, task := range f.Tasks {
		task.Status, task.Source, task.IncompleteBecause = "s\xff", "s\xff", []string{}
	}
	want, _ := jsonInput(f)
	if got := wholeInput(f); got.Compare(want) != 0 {
		t.Errorf("edge cases: the input built directly differs from the JSON document:\n%v\n%v", got, want)
	}
}

func TestAnalyzeByParts_SameAsWhole(t *testing.T) {
	e := builtinEngine(t)
	for name, f := range histories(t) {
		got, err := e.Analyze(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeAnalysis(t, e, f); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: by parts %d scopes %d findings, whole %d scopes %d findings", name,
				len(got.Scopes), len(got.Findings), len(want.Scopes), len(want.Findings))
		}
	}
}

func TestCheckInput_SameDecisionAsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	e := builtinEngine(t)
	for name, f := range histories(t) {
		if strings.HasPrefix(name, "corpus-") {
			continue // thousands of tasks: the scenarios cover every reason
		}
		ids := make([]string, 0, len(f.Tasks)+1)
		for id := range f.Tasks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if len(ids) > 12 { // the fan-out: a spread of its workers
			var some []string
			for i := 0; i < len(ids); i += len(ids) / 12 {
				some = append(some, ids[i])
			}
			// and the fan-out's workers by name, where the history has
			// them (a generated corpus names its tasks otherwise, and an
			// unknown task is asked below as "new-task")
			for _, id := range []string{"w001", "w042", "w113", "w150", "w199"} {
				if f.Tasks[id] != nil {
					some = append(some, id)
				}
			}
			ids = some
		}
		doc := wholeWithoutQuery(t, f)
		first := true
		for _, id := range append(ids, "new-task") {
			for _, cp := range []string{"resume", "picker", "send"} {
				f.Query = f.Ask(id, cp, analyzer.IntentSpec{})
				got, err := e.Check(context.Background(), f)
				if err != nil {
					t.Fatal(err)
				}
				whole := withQuery(t, doc, f.Query)
				if first {
					if in, _ := jsonInput(f); whole.Compare(in) != 0 {
						t.Fatalf("%s: the document with a question added differs from Input's", name)
					}
					first = false
				}
				if want := gateOn(t, e, whole); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: check --task %s --checkpoint %s: %+v, whole document %+v", name, id, cp, got, want)
				}
			}
		}
		f.Query = nil
	}
}

// The property tests' random histories, judged by parts and whole.
func TestProperty_PartsJudgeAsTheWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	e := builtinEngine(t)
	scoped := 0
	defer func() {
		if scoped == 0 {
			t.Error("no random history had a key scope: the comparison proves nothing")
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "tasks")
		var lines []string
		for i := 0; i < n; i++ {
			task := "t" + string(rune('1'+i))
			// Destinations that are others', or may be the same (letter
			// case, a title): the gate's input keeps only the scopes the
			// rules may weigh (scopeIndex).
			dest := rapid.SampledFrom([]string{`{"provider":"slack","id":"C1"}`, `{"provider":"slack","id":"C2"}`,
				`{"provider":"slack","id":"C3"}`, `{"provider":"Slack","id":" c1"}`, `{"provider":"slack","id":"C2","title":"#x"}`,
				`{"title":"#X"}`}).Draw(rt, "destination")
			lines = append(lines, `{"ts":"2026-11-30T07:00:0`+string(rune('0'+i))+`Z","task":"`+task+`","type":"intent","destination":`+dest+`,"content":{"sha256":"`+digestAB+`"}}`)
			for j, body := range rapid.SliceOfN(rapid.SampledFrom(bodies), 0, 8).Draw(rt, "events") {
				lines = append(lines, `{"ts":"2026-11-30T07:01:`+twoDigits(j)+`Z","task":"`+task+`",`+body+`}`)
			}
		}
		f := factsFrom(rt, strings.Join(lines, "\n")+"\n", "-")
		if len(f.Scopes) > 0 {
			scoped++
		}
		got, err := e.Analyze(context.Background(), f)
		if err != nil {
			rt.Fatal(err)
		}
		if want := wholeAnalysis(rt, e, f); !reflect.DeepEqual(got, want) {
			rt.Fatalf("by parts %+v\nwhole %+v", got, want)
		}
		// The gate on its reduced input (one scope, the facts of the types
		// the rules read) decides as on the whole document.
		for i := 0; i <= n; i++ {
			task := "t" + string(rune('1'+i)) // t1…tn, then one with no history
			for _, cp := range []string{"resume", "picker", "send"} {
				f.Query = f.Ask(task, cp, analyzer.IntentSpec{})
				got, err := e.Check(context.Background(), f)
				if err != nil {
					rt.Fatal(err)
				}
				if want := wholeGate(rt, e, f); !reflect.DeepEqual(got, want) {
					rt.Fatalf("check --task %s --checkpoint %s: %+v, whole document %+v", task, cp, got, want)
				}
			}
		}
		f.Query = nil
	})
}

var bodies = []string{
	`"type":"gate_check","checkpoint":"picker","decision":"allow"`, `"type":"gate_check","checkpoint":"send","decision":"stop"`,
	`"type":"gate_check","checkpoint":"resume","decision":"allow"`, `"type":"picker_opened"`, `"type":"picker_dismissed"`,
	`"type":"picker_accepted"`, `"type":"send_fired"`, `"type":"request_sent","idempotency_token":"k"`,
	`"type":"response","ok":true`, `"type":"readback","result":"unavailable"`, `"type":"status","label":"not_sent"`,
	`"type":"status","label":"sent_verified"`, `"type":"interrupted","reason":"restart"`, `"type":"task_ended","status":"completed"`,
	`"type":"tool_output","output":"x","n":[1,{"a":null}]`, `"type":"intent","destination":{"title":"#x"},"content":{"sha256":"` + strings.Repeat("cd", 32) + `"}}`,
	`"type":"readback","result":"confirmed"`, `"type":"ui_changed","detail":"spinner"`, `"type":"outgoing_item_seen"`,
	`"type":"response_lost"`, `"type":"failure_shown"`, `"type":"timeout"`, `"type":"response","ok":false`,
	`"type":"task_started","relation":"root"`, `"type":"note_to_self","text":"y"`,
}

// digestAB is a well-formed content digest: with a malformed one no intent
// has a key and no scope exists, which would leave these tests nothing to
// compare.
var digestAB = strings.Repeat("ab", 32)

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// The parts leave out the facts' extra fields: no built-in rule may read
// them, or reflect over a fact or the input (which could).
func TestBuiltinRulesDoNotReadFields(t *testing.T) {
	mod := parsedRules(t)
	reflective := map[string]bool{"walk": true, "json.marshal": true, "json.marshal_with_options": true,
		"object.keys": true, "object.get": true, "object.remove": true, "object.filter": true,
		"object.union": true, "object.union_n": true, "json.filter": true, "json.remove": true,
		"json.patch": true, "yaml.marshal": true, "object.subset": true, "type_name": true}
	ast.WalkTerms(mod, func(term *ast.Term) bool {
		switch v := term.Value.(type) {
		case ast.String:
			if v == "fields" {
				t.Errorf("rules.rego:%d reads fields", term.Location.Row)
			}
		case ast.Call:
			if name := v[0].String(); reflective[name] {
				t.Errorf("rules.rego:%d calls %s", term.Location.Row, name)
			}
		case ast.Ref:
			// input[x] or f[x] with a variable key could read any field.
			for _, p := range v[1:] {
				if _, isVar := p.Value.(ast.Var); isVar && v[0].Equal(ast.InputRootDocument) && len(v) == 2 {
					t.Errorf("rules.rego:%d iterates input's keys", term.Location.Row)
				}
			}
		}
		return false
	})
}

// parsedRules is rules.rego's syntax tree, for tests that read the rules
// as text.
func parsedRules(t *testing.T) *ast.Module {
	t.Helper()
	mod, err := ast.ParseModuleWithOpts(builtin.RulesName, builtin.Rules, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	return mod
}
