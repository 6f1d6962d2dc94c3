package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/report"
	"github.com/effectlint/effectlint/scenario"
)

// TestGate_CLIScenarioRunnerAndAThirdCallerDecideAlike: one gate serves
// every caller. For every scenario, every task of its history and every
// checkpoint, the CLI's `check --format json`, the scenario runner and a
// caller that only uses gate.New and Check give the same decision — the
// CLI and the third caller byte for byte.
func TestGate_CLIScenarioRunnerAndAThirdCallerDecideAlike(t *testing.T) {
	t.Parallel() // no working folder or environment of its own (docs/testing.md)
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	root, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := os.ReadDir(filepath.Join(root, "scenarios"))
	asked := 0
	for _, de := range dirs {
		name := de.Name()
		var exp expectation
		if b, err := os.ReadFile(filepath.Join(root, "expect", name+".json")); err == nil {
			if err := json.Unmarshal(b, &exp); err != nil {
				t.Fatal(err)
			}
		}
		if len(exp.Flags) > 0 {
			continue // a --profile of its own: the CLI's flags, not the gate's defaults
		}
		dir := filepath.Join(root, "scenarios", name)
		third, err := gate.New(context.Background(), gate.WithIgnore(scenario.IsExpected))
		if err != nil {
			t.Fatal(err)
		}
		facts, err := third.Facts([]string{dir})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var tasks []string
		for id, tk := range facts.Tasks {
			if tk.History {
				tasks = append(tasks, id)
			}
		}
		sort.Strings(tasks)
		var questions []scenario.Check
		for _, task := range append(tasks, "t-new") {
			for _, cp := range []string{"resume", "picker", "send"} {
				questions = append(questions, scenario.Check{Task: task, Checkpoint: cp})
			}
		}
		viaRunner, err := scenario.Run(scenario.Case{Dir: dir}, questions, scenario.Options{Gate: third})
		if err != nil {
			t.Fatalf("%s: the scenario runner: %v", name, err)
		}
		json1, _ := report.Get("json", report.Options{Color: "never"})
		for i, q := range questions {
			cli, _, code := run(t, "check", "--format", "json", "--task", q.Task, "--checkpoint", q.Checkpoint, dir)
			d := third.Check(context.Background(), gate.Request{Task: q.Task, Checkpoint: q.Checkpoint, Paths: []string{dir}})
			if d.Err != nil {
				t.Fatalf("%s %s at %s: %v", name, q.Task, q.Checkpoint, d.Err)
			}
			var buf bytes.Buffer
			if err := json1.Check(&buf, d.CheckReport); err != nil {
				t.Fatal(err)
			}
			if buf.String() != cli {
				t.Errorf("%s: check --task %s --checkpoint %s: the CLI and the gate differ:\n%s\n%s", name, q.Task, q.Checkpoint, cli, buf.String())
			}
			if wantCode := map[bool]int{true: ExitOK, false: ExitFindings}[d.Allowed()]; code != wantCode {
				t.Errorf("%s: check %s %s exits %d, the gate says %s", name, q.Task, q.Checkpoint, code, d.Decision)
			}
			var rules []string
			for _, r := range d.Reasons {
				rules = append(rules, r.Rule)
			}
			got := viaRunner.Checks[i]
			if got.Decision != d.Decision || strings.Join(got.Reasons, ",") != strings.Join(rules, ",") {
				t.Errorf("%s: %s at %s: the runner says %s %v, the gate %s %v", name, q.Task, q.Checkpoint, got.Decision, got.Reasons, d.Decision, rules)
			}
			asked++
		}
	}
	if asked < 300 {
		t.Errorf("asked %d questions, want the tasks of every scenario at every checkpoint", asked)
	}
}
