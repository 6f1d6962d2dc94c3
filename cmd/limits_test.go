package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/report"
	"github.com/effectlint/effectlint/transcripts"
)

// Limits: --max-line-bytes (exists, see the bad-input matrix), --timeout
// (see policy_test.go) and --max-problems: a file of garbage lists at most
// that many problems per input and counts the rest (problems_omitted),
// without holding them in memory, and never lets them out of the verdict:
// problems not listed may have been any task's.

// garbage is a native log: task a's good lines, then n lines that are not
// JSON, then task b's lines that cannot be placed (no ts).
func garbage(n int) string {
	var b strings.Builder
	b.WriteString(`{"ts":"2026-11-30T07:00:00Z","task":"a","type":"task_started","relation":"root"}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T07:00:01Z","task":"a","type":"task_ended","status":"completed"}` + "\n")
	for i := 0; i < n; i++ {
		b.WriteString("garbage\n")
	}
	b.WriteString(`{"task":"b","type":"send_fired"}` + "\n")
	return b.String()
}

func TestLimits_MaxProblemsListsSomeAndCountsTheRest(t *testing.T) {
	analyzeSchema, checkSchema := reportSchemas(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "garbage.jsonl")
	if err := os.WriteFile(path, []byte(garbage(250)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		flags           []string
		listed, omitted int
	}{
		{nil, transcripts.DefaultMaxProblems, 251 - transcripts.DefaultMaxProblems},
		{[]string{"--max-problems", "5"}, 5, 246},
		{[]string{"--max-problems", "0"}, 251, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			out, stderr, code := runWith(t, "", builtinRules(t), append(append([]string{"analyze", "--format", "json"}, c.flags...), path)...)
			if code != ExitFindings {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if err := validate(t, analyzeSchema, "analyze", []byte(out)); err != nil {
				t.Errorf("the report does not validate: %v", err)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			in := rep.Inputs[0]
			if len(in.Problems) != c.listed || in.ProblemsOmitted != c.omitted || rep.Summary.Problems != 251 {
				t.Errorf("listed %d, omitted %d, summary %d; want %d, %d, 251", len(in.Problems), in.ProblemsOmitted, rep.Summary.Problems, c.listed, c.omitted)
			}
			if c.omitted == 0 && strings.Contains(out, "problems_omitted") {
				t.Error("problems_omitted is written when nothing was omitted")
			}
			// Task a's own lines are fine, but the problems not listed
			// may have been a's: a check of a stops.
			out, _, code = runWith(t, "", builtinRules(t), append(append([]string{"check", "--format", "json", "--task", "a", "--destination", "slack/C1", "--sha256", matrixKeySHA}, c.flags...), path)...)
			if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
				t.Errorf("check exits %d, want a stop:\n%s", code, out)
			}
			if err := validate(t, checkSchema, "check", []byte(out)); err != nil {
				t.Errorf("the decision does not validate: %v", err)
			}
		})
	}
	// Every format says that problems were left out.
	for _, f := range report.Formats {
		out, _, _ := runWith(t, "", builtinRules(t), "analyze", "--color", "never", "--format", f, "--max-problems", "5", path)
		out = strings.Join(strings.Fields(out), " ") // text wraps to the width
		want := "246 more problem(s) not listed"
		if f == "text" {
			want = "246 more problem(s)"
		}
		if f != "json" && f != "github" && f != "junit" && !strings.Contains(out, want) {
			t.Errorf("%s does not say %q", f, want)
		}
		if f == "junit" && !strings.Contains(out, `name="problems" value="251"`) {
			t.Errorf("junit does not count every problem")
		}
	}
}

// Only the problems that are not listed fail the run closed: with every
// problem but task b's listed, task a (whose lines are fine) is complete.
func TestLimits_OmittedProblemsFailClosed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.jsonl")
	content := `{"ts":"2026-11-30T07:00:00Z","task":"a","type":"task_started","relation":"root"}` + "\n" +
		`{"ts":"2026-11-30T07:00:01Z","task":"a","type":"task_ended","status":"completed"}` + "\n" +
		`{"task":"b","type":"send_fired"}` + "\n" + `{"task":"b","type":"send_fired"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	check := []string{"check", "--task", "a", "--destination", "slack/C1", "--sha256", matrixKeySHA, path}
	// Both of b's problems listed: b is incomplete, and every check stops
	// (README: every incomplete history stops every check).
	if _, _, code := runWith(t, "", builtinRules(t), check...); code != ExitFindings {
		t.Errorf("check exits %d with b's problems listed, want 1", code)
	}
	// One listed, one omitted: the omitted one makes the whole file
	// incomplete, a's history too.
	out, _, code := runWith(t, "", builtinRules(t), "facts", "--max-problems", "1", path)
	if code != ExitOK {
		t.Fatalf("facts exits %d", code)
	}
	var facts struct {
		Tasks map[string]struct {
			Complete          bool     `json:"complete"`
			IncompleteBecause []string `json:"incomplete_because"`
		} `json:"tasks"`
		Unattributed []any `json:"unattributed_problems"`
	}
	if err := json.Unmarshal([]byte(out), &facts); err != nil {
		t.Fatal(err)
	}
	if facts.Tasks["a"].Complete || len(facts.Unattributed) != 1 {
		t.Errorf("task a %+v, unattributed %v: want a incomplete by the omitted problem", facts.Tasks["a"], facts.Unattributed)
	}
}

func TestLimits_ProblemsDoNotFillMemory(t *testing.T) {
	// Two million lines of garbage: the problems listed stay at the limit,
	// and reading allocates far less than one Problem per line would.
	const n = 2_000_000
	content := strings.Repeat("x\n", n)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(content)}, func(transcripts.Event) {})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	in := res.Inputs[0]
	if len(in.Problems) != transcripts.DefaultMaxProblems || in.ProblemsOmitted != n-transcripts.DefaultMaxProblems || in.OmittedFrom != transcripts.DefaultMaxProblems+1 {
		t.Fatalf("listed %d, omitted %d from line %d", len(in.Problems), in.ProblemsOmitted, in.OmittedFrom)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading %d lines of garbage allocated %d MB", n, alloc>>20)
	}
}

func TestLimits_BadLimitsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"analyze", "--max-problems", "-1", incident},
		{"analyze", "--max-line-bytes", "-1", incident},
		{"check", "--task", "t2", "--max-problems", "-5", incident},
	} {
		_, stderr, code := runWith(t, "", builtinRules(t), args...)
		if code != ExitError || !strings.Contains(stderr, "--max-") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
