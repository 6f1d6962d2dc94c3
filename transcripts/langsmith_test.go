package transcripts

import (
	"strings"
	"testing"
)

// lsRunJSON is a run: id, type, trace, parent, times and extra fields.
func lsRunJSON(id, typ, trace, parent, start, end, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	e := "null"
	if end != "" {
		e = `"` + end + `"`
	}
	return `{"id": "` + id + `", "name": "slack_post_message", "run_type": "` + typ + `", "trace_id": "` + trace + `", "parent_run_id": ` + p +
		`, "start_time": "` + start + `", "end_time": ` + e + extra + `}`
}

const lsInputs = `, "inputs": {"channel": "C024BE91L", "text": "weekly report"}`

func TestLangSmith_ToolRunsAreToolCalls(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want []string
	}{
		{"a tool run that succeeds confirms; the root run ends the trace",
			`{"runs": [` + lsRunJSON("r1", "chain", "r1", "", "2026-11-30T08:10:00", "2026-11-30T08:10:03", "") + ",\n" +
				lsRunJSON("t1", "tool", "r1", "r1", "2026-11-30T08:10:01", "2026-11-30T08:10:02", lsInputs+`, "outputs": {"output": "ok"}`) + `]}`,
			[]string{"r1 task_started relation=root @1", "r1 intent dest=slack_post_message/C024BE91L @2",
				"r1 request_sent tool=slack_post_message @2", "r1 response ok=true @2", "r1 task_ended status=completed @1"}},
		{"an error is a response not ok",
			"[" + lsRunJSON("t1", "tool", "t1", "", "2026-11-30T08:10:01Z", "2026-11-30T08:10:02Z", lsInputs+`, "error": "TimeoutError()"`) + "]",
			[]string{"t1 task_started relation=root @1", "t1 intent dest=slack_post_message/C024BE91L @1",
				"t1 request_sent tool=slack_post_message @1", "t1 response ok=false @1", "t1 task_ended status=failed @1"}},
		{"outputs that say error are an error",
			"[" + lsRunJSON("t1", "tool", "t1", "", "2026-11-30T08:10:01Z", "2026-11-30T08:10:02Z", lsInputs+`, "outputs": {"output": "Error: channel_not_found"}`) + "]",
			[]string{"t1 task_started relation=root @1", "t1 intent dest=slack_post_message/C024BE91L @1",
				"t1 request_sent tool=slack_post_message @1", "t1 response ok=false @1", "t1 task_ended status=completed @1"}},
		{"no end: an open crossing",
			"[" + lsRunJSON("t1", "tool", "t1", "", "2026-11-30T08:10:01Z", "", lsInputs+`, "status": "pending"`) + "]",
			[]string{"t1 task_started relation=root @1", "t1 intent dest=slack_post_message/C024BE91L @1",
				"t1 request_sent tool=slack_post_message @1"}},
		{"a thread is the task, child_runs are runs, a JSON input string is the arguments",
			lsRunJSON("r1", "chain", "r1", "", "2026-11-30T08:10:00", "2026-11-30T08:10:03",
				`, "extra": {"metadata": {"thread_id": "thread-7"}}, "child_runs": [`+"\n"+
					lsRunJSON("t1", "tool", "", "r1", "2026-11-30T08:10:01", "2026-11-30T08:10:02", `, "inputs": {"input": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"}`)+`]`),
			[]string{"thread-7 task_started relation=root @1", "thread-7 intent dest=slack_post_message/C024BE91L @2",
				"thread-7 request_sent tool=slack_post_message @2", "thread-7 response ok=true @2"}},
		{"a chain run is no tool call",
			"[" + lsRunJSON("r1", "chain", "r1", "", "2026-11-30T08:10:00", "2026-11-30T08:10:03", lsInputs) + "]",
			[]string{"r1 task_started relation=root @1", "r1 task_ended status=completed @1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"runs.json": c.doc}, Options{})
			if ins[0].Format != FormatLangSmith || len(ins[0].Problems) != 0 {
				t.Fatalf("format %s, problems %+v", ins[0].Format, ins[0].Problems)
			}
			assertLines(t, "events", brief(evs), c.want)
		})
	}
}

func TestLangSmith_RunsReadOnceAndProblems(t *testing.T) {
	run := lsRunJSON("t1", "tool", "t1", "", "2026-11-30T08:10:01Z", "2026-11-30T08:10:02Z", lsInputs)
	// The same run in two exports: one call.
	_, evs := readFiles(t, map[string]string{"a.json": "[" + run + "]", "b.json": "[" + run + "]"}, Options{})
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Errorf("%d request_sent, want 1", n)
	}
	// The same id twice with different content, and a tool run with no time.
	other := strings.Replace(run, `"weekly report"`, `"another report"`, 1)
	notime := strings.Replace(lsRunJSON("t2", "tool", "t2", "", "x", "", lsInputs), `"start_time": "x"`, `"start_time": null`, 1)
	ins, _ := readFiles(t, map[string]string{"a.json": "[" + run + ",\n" + other + ",\n" + notime + "]"}, Options{})
	var msgs []string
	for _, p := range ins[0].Problems {
		msgs = append(msgs, p.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "appears twice with different content") || !strings.Contains(all, "no run of this task has a readable start_time") {
		t.Errorf("problems %q", msgs)
	}
}

// FuzzReadLangSmith: LangSmith run exports, read as forced.
func FuzzReadLangSmith(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-langsmith-*/*.json"))
	f.Add([]byte("[" + lsRunJSON("t1", "tool", "t1", "t1", "2026-11-30T08:10:01", "1e300", lsInputs+`, "child_runs": [{"id": "t1", "parent_run_id": "t1"}]`) + "]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatLangSmith})
		documentSaid(t, data, in, evs)
	})
}

// A run_type that differs from a known one only in letter case or
// separators ("Tool") is a problem of its run, as a native "Send_Fired"
// is (second adversarial review, case 13): dropping it would lose a
// delivery.
func TestLangSmith_RunTypeCaseVariantIsAProblem(t *testing.T) {
	for _, typ := range []string{"Tool", "TOOL", " tool"} {
		doc := "[" + lsRunJSON("t1", typ, "t1", "", "2026-11-30T08:10:01Z", "2026-11-30T08:10:02Z", lsInputs) + "]"
		ins, evs := readFiles(t, map[string]string{"runs.json": doc}, Options{})
		if ins[0].Format != FormatLangSmith || len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "run_type") {
			t.Errorf("run_type %q: format %s, problems %+v, events %q", typ, ins[0].Format, ins[0].Problems, brief(evs))
		}
	}
}

// A run whose parent run is not in the input: the export is partial (a
// filtered or cut export), and what the missing runs did cannot be told
// (second adversarial review, case 15). It is a problem of the input.
func TestLangSmith_MissingParentIsAProblem(t *testing.T) {
	doc := "[" + lsRunJSON("t1", "tool", "r1", "r1", "2026-11-30T08:10:01Z", "2026-11-30T08:10:02Z", lsInputs) + "]"
	ins, evs := readFiles(t, map[string]string{"runs.json": doc}, Options{})
	if len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "parent run") {
		t.Fatalf("problems %+v, events %q, want the missing parent run", ins[0].Problems, brief(evs))
	}
	if len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("events %q: the tool run is still read", brief(evs))
	}
}
