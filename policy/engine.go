// Package policy runs the Rego rules over the analyzer's facts.
//
// Like OPA's rego package it separates the expensive part from the cheap
// one: New parses and compiles the modules and prepares the queries once;
// Analyze and Check convert one facts document and evaluate it.
package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/effectlint/effectlint/analyzer"
)

// Package is the Rego package of the built-in rules.
const Package = "effectlint"

// Engine holds compiled policy and prepared queries. It is safe for
// concurrent use.
type Engine struct {
	analyze rego.PreparedEvalQuery
	check   rego.PreparedEvalQuery
	rules   []RuleInfo
}

// Module is one Rego source file.
type Module struct {
	Name   string // file name, used in error messages
	Source string
}

// RuleInfo describes one finding rule, read from its # METADATA block.
type RuleInfo struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Severity    string `json:"severity"`
	Location    string `json:"location"`
}

// New compiles the modules (the built-in rules.rego and any others) once.
func New(ctx context.Context, modules ...Module) (*Engine, error) {
	compiler := ast.NewCompiler().WithCapabilities(sandbox())
	parsed := map[string]*ast.Module{}
	for _, m := range modules {
		mod, err := ast.ParseModuleWithOpts(m.Name, m.Source, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		parsed[m.Name] = mod
	}
	if compiler.Compile(parsed); compiler.Failed() {
		return nil, fmt.Errorf("policy: %w", compiler.Errors)
	}
	e := &Engine{rules: ruleCatalog(compiler)}
	var err error
	if e.analyze, err = prepare(ctx, compiler, "scopes := data.effectlint.scopes; findings := data.effectlint.findings"); err != nil {
		return nil, err
	}
	if e.check, err = prepare(ctx, compiler, "gate := data.effectlint.gate"); err != nil {
		return nil, err
	}
	return e, nil
}

func prepare(ctx context.Context, c *ast.Compiler, query string) (rego.PreparedEvalQuery, error) {
	pq, err := rego.New(rego.Compiler(c), rego.Query(query), rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
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

func ruleCatalog(c *ast.Compiler) []RuleInfo {
	var out []RuleInfo
	seen := map[string]bool{}
	for _, ref := range c.GetAnnotationSet().Flatten() {
		a := ref.Annotations
		if a == nil || (a.Scope != "rule" && a.Scope != "document") {
			continue
		}
		sev, _ := a.Custom["severity"].(string)
		if sev == "" {
			continue
		}
		name := ref.Path[len(ref.Path)-1].Value.(ast.String)
		id := strings.ToUpper(string(name))
		if seen[id] {
			continue
		}
		seen[id] = true
		loc := ""
		if ref.Location != nil {
			loc = fmt.Sprintf("%s:%d", ref.Location.File, ref.Location.Row)
		}
		out = append(out, RuleInfo{ID: id, Title: a.Title, Description: a.Description, Severity: sev, Location: loc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Rules lists the finding rules with their metadata.
func (e *Engine) Rules() []RuleInfo { return e.rules }

// Input converts facts into the policy input once.
func Input(f *analyzer.Facts) (ast.Value, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return ast.ValueFromReader(bytes.NewReader(b))
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

// Analyze decides every key scope's state and the findings.
func (e *Engine) Analyze(ctx context.Context, f *analyzer.Facts) (*Analysis, error) {
	in, err := Input(f)
	if err != nil {
		return nil, err
	}
	var out Analysis
	if err := evalInto(ctx, e.analyze, in, &out); err != nil {
		return nil, err
	}
	for _, fd := range out.Findings {
		if SeverityRank(fd.Severity) == 0 {
			return nil, fmt.Errorf("policy: rule %s gave severity %q; give the rule a METADATA block with custom.severity (critical, high, medium, low or info)", fd.Rule, fd.Severity)
		}
	}
	sort.SliceStable(out.Findings, func(i, j int) bool { return findingLess(out.Findings[i], out.Findings[j]) })
	return &out, nil
}

// Check decides the gate for f.Query. Any failure is an error; callers
// must treat an error as stop.
func (e *Engine) Check(ctx context.Context, f *analyzer.Facts) (*Gate, error) {
	if f.Query == nil {
		return nil, fmt.Errorf("policy: check needs a query")
	}
	in, err := Input(f)
	if err != nil {
		return nil, err
	}
	var out struct {
		Gate *Gate `json:"gate"`
	}
	if err := evalInto(ctx, e.check, in, &out); err != nil {
		return nil, err
	}
	g := out.Gate
	if g == nil || (g.Decision != "allow" && g.Decision != "stop") || len(g.Reasons) == 0 {
		return nil, fmt.Errorf("policy: the gate gave no decision")
	}
	sort.SliceStable(g.Reasons, func(i, j int) bool {
		a, b := g.Reasons[i], g.Reasons[j]
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		return a.Message < b.Message
	})
	return g, nil
}

// evalInto evaluates a prepared query and decodes its bindings into out
// (through JSON, so the Go shapes above are the contract).
func evalInto(ctx context.Context, pq rego.PreparedEvalQuery, in ast.Value, out any) error {
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(in))
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if len(rs) != 1 {
		return fmt.Errorf("policy: the rules gave %d results, want 1 (is a rule undefined?)", len(rs))
	}
	b, err := json.Marshal(rs[0].Bindings)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// SeverityRank orders severities; unknown ones rank lowest.
func SeverityRank(s string) int {
	switch s {
	case "critical":
		return 5
	case "high":
		return 4
	case "medium":
		return 3
	case "low":
		return 2
	case "info":
		return 1
	}
	return 0
}

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
