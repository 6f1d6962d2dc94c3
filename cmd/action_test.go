package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The GitHub Action (action.yml at the root) passes its inputs to
// effectlint analyze: each input is a flag analyze has, or the action's
// own; the script that builds the command line gives a command line the
// CLI accepts and that judges like the same command typed by hand.

type actionFile struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Outputs     map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Name  string            `yaml:"name"`
			Uses  string            `yaml:"uses"`
			If    string            `yaml:"if"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// flagInputs are the inputs that are analyze's flags of the same name;
// actionInputs the action's own (paths are analyze's arguments).
var (
	flagInputs   = []string{"policy", "data", "baseline", "fail-on"}
	actionInputs = []string{"paths", "sarif-file", "upload-sarif", "category", "version"}
)

func TestAction_InputsAreTheCLIs(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	analyze, _, err := newRoot(Env{}).Find([]string{"analyze"})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range a.Inputs {
		switch {
		case slices.Contains(flagInputs, name):
			if analyze.Flags().Lookup(name) == nil {
				t.Errorf("input %s: analyze has no --%s", name, name)
			}
		case slices.Contains(actionInputs, name):
		default:
			t.Errorf("input %s is neither a flag of analyze nor one of the action's own (%v)", name, actionInputs)
		}
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	for _, name := range append(slices.Clone(flagInputs), actionInputs...) {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("action.yml lost input %s", name)
		}
	}
	if d := a.Inputs["fail-on"].Default; !slices.Contains(completionValues(analyze, "fail-on"), d) {
		t.Errorf("fail-on default %q is not a value --fail-on takes", d)
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, strings.Split(s.Uses, "@")[0])
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %q: a composite run step needs shell bash, has %q", s.Name, s.Shell)
		}
	}
	for _, want := range []string{"actions/setup-go", "github/codeql-action/upload-sarif"} {
		if !slices.Contains(uses, want) {
			t.Errorf("no step uses %s (steps use %v)", want, uses)
		}
	}
}

func TestAction_ItsCommandLineRunsAsTyped(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	a := readAction(t)
	var script string
	for _, s := range a.Runs.Steps {
		if s.ID == "analyze" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("no step with id analyze")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	// A stub effectlint records its arguments, one per line.
	stub := filepath.Join(dir, "bin", "effectlint")
	if err := os.MkdirAll(filepath.Dir(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stub, []byte("#!/bin/sh\n[ \"$1\" = version ] && exit 0\nprintf '%s\\n' \"$@\" > \"$ARGS_FILE\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "baseline.json")
	sarif := filepath.Join(dir, "out.sarif")
	inputs := map[string]string{
		"PATHS":      "examples/cases/incident\nexamples/cases/partner-mail",
		"POLICY":     "examples/policies",
		"DATA":       "examples/data",
		"BASELINE":   base,
		"FAIL_ON":    "high",
		"SARIF_FILE": sarif,
	}
	cmd := exec.Command(bash, "-e", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(stub)+":"+os.Getenv("PATH"),
		"ARGS_FILE="+filepath.Join(dir, "args"), "GITHUB_OUTPUT="+filepath.Join(dir, "output"))
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the analyze step failed (it must report the exit code, not fail): %v\n%s", err, out)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "output"))
	if strings.TrimSpace(string(out)) != "exit-code=1" {
		t.Errorf("GITHUB_OUTPUT %q, want exit-code=1 (the stub's)", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := []string{"analyze", "--fail-on", "high", "--output", "sarif=" + sarif, "--policy", "examples/policies",
		"--data", "examples/data", "--baseline", base, "--", "examples/cases/incident", "examples/cases/partner-mail"}
	if !slices.Equal(args, want) {
		t.Fatalf("the action runs\n  %q\nwant\n  %q", args, want)
	}

	// The same command line, run for real: first the baseline, then the
	// action's run passes and writes SARIF.
	t.Chdir(root)
	if _, stderr, code := run(t, "analyze", "--policy", "examples/policies", "--data", "examples/data",
		"--write-baseline", base, "examples/cases/incident", "examples/cases/partner-mail"); code != ExitOK {
		t.Fatalf("writing the baseline: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, args...); code != ExitOK {
		t.Errorf("the action's command line: exit %d, want 0 (every finding in the baseline): %s", code, stderr)
	}
	if _, err := os.Stat(sarif); err != nil {
		t.Errorf("no SARIF written: %v", err)
	}
	// Without the baseline the same findings fail the job.
	i := slices.Index(args, "--baseline")
	if _, _, code := run(t, append(slices.Clone(args[:i]), args[i+2:]...)...); code != ExitFindings {
		t.Errorf("without the baseline: exit %d, want 1", code)
	}
}
