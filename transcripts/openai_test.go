package transcripts

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

const slackArgs = `"{\"channel\":\"C024BE91L\",\"text\":\"weekly report\"}"`

func TestOpenAI_ChatCompletions(t *testing.T) {
	// A bare message array as an agent logs it: no ids of its own, no
	// times. The task is the file; times keep the document's order.
	chat := `[
  {"role": "system", "content": "You post reports."},
  {"role": "user", "content": "Post the weekly report to C024BE91L."},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_abc123def456ghi789", "type": "function",
     "function": {"name": "slack_post_message", "arguments": ` + slackArgs + `}}
  ]},
  {"role": "tool", "tool_call_id": "call_abc123def456ghi789", "content": "Error: timed out after 30 s"},
  {"role": "assistant", "content": "I could not confirm the post."}
]`
	// A request body with the older functions API and a custom tool;
	// metadata names the conversation.
	legacy := `{"model": "gpt-4o", "metadata": {"conversation_id": "c-7"}, "messages": [
  {"role": "assistant", "content": null, "function_call": {"name": "send_email", "arguments": "{\"to\":\"ops@example.com\",\"body\":\"hi\"}"}},
  {"role": "function", "name": "send_email", "content": "{\"id\": \"msg-1\", \"status\": \"queued\"}"},
  {"role": "assistant", "tool_calls": [{"id": "call_custom00000001", "type": "custom", "custom": {"name": "publish_note", "input": "hello"}}]},
  {"role": "tool", "tool_call_id": "call_custom00000001", "content": [{"type": "text", "text": "published"}]}
]}`
	ins, evs := readFiles(t, map[string]string{"chat.json": chat, "legacy.json": legacy}, Options{})
	for _, in := range ins {
		if in.Format != FormatOpenAI || len(in.Problems) != 0 {
			t.Fatalf("input %+v", in)
		}
	}
	assertLines(t, "events", brief(evs), []string{
		"chat.json task_started relation=root @2",
		"chat.json intent dest=slack_post_message/C024BE91L @5",
		"chat.json request_sent tool=slack_post_message @5",
		"chat.json response ok=false @8",
		"c-7 task_started relation=root @1",
		"c-7 intent dest=send_email/ops@example.com @2",
		"c-7 request_sent tool=send_email @2",
		"c-7 response ok=true @3",
		// publish_note has no destination argument: a delivery tied to no
		// key (UNKEYED_CROSSING), never nothing.
		"c-7 request_sent tool=publish_note @4",
		"c-7 response ok=true @5",
	})
	epoch := time.Unix(0, 0).UTC()
	// The assistant message is the third item, the tool message the fourth.
	for i, want := range []time.Duration{0, 3, 3, 4} {
		if got := evs[i].TS.Sub(epoch); got != want*time.Millisecond {
			t.Errorf("event %d (%s) at epoch+%v, want +%dms", i, evs[i].Type, got, want)
		}
	}
}

func TestOpenAI_ResponsesItems(t *testing.T) {
	items := `{"conversation": "conv_abc", "created_at": 1795975200, "input": [
  {"role": "user", "content": "post it"},
  {"type": "function_call", "id": "fc_1", "call_id": "call_fn000000000001", "name": "slack_post_message", "arguments": ` + slackArgs + `},
  {"type": "function_call_output", "call_id": "call_fn000000000001", "output": "{\"ok\": false, \"error\": \"channel_not_found\"}"},
  {"type": "computer_call", "id": "cu_1", "call_id": "call_cu000000000001", "action": {"type": "click", "button": "left", "x": 156, "y": 50}, "pending_safety_checks": [], "status": "completed"},
  {"type": "computer_call_output", "call_id": "call_cu000000000001", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
  {"type": "web_search_call", "id": "ws_1", "status": "completed"},
  {"type": "local_shell_call", "id": "ls_1", "call_id": "call_sh000000000001", "created_at": "2026-11-29T18:05:00Z", "action": {"type": "exec", "command": ["git", "push", "origin", "main"], "env": {}}, "status": "completed"},
  {"type": "local_shell_call_output", "call_id": "call_sh000000000001", "output": "{\"output\": \"\", \"metadata\": {\"exit_code\": 0}}"},
  {"type": "function_call", "call_id": "call_fn000000000002", "name": "slack_post_message", "arguments": ` + slackArgs + `, "status": "completed"}
]}`
	ins, evs := readFiles(t, map[string]string{"items.json": items}, Options{})
	if ins[0].Format != FormatOpenAI || len(ins[0].Problems) != 0 {
		t.Fatalf("input %+v", ins[0])
	}
	assertLines(t, "events", brief(evs), []string{
		"conv_abc task_started relation=root @1",
		"conv_abc intent dest=slack_post_message/C024BE91L @3",
		"conv_abc request_sent tool=slack_post_message @3",
		"conv_abc response ok=false @4",
		// A click has coordinates, no element text: no evidence. git push
		// through the local shell: a crossing idempotent by content.
		"conv_abc intent dest=git/origin main @8",
		"conv_abc request_sent tool=local_shell @8",
		"conv_abc response ok=true @9",
		// The last call has no output: an open crossing.
		"conv_abc intent dest=slack_post_message/C024BE91L @10",
		"conv_abc request_sent tool=slack_post_message @10",
	})
	if got, want := ins[0].Notices, []string{"item types not read as tool calls: web_search_call (1)"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("notices = %q, want %q", got, want)
	}
	base := time.Unix(1795975200, 0).UTC()
	at := func(i int) time.Duration { return evs[i].TS.Sub(base) }
	// created_at of the document, +1 ms an item, an item's own time.
	if at(0) != 0 || at(2) != 2*time.Millisecond || at(5) != 5*time.Minute || at(8) != 5*time.Minute+2*time.Millisecond {
		t.Errorf("times: %v %v %v %v", at(0), at(2), at(5), at(8))
	}
	if evs[5].Fields["idempotency_token"] == nil {
		t.Errorf("git push must carry an idempotency token: %+v", evs[5].Fields)
	}
}

func TestOpenAI_MCPCalls(t *testing.T) {
	resp := `{"id": "resp_1", "object": "response", "created_at": 1795975200, "output": [
  {"type": "mcp_call", "id": "mcp_000000000001", "server_label": "slack", "name": "slack_post_message", "arguments": ` + slackArgs + `, "output": null, "error": "timeout", "status": "failed"},
  {"type": "mcp_call", "id": "mcp_000000000002", "server_label": "slack", "name": "slack_post_message", "arguments": ` + slackArgs + `, "output": "{\"ok\": true}", "error": null, "status": "completed"},
  {"type": "mcp_call", "id": "mcp_000000000003", "server_label": "slack", "name": "slack_post_message", "arguments": ` + slackArgs + `, "status": "calling"}
]}`
	// A bare list of output items is OpenAI too, whatever its tool items.
	bare := `[{"type": "mcp_call", "id": "mcp_000000000009", "server_label": "slack", "name": "slack_post_message", "arguments": ` + slackArgs + `}]`
	ins, evs := readFiles(t, map[string]string{"r.json": resp, "s.json": bare}, Options{})
	if ins[1].Format != FormatOpenAI || ins[1].Events != 3 {
		t.Errorf("bare list: %+v", ins[1])
	}
	evs = evs[:len(evs)-3]
	assertLines(t, "events", brief(evs), []string{
		"resp_1 task_started relation=root @1",
		"resp_1 intent dest=slack/C024BE91L @2",
		"resp_1 request_sent tool=mcp__slack__slack_post_message @2",
		"resp_1 response ok=false @2",
		"resp_1 intent dest=slack/C024BE91L @3",
		"resp_1 request_sent tool=mcp__slack__slack_post_message @3",
		"resp_1 response ok=true @3",
		"resp_1 intent dest=slack/C024BE91L @4",
		"resp_1 request_sent tool=mcp__slack__slack_post_message @4",
	})
}

func TestOpenAI_RepeatedHistoryCountsOnce(t *testing.T) {
	// An agent that logs every request body repeats the conversation so
	// far: the call in both files is one call, its output is in the second.
	call := `{"type": "function_call", "call_id": "call_fn000000000001", "name": "slack_post_message", "arguments": ` + slackArgs + `}`
	out := `{"type": "function_call_output", "call_id": "call_fn000000000001", "output": "ok"}`
	// A short id ("call_1") is unique only within its conversation.
	short := `{"type": "function_call", "call_id": "call_1", "name": "slack_post_message", "arguments": ` + slackArgs + `}`
	_, evs := readFiles(t, map[string]string{
		"1.json": `{"conversation": "conv_a", "input": [` + call + `]}`,
		"2.json": `{"conversation": "conv_a", "input": [` + call + `, ` + out + `]}`,
		"3.json": `{"conversation": "conv_b", "input": [` + short + `]}`,
		"4.json": `{"conversation": "conv_c", "input": [` + short + `]}`,
	}, Options{})
	assertLines(t, "events", brief(evs), []string{
		"conv_a task_started relation=root @1",
		"conv_a intent dest=slack_post_message/C024BE91L @1",
		"conv_a request_sent tool=slack_post_message @1",
		"conv_a response ok=true @1",
		"conv_b task_started relation=root @1",
		"conv_b intent dest=slack_post_message/C024BE91L @1",
		"conv_b request_sent tool=slack_post_message @1",
		"conv_c task_started relation=root @1",
		"conv_c intent dest=slack_post_message/C024BE91L @1",
		"conv_c request_sent tool=slack_post_message @1",
	})
	for _, e := range evs {
		if e.Type == "response" && e.File != "2.json" {
			t.Errorf("the response is in 2.json, not %s", e.File)
		}
	}
}

func TestOpenAI_UnreadableItemsAreProblems(t *testing.T) {
	doc := `[
  {"type": "message", "role": "user", "content": "hi"},
  42,
  {"type": "function_call", "call_id": "call_fn000000000001", "arguments": "{}"}
]`
	ins, evs := readFiles(t, map[string]string{"x.json": doc}, Options{})
	var probs []string
	for _, p := range ins[0].Problems {
		probs = append(probs, strconv.Itoa(p.Line)+" "+p.Task+" "+p.Message)
	}
	assertLines(t, "problems", probs, []string{
		"3 x.json item is not a JSON object",
		"4 x.json tool call without a name: what it did cannot be told",
	})
	if len(evs) != 1 || evs[0].Type != "task_started" {
		t.Errorf("events = %v", brief(evs))
	}
}

func TestOutputSaysError(t *testing.T) {
	cases := map[string]bool{
		`"Error: channel_not_found"`:           true,
		`"error: timeout"`:                     true,
		`"ERROR"`:                              true,
		`"Timed out after 30 s"`:               true,
		`"Timeout"`:                            true,
		`"Traceback (most recent call last):"`: true,
		`"An error occurred while running the tool. Error: x"`: true,
		`"  failed to post"`: true,
		`"{\"ok\": false, \"error\": \"channel_not_found\"}"`: true,
		`"{\"error\": {\"message\": \"boom\"}}"`:              true,
		`{"isError": true, "content": []}`:                    true,
		`{"status": "failed"}`:                                true,
		`{"output": "", "metadata": {"exit_code": 1}}`:        true,
		`[{"stdout": "", "outcome": {"type": "timeout"}}]`:    true,
		`[{"type": "text", "text": "Error: nope"}]`:           true,
		`"Errors: 0, warnings: 2"`:                            false,
		`"posted"`:                                            false,
		`"{\"ok\": true, \"error\": null}"`:                   false,
		`"{\"error\": \"\"}"`:                                 false,
		`{"error": 0}`:                                        false,
		`{"output": "", "metadata": {"exit_code": 0}}`:        false,
		`[{"type": "text", "text": "the error was fixed"}]`:   false,
		`null`: false,
	}
	for in, want := range cases {
		if got := outputSaysError(gjson.Parse(in)); got != want {
			t.Errorf("outputSaysError(%s) = %v, want %v", in, got, want)
		}
	}
}

// Providers behind OpenAI-compatible APIs reuse tool-call ids turn after
// turn ("0", "call_0"): a second call with a reused id in a later turn is
// a second call, while the same history logged again (each request
// repeats the conversation) is still the same calls.
func TestOpenAI_ReusedCallIDInALaterTurnIsAnotherCall(t *testing.T) {
	call := func(id string) string {
		return `{"role": "assistant", "content": null, "tool_calls": [{"id": "` + id + `", "type": "function", "function": {"name": "slack_post_message", "arguments": ` + slackArgs + `}}]}`
	}
	result := func(id, text string) string {
		return `{"role": "tool", "tool_call_id": "` + id + `", "content": "` + text + `"}`
	}
	user := `{"role": "user", "content": "post it"}`
	for _, id := range []string{"0", "call_0", "call_0000000000000000"} {
		t.Run(id, func(t *testing.T) {
			turn1 := user + `, ` + call(id) + `, ` + result(id, "Error: timed out")
			turn2 := turn1 + `, ` + user + `, ` + call(id) + `, ` + result(id, "ok")
			_, evs := readFiles(t, map[string]string{
				"1.json": `{"conversation": "conv_a", "messages": [` + turn1 + `]}`,
				"2.json": `{"conversation": "conv_a", "messages": [` + turn2 + `]}`,
			}, Options{})
			assertLines(t, "events", brief(evs), []string{
				"conv_a task_started relation=root @1",
				"conv_a intent dest=slack_post_message/C024BE91L @1",
				"conv_a request_sent tool=slack_post_message @1",
				"conv_a response ok=false @1",
				"conv_a intent dest=slack_post_message/C024BE91L @1",
				"conv_a request_sent tool=slack_post_message @1",
				"conv_a response ok=true @1",
			})
			intents := map[string]bool{}
			for _, e := range evs {
				if e.Type == "intent" {
					intents[e.Str("intent")] = true
				}
			}
			if len(intents) != 2 {
				t.Errorf("intents %v: two calls, two intents", intents)
			}
		})
	}
}

// The same id and turn with other arguments is not a copy of the call.
func TestOpenAI_SameIDAndTurnWithOtherArgumentsIsAnotherCall(t *testing.T) {
	call := func(text string) string {
		return `{"role": "assistant", "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "slack_post_message", "arguments": "{\"channel\":\"C024BE91L\",\"text\":\"` + text + `\"}"}}]}`
	}
	_, evs := readFiles(t, map[string]string{
		"1.json": `{"conversation": "conv_a", "messages": [` + call("weekly report") + `]}`,
		"2.json": `{"conversation": "conv_a", "messages": [` + call("another report") + `]}`,
	}, Options{})
	n := 0
	for _, e := range evs {
		if e.Type == "request_sent" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d calls, want 2: %v", n, brief(evs))
	}
}

// Within one turn (here one Response's output) an id recorded twice is one
// call recorded twice.
func TestOpenAI_SameIDInOneTurnIsOneCall(t *testing.T) {
	call := `{"type": "function_call", "call_id": "call_0", "name": "slack_post_message", "arguments": ` + slackArgs + `}`
	_, evs := readFiles(t, map[string]string{
		"1.json": `{"id": "resp_1", "output": [` + call + `, ` + call + `]}`,
	}, Options{})
	n := 0
	for _, e := range evs {
		if e.Type == "request_sent" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d calls, want 1: %v", n, brief(evs))
	}
}

// An output whose call is not in the history (trimmed from the context
// window, or in an export not given) answers a call that ran and may have
// delivered: a problem of its line, never dropped (third adversarial
// review).
func TestOpenAI_OutputWithoutItsCallIsAProblem(t *testing.T) {
	for name, doc := range map[string]string{
		"chat":            `{"messages": [{"role": "user", "content": "post it"}, {"role": "tool", "tool_call_id": "call_Z7", "content": "{\"ok\":true}"}]}`,
		"legacy function": `{"messages": [{"role": "user", "content": "post it"}, {"role": "function", "name": "slack_post_message", "content": "{\"ok\":true}"}]}`,
		"responses": `{"object": "response", "input": [{"type": "message", "role": "user", "content": "post it"},` +
			` {"type": "function_call_output", "call_id": "call_Q8", "output": "{\"ok\":true}"}], "output": []}`,
	} {
		ins, _ := readFiles(t, map[string]string{"a.json": doc}, Options{})
		in := ins[0]
		if len(in.Problems) != 1 || !strings.Contains(in.Problems[0].Message, "not in the history") {
			t.Errorf("%s: problems %+v; want the output's call missing", name, in.Problems)
		}
	}
	// With its call, the same output is read as its result.
	ins, _ := readFiles(t, map[string]string{"a.json": `{"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "call_Z7", "type": "function", "function": {"name": "slack_post_message", "arguments": ` + slackArgs + `}}]}, {"role": "tool", "tool_call_id": "call_Z7", "content": "ok"}]}`}, Options{})
	if len(ins[0].Problems) != 0 {
		t.Errorf("with its call: problems %+v", ins[0].Problems)
	}
}

// Two items of one Response (fc_1, fc_2) with one call_id are two calls
// (third adversarial review): two crossings, not one recorded twice.
func TestOpenAI_TwoItemsWithOneCallIDInOneTurnAreTwoCalls(t *testing.T) {
	item := func(id string) string {
		return `{"type": "function_call", "id": "` + id + `", "call_id": "call_0", "name": "slack_post_message", "arguments": ` + slackArgs + `}`
	}
	_, evs := readFiles(t, map[string]string{"1.json": `{"id": "resp_1", "output": [` + item("fc_1") + `, ` + item("fc_2") + `]}`}, Options{})
	if n := len(ofType(evs, "request_sent")); n != 2 {
		t.Errorf("%d calls, want 2: %v", n, brief(evs))
	}
}

// Two different outputs for one call id in one history: two calls under
// one id, or one answered twice: a problem, never the first picked.
func TestOpenAI_TwoDifferentOutputsForOneCallAreAProblem(t *testing.T) {
	call := `{"role": "assistant", "content": null, "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "slack_post_message", "arguments": ` + slackArgs + `}}]}`
	out := func(text string) string {
		return `{"role": "tool", "tool_call_id": "call_0", "content": "` + text + `"}`
	}
	ins, _ := readFiles(t, map[string]string{"a.json": `{"messages": [` + call + `, ` + out("Error: timed out") + `, ` + out("ok") + `]}`}, Options{})
	if len(ins[0].Problems) != 1 || !strings.Contains(ins[0].Problems[0].Message, "second, different output") {
		t.Errorf("problems %+v", ins[0].Problems)
	}
	ins, _ = readFiles(t, map[string]string{"a.json": `{"messages": [` + call + `, ` + out("ok") + `, ` + out("ok") + `]}`}, Options{})
	if len(ins[0].Problems) != 0 {
		t.Errorf("the same output twice: problems %+v", ins[0].Problems)
	}
}
