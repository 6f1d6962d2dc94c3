package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
	"github.com/effectlint/effectlint/transcripts"
)

// When more tasks are notable than lanes fit, the rest share one lane that
// says how many tasks it holds, and the rows still fit the width.
func TestText_OverflowLaneCountsTheRestAndFits(t *testing.T) {
	r := scaleReport(30)
	for i := range r.Keys[0].Evidence {
		r.Keys[0].Evidence[i].Class = "crossing" // every task notable
	}
	r.Summary = Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}
	for _, width := range []int{80, 100, 140} {
		var b bytes.Buffer
		if err := (textRenderer{opt: Options{Color: "never", Width: width}}).Analyze(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		var header string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  time ") {
				header = l
			}
			if n := len([]rune(l)); n > width {
				t.Errorf("width %d: a line of %d cells: %q", width, n, l)
			}
		}
		lanes := strings.Fields(header)[1:]
		for i, f := range lanes {
			if f == "task" {
				lanes = lanes[:i]
				break
			}
		}
		last := lanes[len(lanes)-1]
		if want := "+" + strconv.Itoa(30-(len(lanes)-1)); last != want {
			t.Errorf("width %d: lanes %v end in %q, want %q", width, lanes, last, want)
		}
		if !strings.Contains(out, "more drawn below") {
			t.Errorf("width %d: the task list is not capped", width)
		}
	}
}

// stateReport has one key scope per state, none with evidence, and one
// not_sent scope with a (low) finding.
func stateReport() *Report {
	r := &Report{Summary: Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}}
	for _, s := range []string{"sent_verified", "send_status_unknown", "in_flight", "not_sent", "open", "not_sent"} {
		r.Keys = append(r.Keys, KeyScope{Key: "v1|dest=slack/" + s + "|" + strconv.Itoa(len(r.Keys)), Scope: "original", State: s,
			Destination: analyzer.Destination{Provider: "slack", ID: fmt.Sprintf("C%d", len(r.Keys)+1)}})
		r.Summary.States[s]++
	}
	key, scope := r.Keys[5].Key, "original"
	r.Findings = []policy.Finding{{Rule: "WEAK_DESTINATION_IDENTITY", Severity: "low", Key: &key, Scope: &scope, Message: "weak"}}
	r.Summary.Findings["low"] = 1
	r.Summary.Keys = len(r.Keys)
	return r
}

func renderText(t *testing.T, r *Report, opt Options) string {
	t.Helper()
	if opt.Color == "" {
		opt.Color = "never"
	}
	var b bytes.Buffer
	if err := (textRenderer{opt: opt}).Analyze(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// By default the text report draws the key scopes a reader must look at:
// those with a finding and those the evidence does not settle
// (send_status_unknown, in_flight, open); a settled scope (sent_verified,
// not_sent) with no finding is left out and counted, with how to show it.
func TestText_ShowFindingsHidesOnlySettledScopesWithoutFindings(t *testing.T) {
	out := renderText(t, stateReport(), Options{Width: 100})
	drawn := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if n, _, ok := strings.Cut(l, " ● "); ok && strings.HasPrefix(n, "K") {
			drawn[n] = true
		}
	}
	// K1 sent_verified and K4 not_sent: settled, no finding. K6 not_sent
	// has a finding. Numbers stay those of the whole report.
	want := map[string]bool{"K2": true, "K3": true, "K5": true, "K6": true}
	if fmt.Sprint(drawn) != fmt.Sprint(want) {
		t.Errorf("drawn %v, want %v\n%s", drawn, want, out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "not drawn: 2 settled key scope(s) with no finding (1 sent_verified and 1 not_sent); --show all draws them") {
		t.Errorf("no line says what was hidden and how to see it:\n%s", out)
	}
	all := renderText(t, stateReport(), Options{Width: 100, Show: ShowAll})
	for i := 1; i <= 6; i++ {
		if !strings.Contains(all, fmt.Sprintf("K%d ● ", i)) {
			t.Errorf("--show all: K%d not drawn", i)
		}
	}
	if strings.Contains(all, "not drawn") {
		t.Errorf("--show all still says scopes were hidden")
	}
}

// A finding with no key (an ambiguous title, an unreadable input) keeps the
// settled scopes it may concern drawn: those of its task, and those with
// an event or a task start in a file its evidence points into.
func TestText_KeylessFindingKeepsTheScopesOfItsFilesAndTaskDrawn(t *testing.T) {
	r := stateReport()
	r.Findings = nil
	r.Keys[0].Tasks = []TaskSummary{{ID: "t1", Start: analyzer.Pointer{File: "a.jsonl", Line: 1}}}
	r.Keys[3].Evidence = []Evidence{{Task: "t9", File: "b.jsonl", Line: 4, Type: "status", Class: "label"}}
	r.Keys[5].Tasks = []TaskSummary{{ID: "t7", Start: analyzer.Pointer{File: "c.jsonl", Line: 1}}}
	t7 := "t7"
	r.Findings = []policy.Finding{
		{Rule: "AMBIGUOUS_DESTINATION", Severity: "medium", Message: "title", Evidence: []analyzer.Pointer{{File: "a.jsonl", Line: 2}, {File: "b.jsonl", Line: 9}}},
		{Rule: "UNREADABLE_HISTORY", Severity: "high", Task: &t7, Message: "task t7 is referenced"},
	}
	out := renderText(t, r, Options{Width: 100})
	for _, k := range []string{"K1 ● ", "K4 ● ", "K6 ● "} {
		if !strings.Contains(out, k) {
			t.Errorf("%s not drawn though a keyless finding may concern it:\n%s", k, out)
		}
	}
	if strings.Contains(out, "not drawn") {
		t.Errorf("a scope was hidden:\n%s", out)
	}
}

// The verdict is the second line and the last one.
func TestText_SummaryComesFirstAndLast(t *testing.T) {
	lines := strings.Split(strings.TrimRight(renderText(t, stateReport(), Options{Width: 160}), "\n"), "\n")
	if !strings.HasPrefix(lines[1], "Summary: PASS: 6 key scope(s)") || lines[1] != lines[len(lines)-1] {
		t.Errorf("summary lines: first %q, last %q", lines[1], lines[len(lines)-1])
	}
}

// The same notice of many inputs is said once, with a count and where.
func TestText_GroupsRepeatedNotices(t *testing.T) {
	r := stateReport()
	for i := 0; i < 160; i++ {
		r.Inputs = append(r.Inputs, transcripts.Input{Path: fmt.Sprintf("/runs/s%03d.jsonl", i), Events: 1,
			Notices: []string{"record types not read: file-history-snapshot and summary"}})
	}
	r.Inputs[7].Notices = append(r.Inputs[7].Notices, "something else")
	r.Inputs[9].Notices = append(r.Inputs[9].Notices, "again", "again", "again")
	out := renderText(t, r, Options{Width: 120})
	if n := strings.Count(out, "record types not read"); n != 1 {
		t.Errorf("the repeated notice is said %d times:\n%s", n, out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "160 × notice: record types not read: file-history-snapshot and summary (in s000.jsonl, s001.jsonl, s002.jsonl and 157 more)") {
		t.Errorf("no grouped notice:\n%s", out)
	}
	if !strings.Contains(out, "3 × notice s009.jsonl: again\n") {
		t.Errorf("a notice repeated in one input is not counted:\n%s", out)
	}
	if !strings.Contains(out, "  notice s007.jsonl: something else") {
		t.Errorf("a notice of one input is not said with its input:\n%s", out)
	}
}

// A finding whose message begins by naming its task does not name it
// again ("task t2: task t2: …"); one whose message does not still does.
func TestText_FindingNamesItsTaskOnce(t *testing.T) {
	r := stateReport()
	t2, key, scope := "t2", r.Keys[5].Key, "original"
	r.Findings = []policy.Finding{
		{Rule: "UNCHECKED_CROSSING", Severity: "high", Key: &key, Scope: &scope, Task: &t2, Message: "task t2: send_fired with no allowing send check earlier in the segment"},
		{Rule: "DUPLICATE_DELIVERY", Severity: "critical", Key: &key, Scope: &scope, Task: &t2, Message: "2 crossing episodes in one key scope"},
		{Rule: "X", Severity: "high", Task: &t2, Message: "task t20 did something"},
	}
	out := renderText(t, r, Options{Width: 140})
	for _, want := range []string{"UNCHECKED_CROSSING: task t2: send_fired", "DUPLICATE_DELIVERY task t2: 2 crossing", "X task t2: task t20 did"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "task t2: task t2:") || strings.Contains(out, "task t2: task t2 ") {
		t.Errorf("a task named twice:\n%s", out)
	}
}

// Colors have a darker twin on light backgrounds (the 256-color orange
// 214 and grey 245 are faint there), and keep the dark ones on dark.
func TestText_ColorsAdaptToTheBackground(t *testing.T) {
	for _, c := range []struct {
		dark       bool
		warn, dim  string
		notW, notD string
	}{
		{true, "38;5;214", "38;5;245", "38;5;130", "38;5;241"},
		{false, "38;5;130", "38;5;241", "38;5;214", "38;5;245"},
	} {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetHasDarkBackground(c.dark)
		st := newStylesOn(r, "always")
		if w := st.warn.Render("x"); !strings.Contains(w, c.warn) || strings.Contains(w, c.notW) {
			t.Errorf("dark=%v: warn renders %q, want %s", c.dark, w, c.warn)
		}
		if d := st.dim.Render("x"); !strings.Contains(d, c.dim) || strings.Contains(d, c.notD) {
			t.Errorf("dark=%v: dim renders %q, want %s", c.dark, d, c.dim)
		}
	}
}

// Long task ids are drawn by their short label; the task list gives the
// full id once.
func TestText_UUIDTasksAreLabelledByAShortPrefix(t *testing.T) {
	a, b := "3f2a9c1e-4b6d-4c1e-9a0b-1c2d3e4f5a6b", "9d0e8f7a-0000-4000-8000-000000000000"
	k := KeyScope{Key: "k", Scope: "original", State: "send_status_unknown"}
	for i, id := range []string{a, b} {
		k.Tasks = append(k.Tasks, TaskSummary{ID: id, Relation: "sibling", Ended: true, Complete: true})
		k.Evidence = append(k.Evidence, Evidence{Seq: i + 1, TS: "2026-11-30T08:00:0" + strconv.Itoa(i) + "Z", Task: id, Type: "send_fired",
			Class: "crossing", File: "/runs/" + id + ".jsonl", Line: 3})
	}
	r := &Report{Keys: []KeyScope{k}, Summary: Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}}
	out := renderText(t, r, Options{Width: 100})
	for _, id := range []string{a, b} {
		if n := strings.Count(out, id+")"); n != 1 {
			t.Errorf("full id %s listed %d times:\n%s", id, n, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "send_fired") && !(strings.Contains(l, " 3f2a9c1e ") || strings.Contains(l, " 9d0e8f7a ")) {
			t.Errorf("timeline row without the task's label: %q", l)
		}
	}
}

// check says the common folder once and shows paths under it, as analyze.
func TestCheckText_ShortensPathsAsAnalyzeDoes(t *testing.T) {
	dir := "/home/someone/incidents/2026-11-30/"
	c := &CheckReport{Decision: "stop", Task: "t2", Checkpoint: "send",
		Inputs: []transcripts.Input{{Path: dir + "t1.jsonl"}, {Path: dir + "t2.jsonl"}},
		Reasons: []CheckReason{{Rule: "KEY_CONSUMED", Message: "the scope is sent_verified by the evidence of task(s) t1",
			Evidence: []analyzer.Pointer{{File: dir + "t1.jsonl", Line: 9}, {File: dir + "t2.jsonl", Line: 2}}}}}
	var b bytes.Buffer
	if err := (textRenderer{opt: Options{Color: "never", Width: 100}}).Check(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, dir) != 1 || !strings.Contains(out, "paths below are under "+dir) || !strings.Contains(out, "at t1.jsonl:9, t2.jsonl:2") {
		t.Errorf("paths not shortened:\n%s", out)
	}
}

// Every line of free text (notices, problems, the hidden-scopes line) fits
// the width, continuation lines included, unless it is one long token.
func TestText_NoticesFitTheWidthWithTheirContinuationLines(t *testing.T) {
	r := stateReport()
	r.Inputs = []transcripts.Input{{Path: "notes.json", Notices: []string{
		`format not recognized (a JSON object with keys "version", "status", "eval", "plan" and "results"): not read; use --input-format or a --profile`}}}
	for w := 60; w <= 120; w++ {
		for _, l := range strings.Split(renderText(t, r, Options{Width: w}), "\n") {
			if n := ansi.StringWidth(l); n > w && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: a line of %d cells: %q", w, n, l)
			}
		}
	}
}

// When long file names (a session named by its UUID) leave no room for the
// events, each task's file is named once, whole, and the rows show line
// numbers: the rows fit the width and no path is cut.
func TestText_LongFileNamesAreNamedOncePerTaskWhenRowsWouldNotFit(t *testing.T) {
	a := "3f2a9c1e-4b6d-4c1e-9a0b-1c2d3e4f5a6b"
	k := KeyScope{Key: "k", Scope: "original", State: "send_status_unknown",
		Tasks: []TaskSummary{{ID: a, Relation: "root", Complete: true}}}
	for i, typ := range []string{"request_sent", "response", "request_sent"} {
		k.Evidence = append(k.Evidence, Evidence{Seq: i + 1, TS: "2026-11-30T08:00:0" + strconv.Itoa(i) + ".123Z", Task: a, Type: typ,
			Class: "crossing", File: "sessions/" + a + ".jsonl", Line: 1000 + i})
	}
	r := &Report{Keys: []KeyScope{k}, Summary: Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}}
	out := renderText(t, r, Options{Width: 80})
	if !strings.Contains(out, "file of   3f2a9c1e  "+a+".jsonl") {
		t.Errorf("the task's file is not named once:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "request_sent") && (ansi.StringWidth(l) > 80 || !strings.HasSuffix(strings.TrimSpace(l), "1000") && !strings.HasSuffix(strings.TrimSpace(l), "1002")) {
			t.Errorf("row %q: over 80 cells or without its line number", l)
		}
	}
	// Wide enough, rows keep their file:line.
	if wide := renderText(t, r, Options{Width: 160}); strings.Contains(wide, "file of") || !strings.Contains(wide, a+".jsonl:1000") {
		t.Errorf("at 160 columns the rows lost their file:line:\n%s", wide)
	}
}
