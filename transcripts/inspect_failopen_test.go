package transcripts

import (
	"path/filepath"
	"strings"
	"testing"
)

// Fail-open cases of the Inspect AI reader: a delivery the log records is a
// crossing, and a log with two readings, a contradiction or a missing part
// it references is a problem of that log (SPEC §4, §5: fail closed).

func problemText(ins []Input) string {
	var msgs []string
	for _, in := range ins {
		for _, p := range in.Problems {
			msgs = append(msgs, p.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// A tool event nested in another tool event's events (an agent used as a
// tool) is a call of the sample, at any depth the reader walks.
func TestInspect_ToolEventInsideAToolEvent(t *testing.T) {
	inner := strings.Replace(inspectTool("c2", "timeout", false), `"id": "c2"`, `"id": "c2", "events": []`, 1)
	outer := `{"event": "tool", "timestamp": "2026-11-30T08:10:00+00:00", "id": "c1", "function": "reporter_agent", "arguments": {},
"result": "done", "completed": "2026-11-30T08:11:00+00:00", "events": [` + inner + `]}`
	ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", outer))}, Options{})
	if len(ins[0].Problems) != 0 {
		t.Fatalf("problems %+v", ins[0].Problems)
	}
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Fatalf("%d request_sent, want the nested slack_post_message (%v)", n, brief(evs))
	}
	if r := ofType(evs, "response"); len(r) != 1 || r[0].Fields["ok"] != false {
		t.Errorf("responses %v, want one not ok (the nested call timed out)", brief(r))
	}
	// Deeper than the reader walks: a problem, never a silent cut.
	deep := inspectTool("c9", "", false)
	for i := 0; i < 20; i++ {
		deep = `{"event": "tool", "timestamp": "2026-11-30T08:10:00+00:00", "id": "a` + string(rune('a'+i)) + `", "function": "agent", "arguments": {}, "result": "done", "events": [` + deep + `]}`
	}
	ins, _ = readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", deep))}, Options{})
	if !strings.Contains(problemText(ins), "nested deeper") {
		t.Errorf("problems %q, want one for events nested past the bound", problemText(ins))
	}
}

// An error that says the tool never ran (approval, parsing) with a result
// that says it ran is a contradiction: a problem, and the call counts as
// crossed. A case variant of the error type is not the known type: the
// call ran and failed (crossed, unconfirmed).
func TestInspect_NeverRanErrorsThatContradict(t *testing.T) {
	withResult := func(errType, result string) string {
		return strings.Replace(inspectTool("c1", errType, false), `"result": ""`, `"result": `+result, 1)
	}
	for _, c := range []struct {
		name, event string
		problem     bool
	}{
		{"approval with ok true", withResult("approval", `"{\"ok\": true, \"ts\": \"1.2\"}"`), true},
		{"parsing with a result", withResult("parsing", `"message posted"`), true},
		{"Approval is not approval", inspectTool("c1", "Approval", false), false},
		{"PARSING is not parsing", inspectTool("c1", "PARSING", false), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", c.event))}, Options{})
			if got := strings.Contains(problemText(ins), "never ran"); got != c.problem {
				t.Errorf("problems %q, want a contradiction: %v", problemText(ins), c.problem)
			}
			if n := len(ofType(evs, "request_sent")); n != 1 {
				t.Errorf("%d request_sent, want the call crossed (%v)", n, brief(evs))
			}
			for _, r := range ofType(evs, "response") {
				if r.Fields["ok"] != false {
					t.Errorf("response %v: nothing confirms it", brief([]Event{r}))
				}
			}
		})
	}
	// The known types, with no result, still never ran.
	ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", inspectTool("c1", "approval", false)))}, Options{})
	if len(ins[0].Problems) != 0 || len(ofType(evs, "request_sent")) != 0 {
		t.Errorf("a rejected call: problems %+v, events %v", ins[0].Problems, brief(evs))
	}
}

// The same sample (uuid) in two logs: identical copies are read once;
// different content is two readings of one sample, a problem.
func TestInspect_SameSampleInTwoLogs(t *testing.T) {
	sunday := inspectLog(inspectSampleJSON("U1", "", inspectTool("c1", "timeout", false)))
	monday := inspectLog(inspectSampleJSON("U1", "", inspectTool("c1", "", false)))
	ins, evs := readFiles(t, map[string]string{"a.json": sunday, "b.json": monday}, Options{})
	if !strings.Contains(problemText(ins), "different content") {
		t.Errorf("problems %q, want two readings of sample U1", problemText(ins))
	}
	// An identical copy (reformatted) is a copy: read once, no problem.
	copyText := strings.ReplaceAll(sunday, ", ", ",  ")
	ins, evs = readFiles(t, map[string]string{"a.json": sunday, "b.json": copyText}, Options{})
	if problemText(ins) != "" || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("an identical copy: problems %q, %d request_sent", problemText(ins), len(ofType(evs, "request_sent")))
	}
	// Twice in one log, different: the same.
	ins, _ = readFiles(t, map[string]string{"a.json": inspectLog(inspectSampleJSON("U1", "", inspectTool("c1", "timeout", false)), inspectSampleJSON("U1", ""))}, Options{})
	if !strings.Contains(problemText(ins), "different content") {
		t.Errorf("one log: problems %q", problemText(ins))
	}
}

// A case variant of a known event type ("Tool") is a problem, not an
// event of no interest.
func TestInspect_CaseVariantEventType(t *testing.T) {
	for _, ev := range []string{
		strings.Replace(inspectTool("c1", "", false), `"event": "tool"`, `"event": "Tool"`, 1),
		`{"event": "SubTask", "timestamp": "2026-11-30T08:10:00+00:00", "events": []}`,
	} {
		ins, _ := readFiles(t, map[string]string{"log.json": inspectLog(inspectSampleJSON("S", "", ev))}, Options{})
		if !strings.Contains(problemText(ins), "letter case") {
			t.Errorf("%.40s: problems %q, want a case variant problem", ev, problemText(ins))
		}
	}
	// A tool message with role "Tool" in a sample read from its messages.
	sample := `{"id": 1, "epoch": 1, "input": "x", "messages": [{"role": "Tool", "tool_call_id": "c8", "content": "done"}]}`
	ins, _ := readFiles(t, map[string]string{"log.json": inspectLog(sample)}, Options{})
	if !strings.Contains(problemText(ins), "letter case") {
		t.Errorf("role Tool: problems %q", problemText(ins))
	}
}

// A sample the log lists (dataset.sample_ids, summaries) whose history the
// log does not hold is a problem.
func TestInspect_ListedSampleMissing(t *testing.T) {
	header := `{"version": 2, "status": "error", "eval": {"eval_id": "E1", "task": "t", "created": "2026-11-30T08:00:00+00:00",
"dataset": {"samples": 2, "sample_ids": ["w48", "w49"]}}, "results": {"total_samples": 2, "completed_samples": 2}`
	sample := inspectSampleJSON("S", "", inspectTool("c1", "", false))
	ins, _ := readFiles(t, map[string]string{"log.json": header + `, "samples": [` + sample + `]}`}, Options{})
	if !strings.Contains(problemText(ins), `"w49"`) {
		t.Errorf("JSON log: problems %q, want one naming w49", problemText(ins))
	}
	// Every listed sample present: no problem.
	complete := strings.NewReplacer(`, "w49"`, "", `"total_samples": 2, "completed_samples": 2`, `"total_samples": 1, "completed_samples": 1`).Replace(header)
	ins, _ = readFiles(t, map[string]string{"log.json": complete + `, "samples": [` + sample + `]}`}, Options{})
	if problemText(ins) != "" {
		t.Errorf("complete log: problems %q", problemText(ins))
	}
	// No ids, but the results count two samples (every epoch's): one is
	// missing.
	ins, _ = readFiles(t, map[string]string{"log.json": strings.Replace(header, `, "w49"`, "", 1) + `, "samples": [` + sample + `]}`}, Options{})
	if !strings.Contains(problemText(ins), "holds 1 of its eval's 2 sample(s)") {
		t.Errorf("counted, not held: problems %q", problemText(ins))
	}
	// An archive: the header's ids and summaries.json.
	dir := t.TempDir()
	writeEval(t, filepath.Join(dir, "a.eval"), map[string]string{"header.json": header + "}", "samples/w48_epoch_1.json": sample,
		"summaries.json": `[{"id": "w48", "epoch": 1}, {"id": "w49", "epoch": 1, "error": "TimeoutError"}]`})
	res, _ := readPaths(t, Options{}, dir)
	if !strings.Contains(problemText(res.Inputs), `"w49"`) {
		t.Errorf("archive: problems %q, want one naming w49", problemText(res.Inputs))
	}
	writeEval(t, filepath.Join(dir, "a.eval"), map[string]string{"header.json": inspectHeader, "samples/w48_epoch_1.json": sample,
		"summaries.json": `[{"id": "w48", "epoch": 1}, {"id": "w48", "epoch": 2}]`})
	res, _ = readPaths(t, Options{}, dir)
	if !strings.Contains(problemText(res.Inputs), "epoch 2") {
		t.Errorf("archive, a missing epoch: problems %q", problemText(res.Inputs))
	}
}

// The same contradiction in a sample read from its messages: a tool
// message that answers a call of the sample, whose error says it never
// ran, with content.
func TestInspect_NeverRanMessageWithContent(t *testing.T) {
	sample := func(content string) string {
		return `{"id": 1, "epoch": 1, "input": "x", "messages": [
{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "slack_post_message", "arguments": ` + inspectArgs + `}]},
{"role": "tool", "tool_call_id": "c1", "function": "slack_post_message", "content": ` + content + `, "error": {"type": "approval", "message": "rejected"}}]}`
	}
	ins, evs := readFiles(t, map[string]string{"log.json": inspectLog(sample(`"message posted"`))}, Options{})
	if !strings.Contains(problemText(ins), "never ran") || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("content after a rejection: problems %q, events %v", problemText(ins), brief(evs))
	}
	ins, evs = readFiles(t, map[string]string{"log.json": inspectLog(sample(`""`))}, Options{})
	if problemText(ins) != "" || len(ofType(evs, "request_sent")) != 0 {
		t.Errorf("a rejection: problems %q, events %v", problemText(ins), brief(evs))
	}
}
