package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare_NamesKeyScopeRuleTaskAndCheck(t *testing.T) {
	exp := &Expected{
		States:   map[string]map[string]string{"k1": {"original": "not_sent"}, "k2": {"original": "open"}},
		Findings: map[string]Tasks{"UNCHECKED_CROSSING": {"t2", "t2"}, "WEAK_DESTINATION_IDENTITY": {"t1"}},
		Checks:   []Check{{Task: "t2", AsOf: "2026-11-30T08:09:59Z", Decision: "allow", Reasons: Tasks{"ELECTED_EXECUTOR"}}},
	}
	act := &Expected{
		States:   map[string]map[string]string{"k1": {"original": "sent_verified", "auth-1": "open"}},
		Findings: map[string]Tasks{"UNCHECKED_CROSSING": {"t2"}, "UNREADABLE_HISTORY": {NoTask}, "WEAK_DESTINATION_IDENTITY": {"t1"}},
		Checks:   []Check{{Task: "t2", AsOf: "2026-11-30T08:09:59Z", Decision: "stop", Reasons: Tasks{"KEY_CONSUMED"}}},
	}
	exp.normalize()
	act.normalize()
	var got []string
	for _, d := range Compare(exp, act) {
		got = append(got, d.Subject+" | "+d.Expected+" | "+d.Actual)
	}
	want := []string{
		"state of key k1, scope auth-1 | (no such key scope) | open",
		"state of key k1, scope original | not_sent | sent_verified",
		"state of key k2, scope original | open | (no such key scope)",
		"finding UNCHECKED_CROSSING, task t2 | 2 findings | 1 finding",
		"finding UNREADABLE_HISTORY, no task | 0 findings | 1 finding",
		"check --task t2 --checkpoint resume --as-of 2026-11-30T08:09:59Z | allow ELECTED_EXECUTOR | stop KEY_CONSUMED",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := Compare(exp, exp); len(d) != 0 {
		t.Errorf("an expectation differs from itself: %v", d)
	}
}

func TestExpected_WriteThenReadIsTheSame(t *testing.T) {
	p := filepath.Join(t.TempDir(), ExpectedFile)
	e := &Expected{
		States:   map[string]map[string]string{"v1|dest=slack/C1|sha256=00": {"original": "sent_verified"}},
		Findings: map[string]Tasks{"UNCHECKED_CROSSING": {"t2", "t1"}, "AMBIGUOUS_DESTINATION": {NoTask}},
		Checks:   []Check{{Task: "t2", Checkpoint: "send", Decision: "stop", Reasons: Tasks{"KEY_CONSUMED", "ALREADY_CROSSED"}}},
	}
	if err := WriteExpected(p, e); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	for _, want := range []string{"UNCHECKED_CROSSING: [t1, t2]", "AMBIGUOUS_DESTINATION: ['-']", "reasons: [KEY_CONSUMED, ALREADY_CROSSED]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("written file lacks %q:\n%s", want, b)
		}
	}
	back, err := ReadExpected(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(e, back); len(d) != 0 {
		t.Errorf("read back differs: %v", d)
	}
}

func TestReadExpected_RejectsUnknownFieldsAndBadChecks(t *testing.T) {
	for name, body := range map[string]string{
		"misspelt section": "finding:\n  X: [t1]\n",
		"check field":      "checks:\n  - task: t1\n    decison: allow\n",
		"no task":          "checks:\n  - checkpoint: send\n",
		"bad checkpoint":   "checks:\n  - task: t1\n    checkpoint: click\n",
	} {
		p := filepath.Join(t.TempDir(), ExpectedFile)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadExpected(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
