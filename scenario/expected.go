// Package scenario runs users' recorded scenarios against their expected
// verdicts (`effectlint test`): each case folder holds transcripts and an
// expected.yaml naming the state of every key scope, the findings by rule
// and task, and the gate decisions of listed checks.
package scenario

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/effectlint/effectlint/effect"
	"go.yaml.in/yaml/v3"
)

// ExpectedFile is the name of a case's expectations inside its folder.
// It is not a transcript name, and Run leaves it out of the inputs.
const ExpectedFile = "expected.yaml"

// NoTask stands for a finding without a task (UNREADABLE_HISTORY of a
// file, AMBIGUOUS_DESTINATION, ...).
const NoTask = "-"

// Expected is what a case must give; the same shape holds what it gave.
type Expected struct {
	// States maps each key to its scopes and their states:
	//   states:
	//     "v1|dest=slack/C024BE91L|sha256=56e3…":
	//       original: sent_verified
	States map[string]map[string]string `yaml:"states"`
	// Findings maps each rule to the tasks of its findings, one entry per
	// finding (NoTask for a finding without a task):
	//   findings:
	//     UNCHECKED_CROSSING: [t2, t2]
	Findings map[string]Tasks `yaml:"findings"`
	// Checks are questions to the gate, each with the decision expected.
	Checks []Check `yaml:"checks,omitempty"`
}

// Tasks is a list of task ids, written on one line.
type Tasks []string

// MarshalYAML writes the list in flow style: [t1, t2].
func (t Tasks) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range t {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s})
	}
	return n, nil
}

// Check is one `effectlint check` of a case: the question (task,
// checkpoint, optional intent and replay time) and the answer expected.
type Check struct {
	Task       string `yaml:"task"`
	Checkpoint string `yaml:"checkpoint,omitempty"` // default resume
	// AsOf replays the history up to this RFC 3339 time (--as-of).
	AsOf string `yaml:"as_of,omitempty"`
	// The intent of a task with no history yet (check's intent flags).
	Key           string `yaml:"key,omitempty"`
	Destination   string `yaml:"destination,omitempty"`
	Title         string `yaml:"title,omitempty"`
	File          string `yaml:"file,omitempty"`
	SHA256        string `yaml:"sha256,omitempty"`
	Authorization string `yaml:"authorization,omitempty"`

	Decision string `yaml:"decision"`
	Reasons  Tasks  `yaml:"reasons"`
}

// Question renders the check as the command line that asks it.
func (c Check) Question() string {
	parts := []string{"--task " + c.Task, "--checkpoint " + c.checkpoint()}
	for _, f := range []struct{ flag, v string }{
		{"--as-of", c.AsOf}, {"--key", c.Key}, {"--destination", c.Destination}, {"--title", c.Title},
		{"--file", c.File}, {"--sha256", c.SHA256}, {"--authorization", c.Authorization},
	} {
		if f.v != "" {
			parts = append(parts, f.flag+" "+f.v)
		}
	}
	return strings.Join(parts, " ")
}

func (c Check) checkpoint() string {
	if c.Checkpoint == "" {
		return "resume"
	}
	return c.Checkpoint
}

const header = `# Expected verdicts of this effectlint test case (README, "Scenario tests").
# states: key -> scope -> state; findings: rule -> tasks, one per finding
# ("-": no task); checks: questions to the gate and their decisions.
# ` + "`effectlint test DIR --update`" + ` rewrites this file from the current verdicts.
`

// ReadExpected reads a case's expected.yaml. Unknown fields are errors: a
// misspelt "finding:" must not make a case pass vacuously.
func ReadExpected(path string) (*Expected, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var e Expected
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i, c := range e.Checks {
		if c.Task == "" {
			return nil, fmt.Errorf("%s: check %d has no task", path, i+1)
		}
		if _, err := effect.ParseCheckpoint(c.checkpoint()); err != nil {
			return nil, fmt.Errorf("%s: check %d: %v", path, i+1, err)
		}
	}
	e.normalize()
	return &e, nil
}

// WriteExpected writes e in its canonical, sorted form.
func WriteExpected(path string, e *Expected) error {
	e.normalize()
	var buf bytes.Buffer
	buf.WriteString(header)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(e); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// normalize sorts finding tasks and makes empty maps non-nil, so that
// comparison and writing do not depend on order.
func (e *Expected) normalize() {
	if e.States == nil {
		e.States = map[string]map[string]string{}
	}
	if e.Findings == nil {
		e.Findings = map[string]Tasks{}
	}
	for rule, tasks := range e.Findings {
		if len(tasks) == 0 {
			delete(e.Findings, rule)
			continue
		}
		sort.Strings(tasks)
	}
	for i := range e.Checks {
		if e.Checks[i].Reasons == nil {
			e.Checks[i].Reasons = Tasks{}
		}
	}
}

// Difference is one way a case's verdicts differ from its expectations.
type Difference struct {
	// Subject says what differs: a key scope's state, a rule's findings
	// for a task, or a check.
	Subject  string
	Expected string
	Actual   string
}

// Compare lists how actual differs from expected: per key scope, per
// (rule, task) of findings, per check, in a stable order.
func Compare(expected, actual *Expected) []Difference {
	var out []Difference
	for _, key := range unionKeys(expected.States, actual.States) {
		es, as := expected.States[key], actual.States[key]
		for _, scope := range unionKeys(es, as) {
			e, a := es[scope], as[scope]
			if e == a {
				continue
			}
			out = append(out, Difference{
				Subject:  fmt.Sprintf("state of key %s, scope %s", key, scope),
				Expected: orNone(e, "(no such key scope)"),
				Actual:   orNone(a, "(no such key scope)"),
			})
		}
	}
	for _, rule := range unionKeys(expected.Findings, actual.Findings) {
		ec, ac := counts(expected.Findings[rule]), counts(actual.Findings[rule])
		for _, task := range unionKeys(ec, ac) {
			if ec[task] == ac[task] {
				continue
			}
			subject := fmt.Sprintf("finding %s, task %s", rule, task)
			if task == NoTask {
				subject = fmt.Sprintf("finding %s, no task", rule)
			}
			out = append(out, Difference{Subject: subject, Expected: findingCount(ec[task]), Actual: findingCount(ac[task])})
		}
	}
	for i, c := range expected.Checks {
		if i >= len(actual.Checks) {
			break
		}
		a := actual.Checks[i]
		if c.Decision != a.Decision || strings.Join(c.Reasons, ",") != strings.Join(a.Reasons, ",") {
			out = append(out, Difference{Subject: "check " + c.Question(), Expected: decision(c), Actual: decision(a)})
		}
	}
	return out
}

func decision(c Check) string {
	if len(c.Reasons) == 0 {
		return orNone(c.Decision, "(no decision)")
	}
	return orNone(c.Decision, "(no decision)") + " " + strings.Join(c.Reasons, ", ")
}

func findingCount(n int) string {
	if n == 1 {
		return "1 finding"
	}
	return fmt.Sprintf("%d findings", n)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func counts(tasks Tasks) map[string]int {
	m := map[string]int{}
	for _, t := range tasks {
		m[t]++
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
