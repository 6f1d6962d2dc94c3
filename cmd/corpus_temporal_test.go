package cmd

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/transcripts"
)

// The Temporal histories of ../shared/corpus/temporal: every one is read
// without a problem, runs become tasks with their relations, and the
// histories' own activities (model calls, weather lookups, test
// activities) are no deliveries.
func TestCorpus_TemporalHistoriesReadAsRunsWithRelations(t *testing.T) {
	dir := needCorpus(t, "temporal")
	rules := builtinRules(t)
	out, stderr, code := runWith(t, "", rules, "facts", dir)
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	facts := decodeFacts(t, out)
	if len(facts.Inputs) != 8 {
		t.Fatalf("read %d inputs, want the 8 histories", len(facts.Inputs))
	}
	for _, in := range facts.Inputs {
		// The reset history holds its base run's events only up to the
		// reset point, and the base run's own history is not in the
		// corpus: what it did after that point is a problem (fail closed).
		wantProblems := 0
		if strings.HasSuffix(in.Path, "go-reset-workflow-after-child-complete.json") {
			wantProblems = 1
		}
		if in.Format != "temporal" || len(in.Problems) != wantProblems || in.Events == 0 {
			t.Errorf("%s: format %s, %d events, problems %v", in.Path, in.Format, in.Events, in.Problems)
		}
	}
	if len(facts.Scopes) != 0 {
		t.Errorf("%d key scopes: no corpus activity is a delivery", len(facts.Scopes))
	}
	type want struct{ relation, parent, resumes, status, supersededBy string }
	const base, reset, child = "01950160-2559-7b46-8447-568b05b19367", "b64f8938-b361-4a06-8821-a5d5ad8c8992", "01950160-25a1-7459-b37d-fc3f04f31c54"
	for id, w := range map[string]want{
		// reset-workflow-after-child-complete: the history of the new run;
		// events up to the reset are the base run's, which started a child.
		base:  {"root", "", "", "", reset},
		reset: {"resumed", "", base, "completed", ""},
		child: {"unknown", base, "", "", ""},
		// continue-as-new: the run ends by continuing as a new run.
		"bdb5a608-0880-421d-90fb-f85e748d12b4": {"root", "", "", "completed", ""},
		// The Java retry test fails its workflow; the TypeScript one
		// cancels an activity and completes.
		"abdb8767-2b5c-4b1d-bda5-c40581f9eeb5": {"root", "", "", "failed", ""},
		"bc761765-7fca-4d3e-89ff-0fa49379dc7a": {"root", "", "", "completed", ""},
		// An old hand-edited history without run ids is named by its path.
		"temporal:" + dir + "/go-sampleHistory-numeric-ids.json": {"root", "", "", "completed", ""},
	} {
		got, ok := facts.Tasks[id]
		if !ok || got.Relation != w.relation || got.Parent != w.parent || got.Resumes != w.resumes ||
			got.Status != w.status || got.SupersededBy != w.supersededBy {
			t.Errorf("task %s = %+v (present %v), want %+v", id, got, ok, w)
		}
	}
	if c := facts.Tasks[child]; c.History || c.Complete {
		t.Errorf("the child run has no history in the corpus, so it must be incomplete: %+v", c)
	}

	// The one finding: the child run the reset history names is not in the
	// corpus, and whatever it did cannot be ruled out.
	out, _, code = runWith(t, "", rules, "analyze", "--format", "json", dir)
	var rep struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Task     string `json:"task"`
			Evidence []struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"evidence"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The child run without history, at its ChildWorkflowExecutionStarted
	// (line 112), and the base run's life after the reset point (the
	// reset marker, line 230), which only its own history would show.
	var got []string
	for _, f := range rep.Findings {
		for _, e := range f.Evidence {
			got = append(got, fmt.Sprintf("%s %s %d", f.Rule, f.Task, e.Line))
		}
	}
	sort.Strings(got)
	wantFindings := []string{"UNREADABLE_HISTORY  230", "UNREADABLE_HISTORY " + child + " 112"}
	if strings.Join(got, "|") != strings.Join(wantFindings, "|") || code != ExitFindings {
		t.Errorf("findings %v (exit %d), want %v", got, code, wantFindings)
	}
}

// The continue-as-new history names the run that continues it; that run's
// history, read with it, resumes it and supersedes it.
func TestCorpus_TemporalContinueAsNewLinksTheNextRun(t *testing.T) {
	dir := needCorpus(t, "temporal")
	const prev, next = "bdb5a608-0880-421d-90fb-f85e748d12b4", "74f38af0-7c7d-4aae-bc10-6c34ba946693"
	var ended map[string]any
	_, err := transcripts.Read([]string{dir + "/go-continue-as-new.json"}, transcripts.Options{}, func(e transcripts.Event) {
		if e.Type == "task_ended" {
			ended = e.Fields
			ended["line"] = e.Line
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ended["next_run"] != next || ended["status"] != "completed" || ended["line"] != 76 {
		t.Errorf("task_ended = %v, want completed at line 76 with next_run %s", ended, next)
	}

	// The next run's history, as the server writes it for a continued run.
	tmp := t.TempDir()
	nextHistory := fmt.Sprintf(`{"events": [{"eventId": "1", "eventTime": "2022-12-13T23:18:31.9Z", "eventType": "WorkflowExecutionStarted",
 "workflowExecutionStartedEventAttributes": {"workflowType": {"name": "ContinueAsNewWorkflow"}, "taskQueue": {"name": "replay-test"},
 "continuedExecutionRunId": %q, "initiator": "ContinueAsNewInitiatorWorkflow", "originalExecutionRunId": %q, "firstExecutionRunId": %q}}]}`, prev, next, prev)
	if err := os.WriteFile(filepath.Join(tmp, "next.json"), []byte(nextHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runWith(t, "", builtinRules(t), "facts", dir+"/go-continue-as-new.json", filepath.Join(tmp, "next.json"))
	if code != 0 {
		t.Fatalf("facts exit %d: %s", code, stderr)
	}
	facts := decodeFacts(t, out)
	if n, p := facts.Tasks[next], facts.Tasks[prev]; n.Relation != "resumed" || n.Resumes != prev || !n.Complete || p.SupersededBy != next {
		t.Errorf("next run %+v, previous run %+v: want the next run resuming (and superseding) the previous one", n, p)
	}
}

// Real envelopes with a delivery payload put into their activity (on the
// same line, so every line number stays the corpus file's own): the Java
// history's second attempt is two crossings, and the TypeScript history's
// activity, whose start is written after the cancel request, crossed.
func TestCorpus_TemporalActivitiesAsDeliveries(t *testing.T) {
	dir := needCorpus(t, "temporal")
	payload := base64.StdEncoding.EncodeToString([]byte(`{"destination": "slack/C024BE91L", "content_sha256": "56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"}`))
	input := `"input": {"payloads": [{"metadata": {"encoding": "anNvbi9wbGFpbg=="}, "data": "` + payload + `"}]}, `
	cases := []struct {
		file string
		want string // type@line of each delivery event
	}{
		{"java-testAsyncActivityRetryHistory.json", "intent@66 request_sent@92 request_sent@92 response@112"},
		{"ts-cancel_fake_progress_history.json", "intent@64 request_sent@150 response_lost@163"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Replace(string(b), `"activityTaskScheduledEventAttributes": {`, `"activityTaskScheduledEventAttributes": {`+input, 1)
			var got []string
			res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(text)}, func(e transcripts.Event) {
				switch e.Type {
				case "task_started", "task_ended":
				default:
					got = append(got, fmt.Sprintf("%s@%d", e.Type, e.Line))
				}
			})
			if err != nil || len(res.Inputs[0].Problems) != 0 {
				t.Fatalf("err %v problems %+v", err, res.Inputs[0].Problems)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("events %v, want %s", got, c.want)
			}
		})
	}
}
