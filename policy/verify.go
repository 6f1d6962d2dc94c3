package policy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Test outcomes.
const (
	TestPass  = "PASS"
	TestFail  = "FAIL"
	TestError = "ERROR"
	TestSkip  = "SKIP" // todo_test_ rules, as in `opa test`
)

// TestResult is the outcome of one Rego unit test (a test_* rule).
type TestResult struct {
	// Name is the test's full name: data.<package>.test_<name>.
	Name     string
	Location *ast.Location
	Outcome  string
	// FailedAt names the last expression of a failed test's body that
	// evaluation reached: usually the assertion that did not hold.
	FailedAt string
	// Error is the error of a test that could not be evaluated.
	Error string
	// Output is what the test printed (print()).
	Output string
	// User is set for tests from users' policies, not the built-in ones.
	User bool
}

// Where is the test's file:line.
func (r TestResult) Where() string {
	if r.Location == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
}

// VerifyConfig says which Rego unit tests Verify runs.
type VerifyConfig struct {
	// Builtin are the built-in rules and their tests (rules.rego,
	// rules_test.rego).
	Builtin []Module
	// User are users' policies and tests; non-test files must live under
	// effectlint.custom, as for analyze and check.
	User []Module
	Data map[string]any
	// Filter selects tests by a regular expression on their full name
	// (all when empty).
	Filter string
}

// Verify runs the Rego unit tests like `opa test`, under the same sandbox
// as analyze and check, with builtin errors raised and print() captured.
// Results come in file order. A module that does not compile is an error
// (located, like every policy error); a test that fails or errors is a
// result.
func Verify(ctx context.Context, cfg VerifyConfig) ([]TestResult, error) {
	if cfg.Filter != "" {
		if _, err := regexp.Compile(cfg.Filter); err != nil {
			return nil, fmt.Errorf("policy: test filter: %v", err)
		}
	}
	cfg.User = apart(cfg.Builtin, cfg.User)
	parsed, err := parse(cfg.Builtin, cfg.User)
	if err != nil {
		return nil, err
	}
	data := cfg.Data
	if data == nil {
		data = map[string]any{}
	}
	store := inmem.NewFromObject(data)
	raw, err := runTests(ctx, parsed, store, cfg.Filter, false)
	if err != nil {
		return nil, compileError(err)
	}
	user := map[string]bool{}
	for _, m := range cfg.User {
		user[m.Name] = true
	}
	out := make([]TestResult, 0, len(raw))
	for _, r := range raw {
		res := TestResult{Name: r.Package + "." + r.Name, Location: r.Location, Output: string(r.Output)}
		if r.Location != nil {
			res.User = user[r.Location.File]
		}
		switch {
		case r.Skip:
			res.Outcome = TestSkip
		case r.Error != nil:
			res.Outcome = TestError
			res.Error = testError(r.Error)
		case r.Fail:
			res.Outcome = TestFail
			res.FailedAt = failedAt(ctx, parsed, store, r)
		default:
			res.Outcome = TestPass
		}
		out = append(out, res)
	}
	return out, nil
}

func testError(err error) string {
	if topdown.IsCancel(err) {
		return "evaluation did not finish in time"
	}
	var te *topdown.Error
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: %s: %s", where(te.Location), te.Code, te.Message)
	}
	return err.Error()
}

// perTestTimeout bounds each test (the caller's context bounds the run).
// OPA's default of 5 s failed the built-in rules' costliest tests (about
// 1 s alone) on a machine at load 28: a test's time limit must be far
// from what it needs, or it fails for reasons that are not bugs.
const perTestTimeout = time.Minute

// runTests compiles modules afresh (the tester adds compiler stages) and
// runs the tests whose full name matches filter, in file order.
func runTests(ctx context.Context, modules map[string]*ast.Module, store storage.Store, filter string, trace bool) ([]*tester.Result, error) {
	compiler := ast.NewCompiler().
		WithCapabilities(sandbox()).
		WithEnablePrintStatements(true).
		WithDefaultRegoVersion(ast.RegoV1)
	ch, err := tester.NewRunner().
		SetTimeout(perTestTimeout).
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
	results, err := runTests(ctx, modules, store, filter, true)
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
	return fmt.Sprintf("line %d: %s", at.Location.Row, oneLine(string(at.Location.Text)))
}

// oneLine folds white space so that a Rego expression fits one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
