package policy

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// regoTestPaths are the built-in rules and their Rego unit tests.
var regoTestPaths = []string{"../rules.rego", "../rules_test.rego"}

// TestRegoRules runs the Rego unit tests of the built-in rules, each as a
// subtest named after its Rego rule, under the engine's sandboxed
// capabilities and with builtin errors raised (the engine evaluates with
// StrictBuiltinErrors). A failed test is reported with its location and the
// last expression of its body that failed.
func TestRegoRules(t *testing.T) {
	ctx := context.Background()
	modules, store, err := tester.LoadWithParserOptions(regoTestPaths, nil, ast.ParserOptions{
		RegoVersion:       ast.RegoV1,
		ProcessAnnotation: true,
		Capabilities:      sandbox(),
	})
	if err != nil {
		t.Fatalf("loading %v: %v", regoTestPaths, err)
	}
	results, err := runRegoTests(ctx, modules, store, "", false)
	if err != nil {
		t.Fatalf("compiling %v: %v", regoTestPaths, err)
	}

	ran := 0
	for _, r := range results {
		if r.Skip {
			continue
		}
		ran++
		t.Run(r.Name, func(t *testing.T) {
			switch {
			case r.Error != nil:
				t.Errorf("%s: %s: error: %v", location(r), r.Name, r.Error)
			case r.Fail:
				t.Errorf("%s: %s: failed%s", location(r), r.Name, failedAt(ctx, modules, store, r))
			}
			if len(r.Output) > 0 {
				t.Logf("output:\n%s", r.Output)
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no Rego tests ran from %v", regoTestPaths)
	}
	t.Logf("%d Rego tests ran", ran)
}

// runRegoTests compiles modules afresh and runs the tests whose full name
// matches filter (all when empty), in file order.
func runRegoTests(ctx context.Context, modules map[string]*ast.Module, store storage.Store, filter string, trace bool) ([]*tester.Result, error) {
	compiler := ast.NewCompiler().
		WithCapabilities(sandbox()).
		WithEnablePrintStatements(true).
		WithDefaultRegoVersion(ast.RegoV1)
	ch, err := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(store).
		SetModules(modules).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		EnableTracing(trace).
		Filter(filter).
		RunTests(ctx, nil)
	if err != nil {
		return nil, err
	}
	var results []*tester.Result
	for r := range ch {
		results = append(results, r)
	}
	// Results arrive in any order.
	sort.Slice(results, func(i, j int) bool { return before(results[i], results[j]) })
	return results, nil
}

// failedAt re-runs one failed test with tracing and names the failed
// expression of its body that evaluation reached last (the furthest
// line): usually the assertion that did not hold.
func failedAt(ctx context.Context, modules map[string]*ast.Module, store storage.Store, r *tester.Result) string {
	if r.Location == nil {
		return ""
	}
	filter := "^" + regexp.QuoteMeta(r.Package+"."+r.Name) + "$"
	results, err := runRegoTests(ctx, modules, store, filter, true)
	if err != nil || len(results) != 1 {
		return ""
	}
	first, last := r.Location.Row, r.Location.Row+strings.Count(string(r.Location.Text), "\n")
	var at *ast.Expr
	for _, e := range results[0].Trace {
		x, ok := e.Node.(*ast.Expr)
		if e.Op != topdown.FailOp || !ok || x.Location == nil || x.Location.File != r.Location.File {
			continue
		}
		if row := x.Location.Row; row >= first && row <= last && (at == nil || row > at.Location.Row) {
			at = x
		}
	}
	if at == nil {
		return ""
	}
	return fmt.Sprintf(" at line %d: %s", at.Location.Row, at.Location.Text)
}

// location gives file:row of a test rule.
func location(r *tester.Result) string {
	if r.Location == nil {
		return r.Package + "." + r.Name
	}
	return fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
}

// before orders results by file, then row, then name.
func before(a, b *tester.Result) bool {
	if a.Location == nil || b.Location == nil {
		return a.Location != nil || (b.Location == nil && a.Name < b.Name)
	}
	if a.Location.File != b.Location.File {
		return a.Location.File < b.Location.File
	}
	if a.Location.Row != b.Location.Row {
		return a.Location.Row < b.Location.Row
	}
	return a.Name < b.Name
}
