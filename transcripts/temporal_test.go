package transcripts

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// A history is written one event per line, so event i (from 1) is on line
// i+1: evidence pointers can be checked exactly.
type hev struct {
	typ   string // PascalCase
	attrs string // JSON object text, ids written as {{id N}}
}

type spelling struct {
	screaming bool // EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
	numeric   bool // eventId: 5 instead of "5"
}

var idRef = regexp.MustCompile(`\{\{id (\d+)\}\}`)
var camelWord = regexp.MustCompile(`[A-Z][a-z]*`)

func history(sp spelling, evs ...hev) string {
	var b strings.Builder
	b.WriteString(`{"events": [` + "\n")
	t0 := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	for i, e := range evs {
		id := func(n string) string {
			if sp.numeric {
				return n
			}
			return `"` + n + `"`
		}
		typ := e.typ
		if sp.screaming {
			typ = "EVENT_TYPE_" + strings.ToUpper(strings.Join(camelWord.FindAllString(e.typ, -1), "_"))
		}
		attrs := idRef.ReplaceAllStringFunc(e.attrs, func(m string) string { return id(idRef.FindStringSubmatch(m)[1]) })
		key := strings.ToLower(e.typ[:1]) + e.typ[1:] + "EventAttributes"
		fmt.Fprintf(&b, `{"eventId": %s, "eventTime": %q, "eventType": %q, "taskId": "1048%03d", %q: %s}`,
			id(fmt.Sprint(i+1)), t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), typ, i, key, attrs)
		if i < len(evs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.String()
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const jsonPlain = "anNvbi9wbGFpbg==" // base64 of json/plain

func wfStarted(extra string) hev {
	return hev{"WorkflowExecutionStarted", `{"workflowType": {"name": "Report"}, "taskQueue": {"name": "q", "kind": "Normal"},` +
		` "originalExecutionRunId": "run-1", "firstExecutionRunId": "run-1", "attempt": 1` + extra + `}`}
}

func scheduled(activityID, payload string) hev {
	return hev{"ActivityTaskScheduled", fmt.Sprintf(`{"activityId": %q, "activityType": {"name": "SendReport"},`+
		` "input": {"payloads": [{"metadata": {"encoding": %q}, "data": %q}]}, "workflowTaskCompletedEventId": {{id 4}}}`,
		activityID, jsonPlain, b64(payload))}
}

func started(sched, attempt int) hev {
	return hev{"ActivityTaskStarted", fmt.Sprintf(`{"scheduledEventId": {{id %d}}, "identity": "w@host", "attempt": %d}`, sched, attempt)}
}

func closeEv(typ string, sched, started int, extra string) hev {
	return hev{typ, fmt.Sprintf(`{"scheduledEventId": {{id %d}}, "startedEventId": {{id %d}}%s}`, sched, started, extra)}
}

var wfTask = []hev{
	{"WorkflowTaskScheduled", `{"taskQueue": {"name": "q"}, "startToCloseTimeout": "10s", "attempt": 1}`},
	{"WorkflowTaskStarted", `{"scheduledEventId": {{id 2}}, "identity": "w@host"}`},
	{"WorkflowTaskCompleted", `{"scheduledEventId": {{id 2}}, "startedEventId": {{id 3}}}`},
}

const delivery = `{"destination": {"provider": "slack", "id": "C024BE91L", "title": "#reports"}, "content_sha256": "56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"}`

func wf(extra string, rest ...hev) []hev {
	return append(append([]hev{wfStarted(extra)}, wfTask...), rest...)
}

// readTemporalText reads histories (name → text) from a temporary folder
// and returns the inputs and events as "line type k=v ..." strings.
func readTemporalText(t *testing.T, files map[string]string) ([]Input, []string) {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	var out []string
	res, err := Read([]string{dir}, Options{}, func(e Event) {
		s := fmt.Sprintf("%s:%d %s %s", filepath.Base(e.File), e.Line, e.Task, e.Type)
		var keys []string
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "event_id", "detail", "activity", "activity_id", "workflow_type", "temporal_close":
				continue
			}
			v := e.Fields[k]
			if m, ok := v.(map[string]any); ok {
				var parts []string
				for _, mk := range []string{"provider", "id", "title", "sha256"} {
					if mv, ok := m[mk]; ok {
						parts = append(parts, fmt.Sprintf("%.12v", mv))
					}
				}
				v = strings.Join(parts, "/")
			}
			s += fmt.Sprintf(" %s=%v", k, v)
		}
		out = append(out, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range res.Inputs {
		if in.Format != FormatTemporal {
			t.Fatalf("%s read as %s", in.Path, in.Format)
		}
	}
	return res.Inputs, out
}

func TestTemporal_ActivityOutcomes(t *testing.T) {
	const intent = "h.json:6 run-1 intent content=56e3374fadd3 destination=slack/C024BE91L/#reports intent=activity:5"
	done := hev{"WorkflowExecutionCompleted", `{"workflowTaskCompletedEventId": {{id 4}}}`}
	cases := []struct {
		name   string
		events []hev
		want   []string // after task_started and the intent
		ended  bool
	}{
		{"completed: crossed and confirmed",
			[]hev{scheduled("a1", delivery), started(5, 1), closeEv("ActivityTaskCompleted", 5, 6, ""), done},
			[]string{"h.json:7 run-1 request_sent attempt=1 intent=activity:5", "h.json:8 run-1 response intent=activity:5 ok=true"}, true},
		{"third attempt: three crossing episodes",
			[]hev{scheduled("a1", delivery), started(5, 3), closeEv("ActivityTaskCompleted", 5, 6, ""), done},
			[]string{"h.json:7 run-1 request_sent attempt=1 intent=activity:5", "h.json:7 run-1 request_sent attempt=2 intent=activity:5",
				"h.json:7 run-1 request_sent attempt=3 intent=activity:5", "h.json:8 run-1 response intent=activity:5 ok=true"}, true},
		{"failed after a start: crossed, not confirmed",
			[]hev{scheduled("a1", delivery), started(5, 1), closeEv("ActivityTaskFailed", 5, 6, `, "failure": {"message": "503"}`), done},
			[]string{"h.json:7 run-1 request_sent attempt=1 intent=activity:5", "h.json:8 run-1 response intent=activity:5 ok=false"}, true},
		{"start-to-close timeout: crossed, timed out",
			[]hev{scheduled("a1", delivery), started(5, 1),
				closeEv("ActivityTaskTimedOut", 5, 6, `, "failure": {"timeoutFailureInfo": {"timeoutType": "TIMEOUT_TYPE_START_TO_CLOSE"}}`)},
			[]string{"h.json:7 run-1 request_sent attempt=1 intent=activity:5", "h.json:8 run-1 timeout intent=activity:5"}, false},
		{"schedule-to-start timeout: never started, not crossed",
			[]hev{scheduled("a1", delivery),
				closeEv("ActivityTaskTimedOut", 5, 0, `, "failure": {"timeoutFailureInfo": {"timeoutType": "ScheduleToStart"}}`), done},
			nil, true},
		{"schedule-to-start timeout after a failed attempt: crossed",
			[]hev{scheduled("a1", delivery),
				closeEv("ActivityTaskTimedOut", 5, 0, `, "failure": {"timeoutFailureInfo": {"timeoutType": "TIMEOUT_TYPE_SCHEDULE_TO_START"}, "cause": {"message": "503"}}`), done},
			[]string{"h.json:7 run-1 request_sent intent=activity:5", "h.json:7 run-1 timeout intent=activity:5"}, true},
		{"schedule-to-close timeout with no start recorded: an attempt may have run",
			[]hev{scheduled("a1", delivery),
				closeEv("ActivityTaskTimedOut", 5, 0, `, "failure": {"timeoutFailureInfo": {"timeoutType": "TIMEOUT_TYPE_SCHEDULE_TO_CLOSE"}}`), done},
			[]string{"h.json:7 run-1 request_sent intent=activity:5", "h.json:7 run-1 timeout intent=activity:5"}, true},
		{"cancelled before it started: not crossed",
			[]hev{scheduled("a1", delivery), {"ActivityTaskCancelRequested", `{"scheduledEventId": {{id 5}}}`},
				closeEv("ActivityTaskCanceled", 5, 0, `, "latestCancelRequestedEventId": {{id 6}}`), done},
			nil, true},
		{"cancelled, with the start written after the cancel request: crossed",
			[]hev{scheduled("a1", delivery), {"ActivityTaskCancelRequested", `{"scheduledEventId": {{id 5}}}`}, started(5, 1),
				closeEv("ActivityTaskCanceled", 5, 7, `, "latestCancelRequestedEventId": {{id 6}}`), done},
			[]string{"h.json:8 run-1 request_sent attempt=1 intent=activity:5", "h.json:9 run-1 response_lost intent=activity:5"}, true},
		{"scheduled, no close: an unconcluded crossing",
			[]hev{scheduled("a1", delivery)},
			[]string{"h.json:6 run-1 request_sent intent=activity:5"}, false},
		{"scheduled, no close, workflow completed: still a crossing",
			[]hev{scheduled("a1", delivery), done},
			[]string{"h.json:6 run-1 request_sent intent=activity:5"}, true},
	}
	for _, c := range cases {
		for _, sp := range []spelling{{}, {screaming: true}, {numeric: true}, {screaming: true, numeric: true}} {
			t.Run(fmt.Sprintf("%s/%+v", c.name, sp), func(t *testing.T) {
				ins, got := readTemporalText(t, map[string]string{"h.json": history(sp, wf("", c.events...)...)})
				if len(ins[0].Problems) != 0 {
					t.Fatalf("problems: %+v", ins[0].Problems)
				}
				want := append([]string{"h.json:2 run-1 task_started relation=root", intent}, c.want...)
				if c.ended {
					want = append(want, fmt.Sprintf("h.json:%d run-1 task_ended status=completed", len(c.events)+5))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

func TestTemporal_Payloads(t *testing.T) {
	sha := "56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"
	cases := []struct {
		name, payload string
		want          string // the intent's destination and content, "" for no delivery
	}{
		{"destination as provider/id and content.sha256", `{"destination": "slack/C024BE91L", "content": {"sha256": "` + sha + `", "name": "r.pdf"}}`,
			"content=56e3374fadd3 destination=slack/C024BE91L"},
		{"a destination with a title only", `{"destination": "#reports", "content_sha256": "` + sha + `"}`,
			"content=56e3374fadd3 destination=#reports"},
		{"a JSON string holding the object (tool arguments)", fmt.Sprintf("%q", `{"destination": "slack/C1", "content_sha256": "`+sha+`"}`),
			"content=56e3374fadd3 destination=slack/C1"},
		// A destination makes a delivery whatever its content's form (third
		// adversarial review: content.path, a top-level sha256, a text were
		// no evidence at all); with no content at all, one with no key.
		{"a text: its bytes", `{"destination": "slack/C1", "text": "hi"}`, "content=8f434346648f destination=slack/C1"},
		{"a content path", `{"destination": "slack/C1", "content": {"path": "report.txt"}}`, "content= destination=slack/C1"}, // (the path, hashed by the analyzer)
		{"the digest as sha256", `{"destination": "slack/C1", "sha256": "` + sha + `"}`, "content=56e3374fadd3 destination=slack/C1"},
		{"no content: a delivery with no key", `{"destination": "slack/C1", "count": 3}`, "content= destination=slack/C1"},
		// Two readings of the content that disagree (fourth review): keyed
		// by neither, and a problem (TestTemporal_ContentGivenTwiceDifferently).
		{"two digests that disagree", `{"destination": "slack/C1", "content_sha256": "` + sha + `", "sha256": "` + strings.Repeat("0", 64) + `"}`, "content= destination=slack/C1"},
		{"not an object", `"Tokyo"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got := readTemporalText(t, map[string]string{"h.json": history(spelling{}, wf("", scheduled("a1", c.payload))...)})
			var intents []string
			for _, g := range got {
				if f := strings.Fields(g); f[2] == "intent" {
					intents = append(intents, f[3]+" "+f[4])
				}
			}
			want := []string{}
			if c.want != "" {
				want = []string{c.want}
			}
			if strings.Join(intents, ",") != strings.Join(want, ",") {
				t.Errorf("intents %v, want %v (events %v)", intents, want, got)
			}
		})
	}

	// An encrypted payload is not inspected, and says so.
	enc := strings.Replace(history(spelling{}, wf("", scheduled("a1", delivery))...), jsonPlain, b64("binary/encrypted"), 1)
	ins, got := readTemporalText(t, map[string]string{"h.json": enc})
	if len(got) != 1 || len(ins[0].Notices) != 1 || !strings.Contains(ins[0].Notices[0], "binary/encrypted") {
		t.Errorf("encrypted payload: events %v notices %v", got, ins[0].Notices)
	}
}

func TestTemporal_RunsAndRelations(t *testing.T) {
	run2 := strings.NewReplacer(`"originalExecutionRunId": "run-1"`, `"originalExecutionRunId": "run-2"`)
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"continue-as-new: the run ends, the next run resumes it",
			map[string]string{
				"a.json": history(spelling{}, wf("", hev{"WorkflowExecutionContinuedAsNew", `{"newExecutionRunId": "run-2", "workflowTaskCompletedEventId": {{id 4}}}`})...),
				"b.json": run2.Replace(history(spelling{}, wf(`, "continuedExecutionRunId": "run-1", "initiator": "CONTINUE_AS_NEW_INITIATOR_WORKFLOW"`)...)),
			},
			[]string{"a.json:2 run-1 task_started relation=root",
				"a.json:6 run-1 task_ended next_run=run-2 status=completed",
				"b.json:2 run-2 task_started relation=resumed resumes=run-1"}},
		{"child workflow: the parent spawns the child run, the child names its parent",
			map[string]string{
				"parent.json": history(spelling{}, wf("",
					hev{"StartChildWorkflowExecutionInitiated", `{"workflowId": "child-wf", "workflowType": {"name": "Child"}}`},
					hev{"ChildWorkflowExecutionStarted", `{"initiatedEventId": {{id 5}}, "workflowExecution": {"workflowId": "child-wf", "runId": "run-2"}}`})...),
				"child.json": run2.Replace(history(spelling{}, wf(`, "parentWorkflowExecution": {"workflowId": "parent-wf", "runId": "run-1"}`)...)),
			},
			[]string{"child.json:2 run-2 task_started parent=run-1 relation=child",
				"parent.json:2 run-1 task_started relation=root", "parent.json:7 run-1 task_spawned child=run-2 workflow_id=child-wf"}},
		{"reset: earlier events are the base run's, later ones the new run's; read twice, counted once",
			map[string]string{
				"base.json": history(spelling{}, wf("", scheduled("a1", delivery), started(5, 1), closeEv("ActivityTaskCompleted", 5, 6, ""),
					hev{"WorkflowExecutionTerminated", `{"reason": "reset"}`})...),
				"new.json": history(spelling{}, wf("", scheduled("a1", delivery), started(5, 1), closeEv("ActivityTaskCompleted", 5, 6, ""),
					hev{"WorkflowTaskFailed", `{"scheduledEventId": {{id 2}}, "cause": "WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW", "baseRunId": "run-1", "newRunId": "run-9"}`},
					hev{"WorkflowExecutionCompleted", `{}`})...),
			},
			[]string{"base.json:2 run-1 task_started relation=root",
				"base.json:6 run-1 intent content=56e3374fadd3 destination=slack/C024BE91L/#reports intent=activity:5",
				"base.json:7 run-1 request_sent attempt=1 intent=activity:5", "base.json:8 run-1 response intent=activity:5 ok=true",
				"base.json:9 run-1 task_ended status=cancelled",
				"new.json:9 run-9 task_started relation=resumed reset=true resumes=run-1",
				"new.json:10 run-9 task_ended status=completed"}},
		{"no run id anywhere: the path names the run",
			map[string]string{"old.json": strings.Replace(history(spelling{numeric: true}, wf("")...), `"originalExecutionRunId": "run-1", "firstExecutionRunId": "run-1", `, "", 1)},
			[]string{"old.json:2 temporal:" + "DIR/old.json task_started relation=root"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, got := readTemporalText(t, c.files)
			for _, in := range ins {
				if len(in.Problems) != 0 {
					t.Errorf("%s: problems %+v", in.Path, in.Problems)
				}
			}
			dir := filepath.ToSlash(filepath.Dir(ins[0].Path))
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], dir, "DIR")
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestTemporal_IncompleteHistoriesAreProblems(t *testing.T) {
	full := wf("", scheduled("a1", delivery), started(5, 1))
	cases := []struct {
		name, text string
		line       int
		task       string
		has        string
	}{
		{"the first events are missing", `{"events": [` + "\n" +
			`{"eventId": "5", "eventTime": "2026-11-29T18:00:00Z", "eventType": "ActivityTaskScheduled", "activityTaskScheduledEventAttributes": {}}` + "\n]}",
			2, "temporal:DIR/h.json", "earlier events are missing"},
		{"a gap", strings.Replace(history(spelling{}, full...), `"eventId": "3"`, `"eventId": "9"`, 1), 4, "", "events 3 to 8 are missing"},
		{"an event that is not an object", strings.Replace(history(spelling{}, full...), "\n{\"eventId\": \"4\"", "\n7,{\"eventId\": \"4\"", 1), 5, "", "not a JSON object"},
		{"a page of a longer history", `{"history": ` + strings.TrimSuffix(history(spelling{}, full...), "\n") + `, "nextPageToken": "CAEQ"}`, 8, "", "nextPageToken"},
		{"an evidence event with no time", strings.Replace(history(spelling{}, full...), `"eventTime": "2026-11-29T18:00:05Z", `, "", 1), 7, "run-1", "no readable eventTime"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, _ := readTemporalText(t, map[string]string{"h.json": c.text})
			ps := ins[0].Problems
			dir := filepath.ToSlash(filepath.Dir(ins[0].Path))
			found := false
			for _, p := range ps {
				task := strings.ReplaceAll(p.Task, dir, "DIR")
				found = found || (p.Line == c.line && task == c.task && strings.Contains(p.Message, c.has))
			}
			if !found {
				t.Errorf("problems %+v, want one at line %d for task %q containing %q", ps, c.line, c.task, c.has)
			}
		})
	}
}

// A run with a delivery that continues as a new run (continue-as-new, a
// workflow retry, cron) names that run: the next run inherits the intent
// and may deliver again, so a missing history of it must make the chain
// incomplete ("referenced but no history"), not leave a run that ended
// clean. It is named before the run's end.
func TestTemporal_ARunThatContinuesNamesItsNextRun(t *testing.T) {
	for _, close := range []string{"WorkflowExecutionContinuedAsNew", "WorkflowExecutionFailed", "WorkflowExecutionTimedOut"} {
		_, got := readTemporalText(t, map[string]string{
			"a.json": history(spelling{}, wf("", scheduled("a1", delivery),
				closeEv("ActivityTaskTimedOut", 5, 0, `, "failure": {"timeoutFailureInfo": {"timeoutType": "TIMEOUT_TYPE_SCHEDULE_TO_START"}}`),
				hev{close, `{"newExecutionRunId": "run-2", "workflowTaskCompletedEventId": {{id 4}}}`})...),
		})
		want := "a.json:8 run-1 task_spawned child=run-2 temporal_next_run=" + close
		if len(got) < 2 || got[len(got)-2] != want || !strings.Contains(got[len(got)-1], "task_ended") {
			t.Errorf("%s: events\n%s\nwant the last two to be %q and the run's end", close, strings.Join(got, "\n"), want)
		}
	}
}

func TestTemporal_ContentGivenTwiceDifferently(t *testing.T) {
	const sha = "56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"
	payload := `{"destination": "slack/C1", "content_sha256": "` + sha + `", "text": "other"}`
	ins, _ := readTemporalText(t, map[string]string{"h.json": history(spelling{}, wf("", scheduled("a1", payload))...)})
	if len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "content twice") {
		t.Errorf("problems %+v", ins[0].Problems)
	}
	same := `{"destination": "slack/C1", "content_sha256": "` + strings.ToUpper(sha) + `", "sha256": "sha256:` + sha + `"}`
	ins, _ = readTemporalText(t, map[string]string{"h.json": history(spelling{}, wf("", scheduled("a1", same))...)})
	if len(ins[0].Problems) != 0 {
		t.Errorf("one digest in two spellings: problems %+v", ins[0].Problems)
	}
}

// Two exports of one event differ only in the white space between tokens;
// white space inside a string is the event's own. Deep nesting costs one
// pass (a canonical form with sorted keys took minutes at 100,000 deep).
func TestJSONFingerprint(t *testing.T) {
	a := jsonFingerprint(`{"eventId": "5", "attrs": {"input": "a b"}}`)
	if b := jsonFingerprint("{\n  \"eventId\":\"5\",\n\t\"attrs\":{\"input\":\"a b\"}\r\n}"); a != b {
		t.Error("indentation changed the fingerprint")
	}
	if b := jsonFingerprint(`{"eventId": "5", "attrs": {"input": "a  b"}}`); a == b {
		t.Error("white space inside a string did not change it")
	}
	if b := jsonFingerprint(`{"eventId": "5", "attrs": {"input": "a b\" "}}`); a == b {
		t.Error("an escaped quote ended the string")
	}
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	start := time.Now()
	jsonFingerprint(deep)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("100,000 deep took %s", d)
	}
}
