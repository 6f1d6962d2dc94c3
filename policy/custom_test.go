package policy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"

	"github.com/effectlint/effectlint/policy/builtin"
)

// Tests of the contract for users' rules (README "Your own rules"):
// packages under effectlint.custom, `finding` and `stop` partial sets, the
// sandbox, and errors that name file:line:col.

const incidentDir = "../testdata/scenarios/06-overnight-resume-duplicate"

func builtinModule(t *testing.T) policy.Module {
	t.Helper()
	return policy.Module{Name: builtin.RulesName, Source: builtin.Rules}
}

// compileUser compiles the built-in rules with user modules given as
// file name → source, all from one --policy path "p".
func compileUser(t *testing.T, data map[string]any, files ...string) (*policy.Engine, error) {
	t.Helper()
	var user []policy.Module
	for i := 0; i+1 < len(files); i += 2 {
		user = append(user, policy.Module{Name: files[i], Source: files[i+1], From: "p"})
	}
	return policy.Compile(context.Background(), policy.Config{Builtin: []policy.Module{builtinModule(t)}, User: user, Data: data})
}

func mustCompile(t *testing.T, data map[string]any, files ...string) *policy.Engine {
	t.Helper()
	e, err := compileUser(t, data, files...)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return e
}

func facts(t *testing.T, dir string) *analyzer.Facts {
	t.Helper()
	b := analyzer.New()
	res, err := transcripts.Read([]string{dir}, transcripts.Options{}, b.Add)
	if err != nil {
		t.Fatal(err)
	}
	return b.Build(res)
}

const financeRule = `package effectlint.custom.finance

# METADATA
# title: Finance delivery not confirmed by readback
# description: Every delivery to a finance channel needs a readback confirmation.
# custom:
#   rule: FINANCE_UNCONFIRMED
#   severity: medium
finding contains f if {
	some s in input.scopes
	s.destination.id in data.finance.channels
	some x in s.facts
	x.type == "send_fired"
	not confirmed_after(s.facts, x)
	f := {
		"rule": "FINANCE_UNCONFIRMED",
		"message": sprintf("task %s sent to a finance channel without readback", [x.task]),
		"key": s.key,
		"scope": s.scope,
		"task": x.task,
		"evidence": [x.at],
	}
}

confirmed_after(facts, x) if {
	some y in facts
	y.task == x.task
	y.seq > x.seq
	y.type == "readback"
	y.result == "confirmed"
}
`

var financeData = map[string]any{"finance": map[string]any{"channels": []any{"C024BE91L"}}}

func TestCustomFinding_AddsAFindingWithMetadataSeverity(t *testing.T) {
	e := mustCompile(t, financeData, "finance.rego", financeRule)
	a, err := e.Analyze(context.Background(), facts(t, incidentDir))
	if err != nil {
		t.Fatal(err)
	}
	var got []policy.Finding
	for _, f := range a.Findings {
		if f.Rule == "FINANCE_UNCONFIRMED" {
			got = append(got, f)
		}
	}
	// t1 sent and read back "unavailable"; t2 sent and confirmed.
	if len(got) != 1 {
		t.Fatalf("got %d FINANCE_UNCONFIRMED findings, want 1: %+v", len(got), got)
	}
	f := got[0]
	if f.Severity != "medium" || f.Task == nil || *f.Task != "t1" || f.Key == nil || len(f.Evidence) != 1 ||
		!strings.HasSuffix(f.Evidence[0].File, "t1.jsonl") || f.Evidence[0].Line != 7 {
		t.Errorf("finding = %+v (task %v), want medium for t1 at t1.jsonl:7", f, f.Task)
	}
	if n := len(a.Findings); n != 6 {
		t.Errorf("got %d findings, want the incident's 5 and the user's 1", n)
	}
	var info *policy.RuleInfo
	for _, r := range e.Rules() {
		if r.ID == "FINANCE_UNCONFIRMED" {
			info = &r
		}
	}
	if info == nil || info.Title != "Finance delivery not confirmed by readback" || info.Severity != "medium" ||
		info.Package != "effectlint.custom.finance" || info.Location != "finance.rego:9" || info.Description == "" {
		t.Errorf("Rules() entry = %+v", info)
	}
	if len(e.Rules()) != 15 {
		t.Errorf("Rules() has %d entries, want the 14 built-in and 1 user rule", len(e.Rules()))
	}
}

func TestCustomFinding_WithoutDataMatchesNothing(t *testing.T) {
	e := mustCompile(t, nil, "finance.rego", financeRule)
	a, err := e.Analyze(context.Background(), facts(t, incidentDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 5 {
		t.Errorf("got %d findings, want the incident's 5 (no finance channels configured)", len(a.Findings))
	}
}

func TestCustomFinding_ContractViolationsAreErrors(t *testing.T) {
	cases := []struct{ name, object, want string }{
		{"bad severity", `{"rule": "X", "severity": "urgent", "message": "m"}`, `severity "urgent" is not one of critical, high, medium, low or info`},
		{"empty rule", `{"rule": "", "severity": "high", "message": "m"}`, "rule must be a non-empty string"},
		{"no rule", `{"severity": "high", "message": "m"}`, "rule must be a non-empty string"},
		{"no message", `{"rule": "X", "severity": "high"}`, "message must be a non-empty string"},
		{"no severity and no metadata", `{"rule": "X", "message": "m"}`, "no severity"},
		{"misspelt field", `{"rule": "X", "severtiy": "high", "message": "m"}`, `unknown field(s) severtiy`},
		{"not an object", `"X"`, "each element must be an object"},
		{"built-in id", `{"rule": "DUPLICATE_DELIVERY", "severity": "high", "message": "m"}`, "built-in rule's id"},
		{"task not a string", `{"rule": "X", "severity": "high", "message": "m", "task": 3}`, "task must be a string or null"},
		{"evidence is a fact", `{"rule": "X", "severity": "high", "message": "m", "evidence": [{"file": "a", "line": 1, "type": "x"}]}`, "must be exactly {file, line}"},
		{"evidence line text", `{"rule": "X", "severity": "high", "message": "m", "evidence": [{"file": "a", "line": "1"}]}`, "line must be a whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "package effectlint.custom.bad\n\nfinding contains " + c.object + " if true\n"
			e := mustCompile(t, nil, "bad.rego", src)
			_, err := e.Analyze(context.Background(), facts(t, incidentDir))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "effectlint.custom.bad (bad.rego:3)") {
				t.Errorf("error = %v, want it to name the package, file:line and say %q", err, c.want)
			}
		})
	}
}

func TestCustomFinding_ValidFindingWithNullsPasses(t *testing.T) {
	src := "package effectlint.custom.ok\n\nfinding contains {\"rule\": \"X\", \"severity\": \"info\", \"message\": \"m\", \"task\": null, \"evidence\": [{\"file\": \"a.jsonl\", \"line\": 2}]} if true\n"
	a, err := mustCompile(t, nil, "ok.rego", src).Analyze(context.Background(), facts(t, incidentDir))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range a.Findings {
		if f.Rule == "X" && f.Task == nil && f.Key == nil && len(f.Evidence) == 1 && f.Evidence[0].Line == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("finding X not in %+v", a.Findings)
	}
}

const blockAfterHours = `package effectlint.custom.hours

stop contains {
	"rule": "FREEZE",
	"message": sprintf("deliveries to %s are frozen", [input.query.key]),
	"evidence": [{"file": "freeze.md", "line": 1}],
} if {
	input.query.key in data.freeze.keys
}
`

func TestCustomStop_TurnsAnAllowIntoAStop(t *testing.T) {
	f := facts(t, "../testdata/scenarios/03-prior-not-sent")
	f.Query = f.Ask("t3", "send", analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack", ID: "C024BE91L"}, SHA256: strings.Repeat("ab", 32)})
	// Without the key in data.freeze the user rule adds nothing.
	free := mustCompile(t, map[string]any{"freeze": map[string]any{"keys": []any{}}}, "hours.rego", blockAfterHours)
	g, err := free.Check(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if g.Decision != "allow" {
		t.Fatalf("without a freeze: %s %+v, want allow", g.Decision, g.Reasons)
	}
	frozen := mustCompile(t, map[string]any{"freeze": map[string]any{"keys": []any{f.Query.Key}}}, "hours.rego", blockAfterHours)
	g, err = frozen.Check(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if g.Decision != "stop" || len(g.Reasons) != 1 || g.Reasons[0].Rule != "FREEZE" || g.Reasons[0].Order != policy.CustomStopOrder ||
		len(g.Reasons[0].Evidence) != 1 || g.Reasons[0].Evidence[0].File != "freeze.md" {
		t.Errorf("frozen: %s %+v, want stop with the one FREEZE reason", g.Decision, g.Reasons)
	}
}

func TestCustomStop_ComesAfterTheBuiltInReasons(t *testing.T) {
	f := facts(t, incidentDir)
	f.Query = f.Ask("t2", "send", analyzer.IntentSpec{})
	src := "package effectlint.custom.always\n\nstop contains {\"rule\": \"ALWAYS\", \"message\": \"no\"} if true\n"
	g, err := mustCompile(t, nil, "always.rego", src).Check(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, r := range g.Reasons {
		rules = append(rules, r.Rule)
	}
	if g.Decision != "stop" || strings.Join(rules, ",") != "KEY_CONSUMED,ALREADY_CROSSED,NOT_ELECTED,ALWAYS" {
		t.Errorf("got %s %v", g.Decision, rules)
	}
}

func TestCustomStop_ContractViolationIsAnError(t *testing.T) {
	f := facts(t, incidentDir)
	f.Query = f.Ask("t2", "send", analyzer.IntentSpec{})
	src := "package effectlint.custom.s\n\nstop contains {\"rule\": \"S\", \"message\": \"m\", \"severity\": \"high\"} if true\n"
	_, err := mustCompile(t, nil, "s.rego", src).Check(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "unknown field(s) severity") {
		t.Errorf("error = %v", err)
	}
}

func TestSandbox_RefusesNetworkClockAndRandomness(t *testing.T) {
	for _, c := range []struct{ builtin, call string }{
		{"http.send", `http.send({"method": "get", "url": "https://example.com"})`},
		{"net.lookup_ip_addr", `net.lookup_ip_addr("example.com")`},
		{"opa.runtime", `opa.runtime()`},
		{"time.now_ns", `time.now_ns()`},
		{"rand.intn", `rand.intn("seed", 10)`},
		{"uuid.rfc4122", `uuid.rfc4122("seed")`},
	} {
		t.Run(c.builtin, func(t *testing.T) {
			if !policy.Refused(c.builtin) {
				t.Errorf("%s is not in the refused set", c.builtin)
			}
			src := "package effectlint.custom.net\n\nfinding contains f if {\n\tx := " + c.call + "\n\tf := {\"rule\": \"N\", \"severity\": \"low\", \"message\": sprintf(\"%v\", [x])}\n}\n"
			_, err := compileUser(t, nil, "net.rego", src)
			want := "net.rego:4:7: rego_type_error: builtin " + c.builtin + " is not allowed"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want it to contain %q", err, want)
			}
		})
	}
}

func TestPolicyErrors_NameFileLineAndColumn(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"syntax", "package effectlint.custom.x\n\nfinding contains f if {\n\tf := {\"rule\": \n}\n", "x.rego:5:1: rego_parse_error"},
		{"unsafe var", "package effectlint.custom.x\n\nfinding contains f if {\n\tf.rule == \"X\"\n}\n", "x.rego:4:2: rego_unsafe_var_error: var f is unsafe"},
		{"type", "package effectlint.custom.x\n\nfinding contains f if {\n\tf := {\"rule\": \"X\", \"severity\": \"low\", \"message\": concat(\",\", 1)}\n}\n", "x.rego:4:51: rego_type_error: concat: invalid argument(s)"},
		{"conflicting rule kinds", "package effectlint.custom.x\n\nhelper := 1\n\nhelper contains 2 if true\n", "rego_type_error: conflicting rules data.effectlint.custom.x.helper found"},
		{"outside the namespace", "package finance\n\nfinding contains 1 if true\n", "x.rego:1:1: rego_compile_error: package finance: user rules live in packages under effectlint.custom"},
		{"the built-in package", "package effectlint\n\nstop contains 1 if true\n", "package effectlint: user rules live in packages under effectlint.custom"},
		{"finding not a set", "package effectlint.custom.x\n\nfinding := {\"rule\": \"X\"}\n", "x.rego:3:1: rego_compile_error: finding must be a partial set rule"},
		{"metadata on finding without an id", "package effectlint.custom.x\n\n# METADATA\n# custom:\n#   severity: high\nfinding contains 1 if true\n", "give custom.rule"},
		{"metadata with a bad severity", "package effectlint.custom.x\n\n# METADATA\n# custom:\n#   rule: X\n#   severity: severe\nfinding contains 1 if true\n", "custom.severity must be critical, high, medium, low or info"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileUser(t, nil, "x.rego", c.src)
			var pe *policy.Error
			if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want a policy.Error containing %q", err, c.want)
			}
		})
	}
}

func TestPolicyErrors_ConflictAtEvaluationNamesTheRule(t *testing.T) {
	src := "package effectlint.custom.x\n\nlevel := \"high\" if true\n\nlevel := \"low\" if true\n\nfinding contains {\"rule\": \"X\", \"severity\": level, \"message\": \"m\"} if true\n"
	e := mustCompile(t, nil, "x.rego", src)
	_, err := e.Analyze(context.Background(), facts(t, incidentDir))
	if err == nil || !strings.Contains(err.Error(), "x.rego:5:1: eval_conflict_error") ||
		!strings.Contains(err.Error(), `"high" at x.rego:3`) {
		t.Errorf("error = %v, want an eval_conflict_error at x.rego:5:1 naming both values", err)
	}
}

func TestPolicyErrors_BuiltinErrorIsRaised(t *testing.T) {
	src := "package effectlint.custom.x\n\nfinding contains {\"rule\": \"X\", \"severity\": \"low\", \"message\": sprintf(\"%d\", [to_number(\"ten\")])} if true\n"
	_, err := mustCompile(t, nil, "x.rego", src).Analyze(context.Background(), facts(t, incidentDir))
	if err == nil || !strings.Contains(err.Error(), "x.rego:3") || !strings.Contains(err.Error(), "to_number") {
		t.Errorf("error = %v, want the failing builtin and its location", err)
	}
}

func TestPolicyErrors_PathThatContributesNoRule(t *testing.T) {
	_, err := compileUser(t, nil, "empty.rego", "package effectlint.custom.empty\n\nimport rego.v1\n")
	if err == nil || !strings.Contains(err.Error(), "policy path p: contributes no rule") {
		t.Errorf("error = %v", err)
	}
}

func TestTimeout_StopsALongEvaluation(t *testing.T) {
	src := "package effectlint.custom.slow\n\nfinding contains {\"rule\": \"SLOW\", \"severity\": \"low\", \"message\": \"m\"} if {\n\tsome i in numbers.range(1, 4000)\n\tsome j in numbers.range(1, 4000)\n\ti * j == -1\n}\n"
	e := mustCompile(t, nil, "slow.rego", src)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Analyze(ctx, facts(t, incidentDir))
	if !errors.Is(err, policy.ErrTimeout) {
		t.Fatalf("error = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("evaluation stopped after %v, want soon after the 100ms deadline", d)
	}
}

func TestLoadData_YAMLAndJSONMergeAtTheRoot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	y := write("finance.yaml", "finance:\n  channels:\n    - C024BE91L\n  limit: 12345678901234567890\n")
	j := write("teams.json", `{"finance": {"owner": "ops"}, "teams": ["a"]}`)
	data, err := policy.LoadData([]string{y, j})
	if err != nil {
		t.Fatal(err)
	}
	e := mustCompile(t, data, "finance.rego", financeRule)
	a, err := e.Analyze(context.Background(), facts(t, incidentDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 6 {
		t.Errorf("YAML data did not reach the rule: %d findings", len(a.Findings))
	}
	fin := data["finance"].(map[string]any)
	if fin["owner"] != "ops" || fin["limit"].(interface{ String() string }).String() != "12345678901234567890" {
		t.Errorf("merged data = %v", data)
	}

	for _, c := range []struct{ body, name, want string }{
		{`{"effectlint": {}}`, "reserved.json", "belongs to the rules"},
		{`{"finance": {"owner": "dev"}}`, "clash.json", "data.finance.owner is already set differently by"},
		{"[1, 2]", "list.json", "must be an object"},
		{"finance: [\n", "broken.yaml", "broken.yaml"},
		{"1: a\n", "intkey.yaml", "not JSON-compatible"},
	} {
		p := write(c.name, c.body)
		if _, err := policy.LoadData([]string{y, j, p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestLoadPolicies_TestFilesOnlyForVerify(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "only_test.rego"), []byte("package effectlint.custom.x_test\n\ntest_x if true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.LoadPolicies([]string{dir}, false); err == nil || !strings.Contains(err.Error(), "contributes no rule") {
		t.Errorf("analyze: error = %v, want contributes no rule", err)
	}
	mods, err := policy.LoadPolicies([]string{dir}, true)
	if err != nil || len(mods) != 1 {
		t.Errorf("verify: %v, %d modules", err, len(mods))
	}
	if _, err := policy.LoadPolicies([]string{filepath.Join(dir, "missing.rego")}, false); err == nil {
		t.Error("a missing path is not an error")
	}
}

func TestCustomPolicy_NamedLikeTheBuiltInRules(t *testing.T) {
	// A user's own ./rules.rego must neither replace nor be mistaken for
	// the built-in rules.rego.
	src := "package effectlint.custom.mine\n\nfinding contains {\"rule\": \"MINE\", \"severity\": \"info\", \"message\": \"m\"} if true\n"
	e := mustCompile(t, nil, "rules.rego", src)
	c := e.Custom()
	if len(c.Finding) != 1 || c.Finding[0].Package != "effectlint.custom.mine" || len(c.Stop) != 0 {
		t.Errorf("custom rules = %+v", c)
	}
	a, err := e.Analyze(context.Background(), facts(t, incidentDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 6 {
		t.Errorf("%d findings, want the incident's 5 and MINE", len(a.Findings))
	}
}
