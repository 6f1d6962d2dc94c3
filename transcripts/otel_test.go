package transcripts

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// readFiles writes files into a temporary directory, reads the directory
// and returns the inputs (paths relative to it) and the events.
func readFiles(t *testing.T, files map[string]string, opt Options) ([]Input, []Event) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var evs []Event
	res, err := Read([]string{dir}, opt, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.ToSlash(dir) + "/"
	for i := range res.Inputs {
		res.Inputs[i].Path = strings.TrimPrefix(res.Inputs[i].Path, prefix)
		for j := range res.Inputs[i].Problems {
			res.Inputs[i].Problems[j].File = strings.TrimPrefix(res.Inputs[i].Problems[j].File, prefix)
			res.Inputs[i].Problems[j].Task = strings.TrimPrefix(res.Inputs[i].Problems[j].Task, prefix)
		}
	}
	for i := range evs {
		evs[i].File = strings.TrimPrefix(evs[i].File, prefix)
		evs[i].Task = strings.TrimPrefix(evs[i].Task, prefix) // a file path as task id
	}
	return res.Inputs, evs
}

// brief renders events as "task type key=value ... @line" for comparison.
func brief(evs []Event) []string {
	var out []string
	for _, e := range evs {
		s := e.Task + " " + e.Type
		for _, k := range []string{"relation", "parent", "status", "tool", "ok", "reason"} {
			if v, ok := e.Fields[k]; ok {
				s += " " + k + "=" + fmt.Sprint(v)
			}
		}
		if d, ok := e.Fields["destination"].(map[string]any); ok {
			s += " dest=" + d["provider"].(string) + "/" + d["id"].(string)
		}
		out = append(out, s+" @"+strconv.Itoa(e.Line))
	}
	return out
}

func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got:\n  %s\n want:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestOTel_Corpus reads every file of ../shared/corpus/otel: the
// opentelemetry-proto OTLP/JSON example and any-agent's Python SDK dump.
func TestOTel_Corpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus", "otel")
	sharedtest.Path(t, "corpus/otel")
	var evs []Event
	res, err := Read([]string{dir}, Options{}, func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 2 {
		t.Fatalf("inputs = %+v, want trace.json and any-agent/OPENAI_trace.json", res.Inputs)
	}
	for _, in := range res.Inputs {
		if in.Format != FormatOTel || len(in.Problems) != 0 {
			t.Errorf("%s: format %s, problems %+v", in.Path, in.Format, in.Problems)
		}
		switch filepath.Base(in.Path) {
		case "trace.json":
			// One span with no GenAI operation: read, no task, said so.
			if in.Events != 0 || len(in.Notices) != 1 || !strings.Contains(in.Notices[0], "1 span(s) without a GenAI operation") {
				t.Errorf("trace.json: events %d notices %q", in.Events, in.Notices)
			}
		case "OPENAI_trace.json":
			if in.Events != 2 {
				t.Errorf("OPENAI_trace.json: %d events, want the trace's start and end", in.Events)
			}
		}
	}
	// The decimal trace id 100927429609276267646756448943279827607 in hex;
	// the invoke_agent root span (line 265) starts and ends the trace task;
	// get_current_time and write_file are no deliveries.
	assertLines(t, "events", brief(evs), []string{
		"4bedea77bb33b9c5f280371eae21ea97 task_started relation=root @265",
		"4bedea77bb33b9c5f280371eae21ea97 task_ended status=completed @281", // its status
	})
	if got := evs[0].TS.Format("2006-01-02T15:04:05.000000Z"); got != "2025-09-16T12:43:13.209236Z" {
		t.Errorf("start = %s", got)
	}
}

const otelArgsJSON = `{\"channel\":\"C024BE91L\",\"text\":\"weekly report\"}`

func TestOTel_ToolSpansTasksAndDelegation(t *testing.T) {
	doc := `{"resourceSpans": [{"scopeSpans": [{"spans": [
{"traceId": "CvdlGRbNQ92ESOshHIAxnA==", "spanId": "7uGbfsPBsXQ=", "name": "invoke_agent coordinator",
 "startTimeUnixNano": "1796026200000000000", "endTimeUnixNano": "1796026320000000000",
 "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                {"key": "gen_ai.conversation.id", "value": {"stringValue": "conv-42"}}]},
{"traceId": "CvdlGRbNQ92ESOshHIAxnA==", "spanId": "c3f1a2b4d5e60718", "parentSpanId": "7uGbfsPBsXQ=",
 "name": "execute_tool slack_post_message", "startTimeUnixNano": 1796026201000000000, "endTimeUnixNano": "1796026202000000000",
 "attributes": [{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "` + otelArgsJSON + `"}}],
 "status": {"code": "STATUS_CODE_ERROR", "message": "timeout"}},
{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "5fb397be34d26b51", "parentSpanId": "00f067aa0ba902b7",
 "name": "invoke_agent poster", "startTimeUnixNano": "1796026230000000000", "endTimeUnixNano": "1796026290000000000",
 "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}], "status": {"code": 2}},
{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "a2fb4a1d1a96d312", "parentSpanId": "5fb397be34d26b51",
 "name": "slack tool", "startTimeUnixNano": "1796026260000000000", "endTimeUnixNano": "1796026261000000000",
 "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "slack_post_message"}},
                {"key": "gen_ai.tool.call.id", "value": {"stringValue": "call_1"}},
                {"key": "gen_ai.tool.call.arguments", "value": {"kvlistValue": {"values": [
                   {"key": "channel", "value": {"stringValue": "C024BE91L"}},
                   {"key": "text", "value": {"stringValue": "weekly report"}}]}}},
                {"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\"ok\": false, \"error\": \"channel_not_found\"}"}}],
 "status": {"code": "STATUS_CODE_OK"}},
{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "b7ad6b7169203331", "parentSpanId": "a2fb4a1d1a96d312",
 "name": "execute_tool slack_post_message", "startTimeUnixNano": "1796026262000000000",
 "attributes": [{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "` + otelArgsJSON + `"}}]},
{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "name": "invoke_agent coordinator",
 "startTimeUnixNano": "1796026200000000000", "endTimeUnixNano": "1796026320000000000",
 "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}], "status": {}}
]}]}]}
`
	ins, evs := readFiles(t, map[string]string{"trace.json": doc}, Options{})
	if ins[0].Format != FormatOTel || len(ins[0].Problems) != 0 {
		t.Fatalf("input %+v", ins[0])
	}
	const child = "4bf92f3577b34da6a3ce929d0e0e4736/agent-5fb397be34d26b51"
	assertLines(t, "events", brief(evs), []string{
		// The conversation id names the task of the first trace (base64
		// ids); a conversation is never ended by a trace. The tool's name
		// comes from the span name; its ERROR status: a response with ok
		// false, at the line of the status.
		"conv-42 task_started relation=root @2",
		"conv-42 intent dest=slack_post_message/C024BE91L @6",
		"conv-42 request_sent tool=slack_post_message @6",
		"conv-42 response ok=false @9", // its status
		// The second trace: its root starts and ends the trace task; the
		// agent below it is a delegated child, ended (failed) by its span.
		"4bf92f3577b34da6a3ce929d0e0e4736 task_started relation=root @26",
		"4bf92f3577b34da6a3ce929d0e0e4736 task_ended status=completed @28",
		"4bf92f3577b34da6a3ce929d0e0e4736/agent-5fb397be34d26b51 task_started relation=delegated parent=4bf92f3577b34da6a3ce929d0e0e4736 @10",
		// Structured arguments (kvlist); an OK span whose result says error.
		child + " intent dest=slack_post_message/C024BE91L @13",
		child + " request_sent tool=slack_post_message @13",
		child + " response ok=false @22",
		// No end time: a call without a result. The parent of this span is
		// a tool span, still inside the child task.
		child + " intent dest=slack_post_message/C024BE91L @23",
		child + " request_sent tool=slack_post_message @23",
		child + " task_ended status=failed @12",
	})
	for _, e := range evs {
		if e.Type == "intent" && e.Task == child && e.Line == 13 && e.Fields["intent"] != "call:call_1" {
			t.Errorf("intent id = %v, want the tool call id", e.Fields["intent"])
		}
	}
}

func TestOTel_JSONLinesAndDuplicates(t *testing.T) {
	span := func(id, start string) string {
		return `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id + `","parentSpanId":"b7ad6b7169203331","name":"execute_tool slack_post_message","startTimeUnixNano":"` + start + `","endTimeUnixNano":"` + start + `","attributes":[{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"` + otelArgsJSON + `"}}]}`
	}
	line := func(spans ...string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	}
	// The Collector's file exporter: one export request a line. The span
	// e457... is exported twice (a retried batch): counted once. Their
	// parent (the agent span) is not exported yet: the trace has not ended.
	content := line(span("e457b5a2e4d86bd1", "1796026201000000000")) + "\n" +
		line(span("e457b5a2e4d86bd1", "1796026201000000000"), span("c3f1a2b4d5e60718", "1796026205000000000")) + "\n"
	ins, evs := readFiles(t, map[string]string{"otel.jsonl": content}, Options{})
	if ins[0].Format != FormatOTel || len(ins[0].Problems) != 0 {
		t.Fatalf("input %+v", ins[0])
	}
	assertLines(t, "events", brief(evs), []string{
		"0af7651916cd43dd8448eb211c80319c task_started relation=root @1",
		"0af7651916cd43dd8448eb211c80319c intent dest=slack_post_message/C024BE91L @1",
		"0af7651916cd43dd8448eb211c80319c request_sent tool=slack_post_message @1",
		"0af7651916cd43dd8448eb211c80319c response ok=true @1",
		"0af7651916cd43dd8448eb211c80319c intent dest=slack_post_message/C024BE91L @2",
		"0af7651916cd43dd8448eb211c80319c request_sent tool=slack_post_message @2",
		"0af7651916cd43dd8448eb211c80319c response ok=true @2",
	})
	// A line that is no export request is a problem of that line.
	ins, _ = readFiles(t, map[string]string{"otel.jsonl": content + `{"resourceSpans":[]}` + "\n" + `{"hello":1}` + "\n"}, Options{})
	if len(ins[0].Problems) != 1 || ins[0].Problems[0].Line != 4 {
		t.Errorf("problems = %+v, want line 4", ins[0].Problems)
	}
}

func TestOTel_UnreadableSpansAreProblems(t *testing.T) {
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[
{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"e457b5a2e4d86bd1","name":"execute_tool","startTimeUnixNano":"1796026201000000000"},
{"traceId":"not an id","spanId":"c3f1a2b4d5e60718","name":"execute_tool slack_post_message","startTimeUnixNano":"1796026201000000000"},
{"traceId":"not an id","spanId":"c3f1a2b4d5e60719","name":"GET /health"},
{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"c3f1a2b4d5e60720","name":"execute_tool slack_post_message","endTimeUnixNano":"1796026202000000000","status":{"code":"STATUS_CODE_WEIRD"},
 "attributes":[{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"` + otelArgsJSON + `"}}]}
]}]}]}`
	ins, evs := readFiles(t, map[string]string{"t.json": doc}, Options{})
	var probs []string
	for _, p := range ins[0].Problems {
		probs = append(probs, strconv.Itoa(p.Line)+" "+p.Task+" "+p.Message)
	}
	assertLines(t, "problems", probs, []string{
		"3  span without a readable trace id",
		"2 0af7651916cd43dd8448eb211c80319c execute_tool span without gen_ai.tool.name: what it did cannot be told",
	})
	// A span with no start time is called at its end; an unknown status
	// code never confirms.
	assertLines(t, "events", brief(evs), []string{
		"0af7651916cd43dd8448eb211c80319c task_started relation=root @2",
		"0af7651916cd43dd8448eb211c80319c intent dest=slack_post_message/C024BE91L @5",
		"0af7651916cd43dd8448eb211c80319c request_sent tool=slack_post_message @5",
		"0af7651916cd43dd8448eb211c80319c response ok=false @5",
	})
	want := []string{
		"1 span(s) without a GenAI operation (gen_ai.operation.name, execute_tool, invoke_agent): no evidence",
		`status code "STATUS_CODE_WEIRD" is not UNSET, OK or ERROR: the tool calls it ends are not taken as confirmed`,
	}
	assertLines(t, "notices", ins[0].Notices, want)
}

func TestOTel_IDs(t *testing.T) {
	cases := []struct {
		json string
		size int
		want string
		ok   bool
	}{
		{`"5B8EFFF798038103D269B633813FC60C"`, 16, "5b8efff798038103d269b633813fc60c", true},
		{`"W47/95gDgQPSabYzgT/GDA=="`, 16, "5b8efff798038103d269b633813fc60c", true},
		{`"W47_95gDgQPSabYzgT_GDA"`, 16, "5b8efff798038103d269b633813fc60c", true},
		{`"0x5b8efff798038103d269b633813fc60c"`, 16, "5b8efff798038103d269b633813fc60c", true},
		{`"0x1"`, 8, "0000000000000001", true},
		{`12324293800750531911`, 8, "ab08afea3548c547", true},
		{`"EEE19B7EC3C1B174"`, 8, "eee19b7ec3c1b174", true},
		{`"7uGbfsPBsXQ="`, 8, "eee19b7ec3c1b174", true},
		{`""`, 8, "", true},
		{`null`, 8, "", true},
		{`"AAAAAAAAAAA="`, 8, "", true},
		{`"0000000000000000"`, 8, "", true},
		{`"EEE19B7EC3C1B1"`, 8, "", false},
		{`18446744073709551616`, 8, "", false},
		{`-1`, 8, "", false},
		{`"zz"`, 8, "", false},
		{`{}`, 8, "", false},
	}
	for _, c := range cases {
		got, ok := otelID(gjson.Parse(c.json), c.size)
		if got != c.want || ok != c.ok {
			t.Errorf("otelID(%s, %d) = %q %v, want %q %v", c.json, c.size, got, ok, c.want, c.ok)
		}
	}
}

func TestOTel_Status(t *testing.T) {
	for in, want := range map[string]string{`2`: "ERROR", `"STATUS_CODE_ERROR"`: "ERROR", `"error"`: "ERROR",
		`"StatusCode.ERROR"`: "ERROR", `1`: "OK", `"STATUS_CODE_OK"`: "OK", `"ok"`: "OK", `0`: "UNSET", `"unset"`: "UNSET"} {
		if got, ok := otelStatus(gjson.Parse(in)); got != want || !ok {
			t.Errorf("otelStatus(%s) = %s %v, want %s", in, got, ok, want)
		}
	}
	if got, ok := otelStatus(gjson.Result{}); got != "UNSET" || !ok {
		t.Errorf("absent status = %s %v, want UNSET", got, ok)
	}
	if _, ok := otelStatus(gjson.Parse(`7`)); ok {
		t.Errorf("status 7 must be unknown")
	}
}
