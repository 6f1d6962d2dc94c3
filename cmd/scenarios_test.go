package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/effectlint/effectlint/policy/builtin"
)

// Scenario tests: every folder of testdata/scenarios is a recorded history.
// testdata/expect/<name>.json says, by hand and from SPEC.md, what the
// verdicts must be (states, findings, gate decisions); those are asserted
// first. The whole outputs are then compared with goldens in
// testdata/golden/<name>/ (refresh with GOLDIE_UPDATE=1, then read the diff).

type expectation struct {
	About string `json:"about"`
	// Flags are given to every command of the scenario (e.g. --profile).
	Flags    []string `json:"flags"`
	Exit     int      `json:"exit"`
	Scopes   []scope  `json:"scopes"`
	Findings []string `json:"findings"` // "RULE task", "-" for no task
	Checks   []struct {
		Name     string   `json:"name"`
		Args     []string `json:"args"`
		Decision string   `json:"decision"`
		Reasons  []string `json:"reasons"`
	} `json:"checks"`
}

type scope struct {
	Destination string `json:"destination"` // provider/id or title:<title>
	Scope       string `json:"scope"`
	State       string `json:"state"`
}

// run runs effectlint in-process and returns stdout, stderr and exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

// builtinRules is the built-in policy's source (policy/builtin): what
// runWith compares with to know that a test asks for the built-in rules.
func builtinRules(t *testing.T) string {
	t.Helper()
	return builtin.Rules
}

func TestScenarios(t *testing.T) {
	builtinRules(t)
	// The text report fits COLUMNS; goldens are drawn 100 wide.
	t.Setenv("COLUMNS", "100")
	root, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadDir(filepath.Join(root, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 8 {
		t.Fatalf("found %d scenarios, want at least the eight incident situations", len(dirs))
	}
	for _, d := range dirs {
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			var exp expectation
			b, err := os.ReadFile(filepath.Join(root, "expect", name+".json"))
			if err != nil {
				t.Fatalf("every scenario needs hand-written expectations: %v", err)
			}
			if err := json.Unmarshal(b, &exp); err != nil {
				t.Fatalf("expect/%s.json: %v", name, err)
			}
			// Run inside the scenario so that reported paths are short and
			// the same on every machine.
			t.Chdir(filepath.Join(root, "scenarios", name))
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(root, "golden", name)), goldie.WithNameSuffix(".golden"))

			withFlags := func(args ...string) []string {
				return append(append(args[:1:1], exp.Flags...), args[1:]...)
			}
			out, stderr, code := run(t, withFlags("analyze", "--format", "json", ".")...)
			if code != exp.Exit {
				t.Errorf("analyze exit = %d, want %d (stderr %q)", code, exp.Exit, stderr)
			}
			assertVerdicts(t, out, exp)
			g.Assert(t, "analyze.json", []byte(out))

			text, _, textCode := run(t, withFlags("analyze", "--color", "never", ".")...)
			if textCode != code {
				t.Errorf("text analyze exit %d differs from json %d", textCode, code)
			}
			g.Assert(t, "analyze.txt", []byte(text))

			for _, c := range exp.Checks {
				args := withFlags(append([]string{"check", "--format", "json"}, c.Args...)...)
				out, stderr, code := run(t, append(args, ".")...)
				wantCode := ExitFindings
				if c.Decision == "allow" {
					wantCode = ExitOK
				}
				if code != wantCode {
					t.Errorf("check %s: exit %d, want %d (stderr %q)", c.Name, code, wantCode, stderr)
				}
				var got struct {
					Decision string `json:"decision"`
					Reasons  []struct {
						Rule string `json:"rule"`
					} `json:"reasons"`
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("check %s: output is not JSON: %v\n%s", c.Name, err, out)
				}
				var rules []string
				for _, r := range got.Reasons {
					rules = append(rules, r.Rule)
				}
				if got.Decision != c.Decision || strings.Join(rules, ",") != strings.Join(c.Reasons, ",") {
					t.Errorf("check %s: %s %v, want %s %v", c.Name, got.Decision, rules, c.Decision, c.Reasons)
				}
				g.Assert(t, "check-"+c.Name+".json", []byte(out))
				text, _, _ := run(t, withFlags(append([]string{"check", "--color", "never"}, append(c.Args, ".")...)...)...)
				g.Assert(t, "check-"+c.Name+".txt", []byte(text))
			}
		})
	}
}

func assertVerdicts(t *testing.T, out string, exp expectation) {
	t.Helper()
	var rep struct {
		Keys []struct {
			Scope       string `json:"scope"`
			State       string `json:"state"`
			Destination struct {
				Provider, ID, Title string
			} `json:"destination"`
		} `json:"keys"`
		Findings []struct {
			Rule string  `json:"rule"`
			Task *string `json:"task"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("analyze output is not JSON: %v\n%s", err, out)
	}
	var gotScopes, wantScopes []string
	for _, k := range rep.Keys {
		dest := k.Destination.Provider + "/" + k.Destination.ID
		if k.Destination.Provider == "" {
			dest = "title:" + strings.ToLower(k.Destination.Title)
		}
		gotScopes = append(gotScopes, dest+" "+k.Scope+" "+k.State)
	}
	for _, s := range exp.Scopes {
		wantScopes = append(wantScopes, s.Destination+" "+s.Scope+" "+s.State)
	}
	assertSameMultiset(t, "key scopes", gotScopes, wantScopes)
	var gotFindings []string
	for _, f := range rep.Findings {
		task := "-"
		if f.Task != nil {
			task = *f.Task
		}
		gotFindings = append(gotFindings, f.Rule+" "+task)
	}
	assertSameMultiset(t, "findings", gotFindings, exp.Findings)
}

func assertSameMultiset(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := append([]string{}, got...), append([]string{}, want...)
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("%s:\n got  %q\n want %q", what, g, w)
	}
}

// TestScenarios_CoverEveryFindingAndGateReason keeps the scenario suite
// honest: each finding id of SPEC §6 (as the rules' METADATA lists them) and
// each gate reason of SPEC §5 is expected by at least one scenario.
func TestScenarios_CoverEveryFindingAndGateReason(t *testing.T) {
	g, err := newGate(Env{}, &commonFlags{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := g.Engine()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, r := range eng.Rules() {
		want[r.ID] = true
	}
	if len(want) != 14 {
		t.Errorf("the rules describe %d finding ids, SPEC §6 has 14", len(want))
	}
	for _, r := range []string{"UNKNOWN_TASK", "NO_KEY", "HISTORY_UNREADABLE", "UNKEYED_CROSSING", "UNKNOWN_AUTHORIZATION", "KEY_CONSUMED",
		"ALREADY_CROSSED", "NOT_ELECTED", "NO_MATCHING_HISTORY", "PRIOR_NOT_SENT", "ELECTED_EXECUTOR", "AUTHORIZED_REDELIVERY"} {
		want["gate "+r] = true
	}
	files, _ := filepath.Glob("../testdata/expect/*.json")
	for _, f := range files {
		var exp expectation
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &exp); err != nil {
			t.Fatal(err)
		}
		for _, fd := range exp.Findings {
			delete(want, strings.Fields(fd)[0])
		}
		for _, c := range exp.Checks {
			for _, r := range c.Reasons {
				delete(want, "gate "+r)
			}
		}
	}
	for missing := range want {
		t.Errorf("no scenario expects %s", missing)
	}
}
