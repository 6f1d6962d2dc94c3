package transcripts

import (
	"strings"
	"testing"
)

// phoenixSpan is one span as Phoenix exports it: nested attributes,
// span_kind, top-level status_code.
func phoenixSpan(trace, id, parent, kind, status, attrs string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"name": "slack_post_message", "context": {"trace_id": "` + trace + `", "span_id": "` + id + `"}, "span_kind": "` + kind +
		`", "parent_id": ` + p + `, "start_time": "2026-11-30T08:10:01+00:00", "end_time": "2026-11-30T08:10:02+00:00", "status_code": "` + status +
		`", "attributes": ` + attrs + `}`
}

const oiToolAttrs = `{"openinference": {"span": {"kind": "TOOL"}}, "tool": {"name": "slack_post_message"},
	"input": {"value": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"}}`

const oiTrace = "0f9e8d7c6b5a49382716a5b4c3d2e1f0"

func TestOpenInference_ToolSpansAreToolCalls(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want []string
	}{
		{"a TOOL span that ends OK confirms", "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "OK", oiToolAttrs) + "]",
			[]string{oiTrace + " task_started relation=root @1", oiTrace + " intent dest=slack_post_message/C024BE91L @1",
				oiTrace + " request_sent tool=slack_post_message @1", oiTrace + " response ok=true @1", oiTrace + " task_ended status=completed @1"}},
		// Phoenix's top-level status_code: an ERROR read as UNSET would
		// confirm a post that failed.
		{"Phoenix's status_code ERROR is an error", "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "ERROR", oiToolAttrs) + "]",
			[]string{oiTrace + " task_started relation=root @1", oiTrace + " intent dest=slack_post_message/C024BE91L @1",
				oiTrace + " request_sent tool=slack_post_message @1", oiTrace + " response ok=false @1", oiTrace + " task_ended status=failed @1"}},
		{"output.value that says error", "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "UNSET",
			`{"openinference.span.kind": "TOOL", "tool.name": "slack_post_message", "input.value": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}", "output.value": "{\"ok\": false, \"error\": \"channel_not_found\"}"}`) + "]",
			[]string{oiTrace + " task_started relation=root @1", oiTrace + " intent dest=slack_post_message/C024BE91L @1",
				oiTrace + " request_sent tool=slack_post_message @1", oiTrace + " response ok=false @1", oiTrace + " task_ended status=completed @1"}},
		{"session.id names the task", "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "OK",
			`{"openinference.span.kind": "TOOL", "session.id": "thread-42", "tool.name": "slack_post_message", "input.value": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"}`) + "]",
			[]string{"thread-42 task_started relation=root @1", "thread-42 intent dest=slack_post_message/C024BE91L @1",
				"thread-42 request_sent tool=slack_post_message @1", "thread-42 response ok=true @1"}},
		{"an LLM span alone is no tool call", "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "LLM", "OK", `{"openinference.span.kind": "LLM", "input.value": "hi"}`) + "]",
			[]string{oiTrace + " task_started relation=root @1", oiTrace + " task_ended status=completed @1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"spans.json": c.doc}, Options{})
			if ins[0].Format != FormatOTel || len(ins[0].Problems) != 0 || len(ins[0].Notices) != 0 {
				t.Fatalf("format %s, problems %+v, notices %q", ins[0].Format, ins[0].Problems, ins[0].Notices)
			}
			assertLines(t, "events", brief(evs), c.want)
		})
	}
}

func TestOpenInference_ArgumentsAndNames(t *testing.T) {
	// A tool input that is plain text is {"input": text}: the delivery
	// rule keyed by text_args does not see it, a profile can.
	doc := "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "OK",
		`{"openinference.span.kind": "TOOL", "tool.name": "post_update", "input.value": "deploy done"}`) + "]"
	_, evs := readFiles(t, map[string]string{"spans.json": doc}, Options{})
	var got []string
	for _, e := range evs {
		if e.Type == "request_sent" {
			got = append(got, e.Str("tool")+" "+e.Str("intent"))
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "post_update unkeyed-call:") {
		t.Errorf("request_sent events %q, want one unkeyed post_update (no destination argument)", got)
	}
	// GenAI attributes are read with OpenInference's (when both name the
	// call, they must agree: TestOpenInference_TwoReadingsAreAProblem).
	doc = "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "OK",
		`{"openinference.span.kind": "TOOL", "gen_ai.tool.name": "slack_post_message", "input.value": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"}`) + "]"
	_, evs = readFiles(t, map[string]string{"spans.json": doc}, Options{})
	if n := len(ofType(evs, "request_sent")); n != 1 {
		t.Errorf("%d request_sent, want the gen_ai.tool.name slack_post_message's one", n)
	}
	// --input-format openinference reads with the OpenTelemetry reader.
	ins, evs := readFiles(t, map[string]string{"spans.json": doc}, Options{InputFormat: FormatOpenInference})
	if ins[0].Format != FormatOpenInference || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("forced: format %s, %d events", ins[0].Format, len(evs))
	}
	// Forced on OTLP JSON Lines (the Collector's file exporter) too.
	line := `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "` + oiTrace + `", "spanId": "d4e5f60718293a4b", "name": "slack_post_message", "startTimeUnixNano": "1796026201000000000", "endTimeUnixNano": "1796026202000000000",` +
		` "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "TOOL"}}, {"key": "input.value", "value": {"stringValue": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"}}]}]}]}]}`
	ins, evs = readFiles(t, map[string]string{"spans.jsonl": line + "\n" + line + "\n"}, Options{InputFormat: FormatOpenInference})
	if ins[0].Format != FormatOpenInference || len(ins[0].Problems) != 0 || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("forced on JSON Lines: format %s, problems %+v, events %v", ins[0].Format, ins[0].Problems, brief(evs))
	}
}

// FuzzReadOpenInference: OpenInference spans (OTLP/JSON, Phoenix JSON),
// read as forced.
func FuzzReadOpenInference(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-openinference-*/*.json"))
	f.Add([]byte("[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "ERROR", oiToolAttrs) + "]"))
	f.Add([]byte(`[{"context": {"trace_id": "1", "span_id": "2"}, "span_kind": "TOOL", "attributes": {"tool": {"name": {"x": 1}}, "input": {"value": 5}}, "status_code": 7, "start_time": 1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatOpenInference})
		documentSaid(t, data, in, evs)
	})
}

// One span, two readings (second adversarial review, cases 5 and 9): the
// GenAI and the OpenInference attributes of a TOOL span disagree on the
// call, or Phoenix's span_kind and openinference.span.kind disagree on
// what the span is. Neither reading is taken silently: the span is a
// problem of its input (a check stops HISTORY_UNREADABLE).
func TestOpenInference_TwoReadingsAreAProblem(t *testing.T) {
	const weekly = `"input.value": "{\"channel\": \"C024BE91L\", \"text\": \"weekly report\"}"`
	cases := []struct{ name, kind, attrs string }{
		{"arguments disagree", "TOOL", `{"openinference.span.kind": "TOOL", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "slack_post_message",
			"gen_ai.tool.call.arguments": "{\"channel\": \"COTHER\", \"text\": \"hello\"}", ` + weekly + `}`},
		{"tool names disagree", "TOOL", `{"openinference.span.kind": "TOOL", "gen_ai.tool.name": "slack_post_message", "tool.name": "lookup", ` + weekly + `}`},
		{"span kinds disagree", "TOOL", `{"openinference": {"span": {"kind": "LLM"}}, "tool.name": "slack_post_message", ` + weekly + `}`},
		{"span kinds disagree the other way", "LLM", `{"openinference.span.kind": "TOOL", "tool.name": "slack_post_message", ` + weekly + `}`},
		{"a TOOL kind with another GenAI operation", "TOOL", `{"openinference.span.kind": "TOOL", "gen_ai.operation.name": "chat", "tool.name": "slack_post_message", ` + weekly + `}`},
		{"results disagree", "TOOL", `{"openinference.span.kind": "TOOL", "tool.name": "slack_post_message", ` + weekly + `, "output.value": "{\"ok\": true}", "gen_ai.tool.call.result": "{\"ok\": false}"}`},
		// One name spelled nested and flat with two values (an adversarial
		// review: the flat one won, and the post disappeared).
		{"tool name nested and flat", "TOOL", `{"openinference.span.kind": "TOOL", "tool": {"name": "slack_post_message"}, "tool.name": "get_weather", ` + weekly + `}`},
		{"input nested and flat", "TOOL", `{"openinference.span.kind": "TOOL", "tool.name": "slack_post_message", "input": {"value": "{\"channel\": \"COTHER\"}"}, ` + weekly + `}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", c.kind, "OK", c.attrs) + "]"
			ins, evs := readFiles(t, map[string]string{"spans.json": doc}, Options{})
			if len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "two readings") {
				t.Fatalf("problems %+v (events %q), want the span's two readings", ins[0].Problems, brief(evs))
			}
		})
	}
	// The same call under both names is one reading.
	doc := "[" + phoenixSpan(oiTrace, "d4e5f60718293a4b", "", "TOOL", "OK", `{"openinference.span.kind": "TOOL", "gen_ai.tool.name": "slack_post_message",
		"gen_ai.tool.call.arguments": "{\"text\":\"weekly report\",\"channel\":\"C024BE91L\"}", "tool.name": "slack_post_message", `+weekly+`}`) + "]"
	ins, evs := readFiles(t, map[string]string{"spans.json": doc}, Options{})
	if len(ins[0].Problems) != 0 || len(ofType(evs, "request_sent")) != 1 {
		t.Errorf("agreeing names: problems %+v, events %q", ins[0].Problems, brief(evs))
	}
}
