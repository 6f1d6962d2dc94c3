// Package policy runs the Rego rules over the analyzer's facts.
//
// Like OPA's rego package it separates the expensive part from the cheap
// one: New parses and compiles the modules and prepares the queries once;
// Analyze and Check convert one facts document and evaluate it.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
)

// Package is the Rego package of the built-in rules.
const Package = "effectlint"

// CustomPackage is the Rego package under which users' rules live: a user
// package is effectlint.custom.<name>.
const CustomPackage = "effectlint.custom"

// Engine holds compiled policy and prepared queries. It is safe for
// concurrent use.
type Engine struct {
	compiler *ast.Compiler
	store    storage.Store
	// analyze and check are the built-in rules' queries; analyzeCustom
	// and checkCustom the users' (nil when they define none).
	analyze, analyzeCustom *rego.PreparedEvalQuery
	check, checkCustom     *rego.PreparedEvalQuery
	rules                  []RuleInfo
	custom                 Custom
	// builtinIDs are the finding ids of the built-in rules: user rules may
	// not reuse them.
	builtinIDs map[string]bool
	// customSeverity is the METADATA severity of each user finding id.
	customSeverity map[string]string
	// scopeTypes are the fact types the built-in rules read in key scopes
	// (nil: all); see evaluate.go.
	scopeTypes map[string]bool
	// unkeyedTypes are the fact types they read among the unkeyed facts
	// (nil: the scopeTypes).
	unkeyedTypes map[string]bool
	// sharing names the built-in rules whose values the questions of one
	// check share (shared.go).
	sharing sharing
}

// Module is one Rego source file.
type Module struct {
	Name   string // file name, used in error messages
	Source string
	// From is the path argument (--policy) a user module was read from.
	From string
}

// Config says what an Engine compiles.
type Config struct {
	// Builtin are the built-in rules (rules.rego, package effectlint).
	Builtin []Module
	// User are the users' policies: packages under effectlint.custom that
	// add findings (a partial set rule `finding`) and gate stops (`stop`).
	User []Module
	// Data is extra data for policy, at the root of `data`.
	Data map[string]any
}

// Custom lists the user packages that add findings and gate stops.
type Custom struct {
	Finding []CustomRule
	Stop    []CustomRule
}

// CustomRule is a user package's `finding` or `stop` rule.
type CustomRule struct {
	Package string // e.g. effectlint.custom.finance
	// Where lists file:line of each definition.
	Where []string
	ref   ast.Ref
}

func (c CustomRule) String() string {
	return fmt.Sprintf("%s (%s)", c.Package, strings.Join(c.Where, ", "))
}

// RuleInfo describes one finding rule, read from its # METADATA block.
type RuleInfo struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Severity    string `json:"severity"`
	Location    string `json:"location"`
	// Package is the Rego package of the rule: effectlint for the built-in
	// rules, effectlint.custom.<name> for users' rules.
	Package string `json:"package"`
}

// New compiles the modules (the built-in rules.rego and any others) once.
func New(ctx context.Context, modules ...Module) (*Engine, error) {
	return Compile(ctx, Config{Builtin: modules})
}

func parserOptions() ast.ParserOptions {
	return ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1, Capabilities: sandbox()}
}

// Compile parses, checks and compiles the built-in rules and the users'
// policies once, under the sandbox, and prepares the queries.
func Compile(ctx context.Context, cfg Config) (*Engine, error) {
	cfg.User = apart(cfg.Builtin, cfg.User)
	parsed, err := parse(cfg.Builtin, cfg.User)
	if err != nil {
		return nil, err
	}
	if err := checkContributions(cfg.User, parsed); err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().WithCapabilities(sandbox())
	if compiler.Compile(parsed); compiler.Failed() {
		return nil, compileError(compiler.Errors)
	}
	data := cfg.Data
	if data == nil {
		data = map[string]any{}
	}
	e := &Engine{compiler: compiler, store: inmem.NewFromObject(data)}
	if e.custom, err = customRules(cfg.User, parsed); err != nil {
		return nil, err
	}
	if err := e.catalog(); err != nil {
		return nil, err
	}
	// The built-in rules are evaluated apart from the users': per group
	// of key scopes and without extra fields (evaluate.go); users' rules
	// see the whole document.
	var analyzeCustom, checkCustom []string
	for i, c := range e.custom.Finding {
		analyzeCustom = append(analyzeCustom, fmt.Sprintf("custom_%d := %s", i, c.ref.Append(ast.StringTerm("finding"))))
	}
	for i, c := range e.custom.Stop {
		checkCustom = append(checkCustom, fmt.Sprintf("custom_%d := %s", i, c.ref.Append(ast.StringTerm("stop"))))
	}
	for _, q := range []struct {
		pq    **rego.PreparedEvalQuery
		query []string
	}{
		{&e.analyze, []string{"scopes := data.effectlint.scopes", "findings := data.effectlint.findings"}},
		{&e.check, []string{"gate := data.effectlint.gate"}},
		{&e.analyzeCustom, analyzeCustom},
		{&e.checkCustom, checkCustom},
	} {
		if len(q.query) == 0 {
			continue
		}
		pq, err := e.prepare(ctx, strings.Join(q.query, "; "))
		if err != nil {
			return nil, err
		}
		*q.pq = &pq
	}
	if err := e.readFactTypes(ctx); err != nil {
		return nil, err
	}
	e.sharing = sharing{free: questionFree(compiler, sharedInput), scopeFree: questionFree(compiler, sharedInputAndScopes)}
	return e, nil
}

// parse parses every module, collecting every parse error before failing,
// and checks that user modules live under effectlint.custom.
func parse(builtin, user []Module) (map[string]*ast.Module, error) {
	parsed := map[string]*ast.Module{}
	var errs ast.Errors
	add := func(m Module, isUser bool) {
		name := m.Name
		mod, err := ast.ParseModuleWithOpts(name, m.Source, parserOptions())
		if err != nil {
			var pe ast.Errors
			if errors.As(err, &pe) {
				errs = append(errs, pe...)
			} else {
				errs = append(errs, ast.NewError(ast.ParseErr, &ast.Location{File: name}, "%v", err))
			}
			return
		}
		if isUser && !IsTestFile(name) {
			if err := checkUserPackage(mod); err != nil {
				errs = append(errs, err)
				return
			}
		}
		parsed[name] = mod
	}
	for _, m := range builtin {
		add(m, false)
	}
	for _, m := range user {
		add(m, true)
	}
	if len(errs) > 0 {
		return nil, compileError(errs)
	}
	return parsed, nil
}

// apart renames user modules whose name is a built-in module's (a user's
// own ./rules.rego), so that every module keeps its own name.
func apart(builtin, user []Module) []Module {
	taken := map[string]bool{}
	for _, m := range builtin {
		taken[m.Name] = true
	}
	out := make([]Module, len(user))
	for i, m := range user {
		for taken[m.Name] {
			m.Name = "./" + m.Name
		}
		taken[m.Name] = true
		out[i] = m
	}
	return out
}

// customRoot is data.effectlint.custom.
var customRoot = ast.MustParseRef("data.effectlint.custom")

// checkUserPackage keeps users' rules in their namespace: a package under
// effectlint.custom cannot change a built-in verdict, and a rule elsewhere
// would never be evaluated (a silent pass).
func checkUserPackage(mod *ast.Module) *ast.Error {
	p := mod.Package.Path
	if len(p) > len(customRoot) && p.HasPrefix(customRoot) {
		return nil
	}
	return ast.NewError(ast.CompileErr, mod.Package.Location,
		"package %s: user rules live in packages under %s (e.g. package %s.finance)",
		strings.TrimPrefix(p.String(), "data."), CustomPackage, CustomPackage)
}

// checkContributions makes a --policy path that adds no rule an error.
func checkContributions(user []Module, parsed map[string]*ast.Module) error {
	rules := map[string]int{}
	var order []string
	for _, m := range user {
		if _, seen := rules[m.From]; !seen {
			order = append(order, m.From)
			rules[m.From] = 0
		}
		if mod := parsed[m.Name]; mod != nil {
			rules[m.From] += len(mod.Rules)
		}
	}
	for _, from := range order {
		if rules[from] == 0 {
			return policyErrorf("policy path %s: contributes no rule (its files hold no rule definitions)", from)
		}
	}
	return nil
}

// customRules finds the user packages' `finding` and `stop` rules and
// checks that each is a partial set rule, the contract's shape.
func customRules(user []Module, parsed map[string]*ast.Module) (Custom, error) {
	var c Custom
	byPkg := map[string]*CustomRule{}
	var errs ast.Errors
	for _, m := range user {
		mod := parsed[m.Name]
		if mod == nil || IsTestFile(m.Name) {
			continue
		}
		for _, r := range mod.Rules {
			ref := r.Head.Ref()
			name := ref[0].Value.String()
			if name != "finding" && name != "stop" {
				continue
			}
			if len(ref) != 1 || len(r.Head.Args) > 0 || r.Head.RuleKind() != ast.MultiValue {
				errs = append(errs, ast.NewError(ast.CompileErr, r.Location,
					"%s must be a partial set rule: `%s contains x if { ... }`", name, name))
				continue
			}
			pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
			k := pkg + " " + name
			cr := byPkg[k]
			if cr == nil {
				cr = &CustomRule{Package: pkg, ref: mod.Package.Path.Copy()}
				byPkg[k] = cr
			}
			cr.Where = append(cr.Where, fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row))
		}
	}
	if len(errs) > 0 {
		return c, compileError(errs)
	}
	keys := make([]string, 0, len(byPkg))
	for k := range byPkg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, " finding") {
			c.Finding = append(c.Finding, *byPkg[k])
		} else {
			c.Stop = append(c.Stop, *byPkg[k])
		}
	}
	return c, nil
}

// Custom lists the user packages that add findings and gate stops.
func (e *Engine) Custom() Custom { return e.custom }

func (e *Engine) prepare(ctx context.Context, query string) (rego.PreparedEvalQuery, error) {
	pq, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store), rego.Query(query), rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
	if err != nil {
		return pq, fmt.Errorf("policy: preparing %q: %w", query, err)
	}
	return pq, nil
}

// sandbox returns the default capabilities without builtins whose result
// depends on the world (network, clock, randomness): a verdict must follow
// from the inputs alone, and the same inputs must give the same bytes.
func sandbox() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if !b.Nondeterministic {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps
}

var severities = "critical, high, medium, low or info"

// catalog reads the finding rules' METADATA: title, description and
// custom.severity. A built-in rule's id is its name in upper case
// (duplicate_delivery → DUPLICATE_DELIVERY). A user rule's id is its
// custom.rule, or its upper-cased name; a block on `finding` itself must
// name the id in custom.rule, since one package's `finding` may add
// findings of several ids.
func (e *Engine) catalog() error {
	e.builtinIDs, e.customSeverity = map[string]bool{}, map[string]string{}
	var out []RuleInfo
	seen := map[string]RuleInfo{}
	var errs ast.Errors
	for _, ref := range e.compiler.GetAnnotationSet().Flatten() {
		a := ref.Annotations
		if a == nil || (a.Scope != "rule" && a.Scope != "document") {
			continue
		}
		user := ref.Path.HasPrefix(customRoot)
		sev, hasSev := a.Custom["severity"]
		id, hasID := a.Custom["rule"]
		if !hasSev && !(user && hasID) {
			continue
		}
		name := string(ref.Path[len(ref.Path)-1].Value.(ast.String))
		pkg := strings.TrimPrefix(ref.Path[:len(ref.Path)-1].String(), "data.")
		loc := ""
		if ref.Location != nil {
			loc = fmt.Sprintf("%s:%d", ref.Location.File, ref.Location.Row)
		}
		if !user {
			// The built-in rules: a missing or wrong severity surfaces when
			// the rule fires (the finding is rejected, never dropped).
			s, _ := sev.(string)
			if s == "" {
				continue
			}
			rid := strings.ToUpper(name)
			e.builtinIDs[rid] = true
			if _, dup := seen[rid]; dup {
				continue
			}
			info := RuleInfo{ID: rid, Title: a.Title, Description: a.Description, Severity: s, Location: loc, Package: pkg}
			seen[rid] = info
			out = append(out, info)
			continue
		}
		if name == "stop" {
			continue // gate reasons are not findings
		}
		s, ok := sev.(string)
		if !ok || SeverityRank(s) == 0 {
			errs = append(errs, ast.NewError(ast.CompileErr, ref.Location, "METADATA of %s: custom.severity must be %s, not %v", name, severities, sev))
			continue
		}
		rid, _ := id.(string)
		if hasID && rid == "" {
			errs = append(errs, ast.NewError(ast.CompileErr, ref.Location, "METADATA of %s: custom.rule must be a non-empty string", name))
			continue
		}
		if rid == "" {
			if name == "finding" {
				errs = append(errs, ast.NewError(ast.CompileErr, ref.Location, "METADATA of finding: give custom.rule, the id of the findings this definition adds"))
				continue
			}
			rid = strings.ToUpper(name)
		}
		info := RuleInfo{ID: rid, Title: a.Title, Description: a.Description, Severity: s, Location: loc, Package: pkg}
		if prev, dup := seen[rid]; dup {
			if prev.Package == Package {
				errs = append(errs, ast.NewError(ast.CompileErr, ref.Location, "rule id %s is a built-in rule's; give user rules their own ids", rid))
			} else if prev.Severity != s {
				errs = append(errs, ast.NewError(ast.CompileErr, ref.Location, "rule id %s has severity %s here and %s at %s", rid, s, prev.Severity, prev.Location))
			}
			continue
		}
		seen[rid] = info
		e.customSeverity[rid] = s
		out = append(out, info)
	}
	if len(errs) > 0 {
		return compileError(errs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	e.rules = out
	return nil
}

// Rules lists the finding rules with their metadata.
func (e *Engine) Rules() []RuleInfo { return e.rules }

// Input converts facts into the policy input once: the value of their
// JSON document, built directly (TestInputValue_SameAsJSON holds the two
// equal). Through JSON, a chain of N resumptions wrote its N²/2 lineage
// entries one by one: 5.7 s at 4,200 deep, for each explain.
func Input(f *analyzer.Facts) (ast.Value, error) {
	return wholeInput(f), nil
}

// ScopeVerdict is what the rules decided about one key scope.
type ScopeVerdict struct {
	ID    string `json:"id"`
	State string `json:"state"`
	// Classes holds the evidence class of each of the scope's facts, in
	// the order of the facts.
	Classes []string `json:"classes"`
}

// Finding is one finding of SPEC §6.
type Finding struct {
	Rule     string             `json:"rule"`
	Severity string             `json:"severity"`
	Key      *string            `json:"key"`
	Scope    *string            `json:"scope"`
	Task     *string            `json:"task"`
	Message  string             `json:"message"`
	Evidence []analyzer.Pointer `json:"evidence"`
}

// Analysis is the result of Analyze.
type Analysis struct {
	Scopes   []ScopeVerdict `json:"scopes"`
	Findings []Finding      `json:"findings"`
}

// Reason is one reason of a gate decision.
type Reason struct {
	Order    int                `json:"order"`
	Rule     string             `json:"rule"`
	Message  string             `json:"message"`
	Evidence []analyzer.Pointer `json:"evidence"`
}

// Gate is the result of Check.
type Gate struct {
	Decision string   `json:"decision"`
	State    *string  `json:"state"`
	Executor *string  `json:"executor"`
	Reasons  []Reason `json:"reasons"`
}

// Analyze decides every key scope's state and the findings, the built-in
// rules' and the users'.
func (e *Engine) Analyze(ctx context.Context, f *analyzer.Facts) (*Analysis, error) {
	out, err := e.analyzeBuiltin(ctx, f)
	if err != nil {
		return nil, err
	}
	for _, fd := range out.Findings {
		if SeverityRank(fd.Severity) == 0 {
			return nil, fmt.Errorf("policy: rule %s gave severity %q; give the rule a METADATA block with custom.severity (critical, high, medium, low or info)", fd.Rule, fd.Severity)
		}
	}
	if e.analyzeCustom != nil {
		b, err := evalBindings(ctx, *e.analyzeCustom, wholeInput(f))
		if err != nil {
			return nil, err
		}
		for i, c := range e.custom.Finding {
			fs, err := e.customFindings(c, b[fmt.Sprintf("custom_%d", i)])
			if err != nil {
				return nil, err
			}
			out.Findings = append(out.Findings, fs...)
		}
	}
	sort.SliceStable(out.Findings, func(i, j int) bool { return findingLess(out.Findings[i], out.Findings[j]) })
	return out, nil
}

// Check decides the gate for f.Query. Any failure is an error; callers
// must treat an error as stop. A stop reason from a user rule turns an
// allow into a stop; it never turns a stop into an allow.
func (e *Engine) Check(ctx context.Context, f *analyzer.Facts) (*Gate, error) {
	if f.Query == nil {
		return nil, fmt.Errorf("policy: check needs a query")
	}
	return e.check1(ctx, newCheckDoc(f, e.scopeTypes, e.unkeyedTypes), f.Query)
}

// check1 decides the gate for q over doc's history.
func (e *Engine) check1(ctx context.Context, doc *checkDoc, q *analyzer.Query) (*Gate, error) {
	in, scopes := doc.question(q)
	b, err := evalBindings(ctx, *e.check, in, rego.EvalVirtualCache(doc.evaluation(e.sharing, scopes)))
	if err != nil {
		return nil, err
	}
	var g *Gate
	if err := decode(b, "gate", &g); err != nil {
		return nil, err
	}
	if g == nil || (g.Decision != "allow" && g.Decision != "stop") || len(g.Reasons) == 0 {
		return nil, fmt.Errorf("policy: the gate gave no decision")
	}
	var stops []Reason
	if e.checkCustom != nil {
		b, err := evalBindings(ctx, *e.checkCustom, doc.wholeInput(q))
		if err != nil {
			return nil, err
		}
		for i, c := range e.custom.Stop {
			rs, err := customStops(c, b[fmt.Sprintf("custom_%d", i)])
			if err != nil {
				return nil, err
			}
			stops = append(stops, rs...)
		}
	}
	if len(stops) > 0 {
		if g.Decision == "allow" {
			g.Decision, g.Reasons = "stop", nil
		}
		g.Reasons = append(g.Reasons, stops...)
	}
	sort.SliceStable(g.Reasons, func(i, j int) bool {
		a, b := g.Reasons[i], g.Reasons[j]
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		if a.Order == CustomStopOrder && a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	return g, nil
}

// CheckEach decides the gate for every query (analyzer.Facts.AskAll: a
// resume check judges every intent the task holds or inherits) and allows
// only when every one allows. It leaves f.Query at the query it reports:
// the first that stops, else the first. The reasons of the other queries
// that stop follow, each naming its intent. Any failure is an error,
// which callers treat as stop.
func (e *Engine) CheckEach(ctx context.Context, f *analyzer.Facts, qs []*analyzer.Query) (*Gate, error) {
	if len(qs) == 0 {
		return nil, fmt.Errorf("policy: check needs a query")
	}
	gates := make([]*Gate, len(qs))
	primary := -1
	doc := newCheckDoc(f, e.scopeTypes, e.unkeyedTypes)
	for i, q := range qs {
		if q == nil {
			return nil, fmt.Errorf("policy: check needs a query")
		}
		f.Query = q
		g, err := e.check1(ctx, doc, q)
		if err != nil {
			return nil, err
		}
		gates[i] = g
		if primary < 0 && g.Decision != "allow" {
			primary = i
		}
	}
	if primary < 0 {
		f.Query = qs[0]
		return gates[0], nil
	}
	f.Query = qs[primary]
	g := gates[primary]
	for i, other := range gates {
		if i == primary || other.Decision == "allow" {
			continue
		}
		about := "another intent"
		if q := qs[i]; q.Key != "" {
			about = fmt.Sprintf("intent %s (key %s, scope %s)", q.Intent, q.Key, q.Scope)
		} else if q.Intent != "" {
			about = "intent " + q.Intent
		}
		for _, r := range other.Reasons {
			r.Message = about + ": " + r.Message
			g.Reasons = append(g.Reasons, r)
		}
	}
	return g, nil
}

// evalBindings evaluates a prepared query and returns its bindings as
// JSON (so the Go shapes above are the contract).
func evalBindings(ctx context.Context, pq rego.PreparedEvalQuery, in ast.Value, opts ...rego.EvalOption) (map[string]json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	ctx, cancel := evalContext(ctx)
	defer cancel()
	rs, err := pq.Eval(ctx, append([]rego.EvalOption{rego.EvalParsedInput(in)}, opts...)...)
	if err != nil {
		return nil, evalError(err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("policy: the rules gave %d results, want 1 (is a rule undefined?)", len(rs))
	}
	b, err := json.Marshal(rs[0].Bindings)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func decode(b map[string]json.RawMessage, name string, out any) error {
	raw, ok := b[name]
	if !ok {
		return fmt.Errorf("policy: the query gave no %s", name)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("policy: %s: %v", name, err)
	}
	return nil
}

// SeverityRank orders severities (effect.SeverityRank): 5 for critical
// down to 1 for info, 0 for anything else.
func SeverityRank(s string) int { return effect.SeverityRank(s) }

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// findingLess orders findings by severity (highest first), then rule, key,
// scope, task, first evidence: a total order, so output is deterministic.
func findingLess(a, b Finding) bool {
	if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
		return ra > rb
	}
	for _, c := range [][2]string{{a.Rule, b.Rule}, {str(a.Key), str(b.Key)}, {str(a.Scope), str(b.Scope)}, {str(a.Task), str(b.Task)}} {
		if c[0] != c[1] {
			return c[0] < c[1]
		}
	}
	if len(a.Evidence) > 0 && len(b.Evidence) > 0 {
		ea, eb := a.Evidence[0], b.Evidence[0]
		if ea.File != eb.File {
			return ea.File < eb.File
		}
		if ea.Line != eb.Line {
			return ea.Line < eb.Line
		}
	}
	if len(a.Evidence) != len(b.Evidence) {
		return len(a.Evidence) < len(b.Evidence)
	}
	return a.Message < b.Message
}
