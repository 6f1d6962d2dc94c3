package transcripts

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestRepeatedKeys_FindsRepeatsAtAnyDepthAfterUnescaping(t *testing.T) {
	cases := []struct {
		in   string
		want string // the first repeat's path, "" for none
	}{
		{`{"a":1,"b":2}`, ""},
		{`{"a":{"x":1},"b":{"x":2}}`, ""}, // one key in two objects
		{`[{"a":1},{"a":2}]`, ""},
		{`{"type":"picker_opened","type":"send_fired"}`, "type"},
		{`{"type":"a","t\u0079pe":"b"}`, "type"},
		{`{"d":{"provider":"slack","id":"C1","id":"C2"}}`, "d.id"},
		{`{"events":[{"eventId":1},{"eventId":2,"x":[{"k":1,"k":2}]}]}`, "events[1].x[0].k"},
		{`{"a":"\"b\",\"a\":1"}`, ""}, // keys inside a string are text
		{`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7,"k3":8}`, "k3"},
		{`{"o":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7},"k0":1}`, ""},
		{`{"a":[1,2,{"b":true,"c":null,"b":false}]}`, "a[2].b"},
		// A closed object's keys, in a list or in a set, are not the next one's.
		{`[{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7},{"k0":1}]`, ""},
		{`{"o":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7},"p":[{"k1":1},{"q":{"k1":1,"k1":2}}]}`, "p[1].q.k1"},
	}
	for _, c := range cases {
		if !validJSONString(c.in) {
			t.Fatalf("not JSON: %s", c.in)
		}
		reps, _ := repeatedKeys(c.in, 10)
		got := ""
		if len(reps) > 0 {
			got = reps[0].path
			if c.in[reps[0].at] != '"' {
				t.Errorf("%s: the repeat is at %d, not at a key", c.in, reps[0].at)
			}
		}
		if got != c.want {
			t.Errorf("%s: repeat %q, want %q", c.in, got, c.want)
		}
	}
}

// A line with a repeated key is a problem of that line (SPEC §3), on the
// fast path and on the slow one, at any depth; the task is named unless it
// is the repeated key.
func TestNative_RepeatedKeyIsAProblemOfThatLine(t *testing.T) {
	cases := []struct {
		line string
		task string
	}{
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"picker_opened","type":"send_fired"}`, "t1"},
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"send_fired","t\u0079pe":"picker_dismissed"}`, "t1"},
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","task":"t2","type":"send_fired"}`, ""},
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1","id":"C2"},"content":{"sha256":"` + strings.Repeat("a", 64) + `"}}`, "t1"},
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","output":{"stdout":"x","stdout":"y"}}`, "t1"},
		{`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"tool_output","output":[{"a":1},{"b":2,"b":3}],"detail":"` + strings.Repeat("x", 300) + `"}`, "t1"},
	}
	for _, c := range cases {
		for _, lean := range []bool{false, true} {
			var evs []Event
			res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(good + "\n" + c.line + "\n"), SpecFieldsOnly: lean}, func(e Event) { evs = append(evs, e) })
			if err != nil {
				t.Fatal(err)
			}
			in := res.Inputs[0]
			if len(evs) != 1 || len(in.Problems) != 1 {
				t.Errorf("%s (spec fields only %v): events %+v problems %+v, want the first line's event and one problem", c.line, lean, evs, in.Problems)
				continue
			}
			if p := in.Problems[0]; p.Line != 2 || p.Task != c.task || !strings.Contains(p.Message, "repeated key") {
				t.Errorf("%s: problem %+v, want line 2, task %q", c.line, p, c.task)
			}
		}
	}
}

// A type that differs from a known one only in case or separators is a
// problem of its line (SPEC §3); so is one a letter or two from a known
// type (after folding), or a look-alike the fold maps: a misspelt or
// disguised crossing, read as an unknown type, would be lost (a ninth
// review: a dotless ı, small capitals, a Hangul filler, a digit for a
// letter). Another unknown type is kept.
func TestNative_TypeCaseVariantIsAProblem(t *testing.T) {
	for _, c := range []struct {
		says  string
		types []string
	}{
		{"differs from", []string{"Send_Fired", "send-fired", "SEND_FIRED", "sendFired", " send_fired", "sendfired", "send fired", "Picker.Opened", "TASK_ENDED",
			"send_fıred", "ѕend_fıred", "ꜱend_fired", "ʀeadback", "send\u3164fired", "send\u115ffired", "stat\u00fas"}},
		{"a letter or two from", []string{"sent_fired", "s3nd_fired", "s3nd_f1red", "picker_accepte", "readbak", "gate_chek", "outgoing_item_sen", "sendfired!x",
			// Letters of scripts drawn like Latin that no table maps (a
			// tenth review): Lisu, Cherokee, Armenian, Latin with a hook.
			"ꓢꓰꓠꓓ_ꓝꓲꓣꓰꓓ", "ꮪꭼꮑd_fired", "ᏒᎬᎪᎠᏴᎪᏟᏦ", "ՏΕΝᎠ_FΙRΕᎠ", "reaɗɓacƙ", "ɾespօոse", "ƥꭵƈker_accepted", "օսƭgoing_item_seen"}},
	} {
		for _, typ := range c.types {
			for _, lean := range []bool{false, true} {
				var evs []Event
				line := `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"` + typ + `"}`
				res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(line + "\n"), SpecFieldsOnly: lean}, func(e Event) { evs = append(evs, e) })
				if err != nil {
					t.Fatal(err)
				}
				in := res.Inputs[0]
				if len(evs) != 0 || len(in.Problems) != 1 || in.Problems[0].Task != "t1" || !strings.Contains(in.Problems[0].Message, c.says) {
					t.Errorf("type %q (spec fields only %v): events %+v problems %+v notices %v", typ, lean, evs, in.Problems, in.Notices)
				}
			}
		}
	}
	for _, typ := range []string{"send_fired", "heartbeat", "send_fired_twice", "note", "tool_output", "progress", "checkpoint_saved", "resp", "sends",
		"сообщение", "送信送信送信送信", "screenshot"} {
		in, evs := readString(t, `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"`+typ+`"}`+"\n", 0)
		if len(evs) != 1 || len(in.Problems) != 0 {
			t.Errorf("type %q: events %+v problems %+v", typ, evs, in.Problems)
		}
	}
}

// A field in two spellings (type and Type) has two readings: a problem of
// the line, on the fast path and the slow one, whatever else the line holds.
func TestNative_FieldInTwoSpellingsIsAProblem(t *testing.T) {
	for _, extra := range []string{`"Type":"picker_accepted"`, `"TYPE":"send_fired"`, `"Idempotency-Token":"x"`,
		`"Intent":"q7"`, `"task_":"t2"`, `"T.S":"2026-11-30T07:00:00Z"`, `"Checkpoint":"send"`} {
		for _, lean := range []bool{false, true} {
			var evs []Event
			line := `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"picker_dismissed",` + extra + `}`
			res, err := Read([]string{"-"}, Options{Stdin: strings.NewReader(line + "\n"), SpecFieldsOnly: lean}, func(e Event) { evs = append(evs, e) })
			if err != nil {
				t.Fatal(err)
			}
			in := res.Inputs[0]
			if len(evs) != 0 || len(in.Problems) != 1 || in.Problems[0].Task != "t1" || !strings.Contains(in.Problems[0].Message, "two spellings") {
				t.Errorf("%s (spec fields only %v): events %+v problems %+v", extra, lean, evs, in.Problems)
			}
		}
	}
	for _, extra := range []string{`"detail":"x"`, `"Text":"a tool's output"`, `"typed":"x"`, `"task_id":"x"`} {
		in, evs := readString(t, `{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"note",`+extra+`}`+"\n", 0)
		if len(evs) != 1 || len(in.Problems) != 0 {
			t.Errorf("%s: events %+v problems %+v", extra, evs, in.Problems)
		}
	}
}

func TestClaudeCode_RepeatedKeyIsAProblemOfThatLine(t *testing.T) {
	const ok = `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-11-30T07:00:00Z","message":{"role":"user","content":"hi"}}`
	send := func(input string) string {
		return `{"type":"assistant","sessionId":"s1","uuid":"a1","timestamp":"2026-11-30T07:00:01Z","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"slack_post_message","input":` + input + `}]}}`
	}
	cases := []struct {
		name, line, task string
	}{
		{"a repeated argument", send(`{"channel_id":"C1","channel_id":"C2","text":"hi"}`), "s1"},
		{"a repeated session", `{"type":"assistant","sessionId":"s1","sessionId":"s2","uuid":"a1","timestamp":"2026-11-30T07:00:01Z","message":{"content":[]}}`, ""},
		{"a repeated agent", `{"type":"assistant","sessionId":"s1","isSidechain":true,"agentId":"a","agentId":"b","uuid":"a1","timestamp":"2026-11-30T07:00:01Z","message":{"content":[]}}`, ""},
		{"a repeated data object", `{"type":"progress","sessionId":"s1","uuid":"p1","timestamp":"2026-11-30T07:00:01Z","data":{"type":"agent_progress"},"data":{"type":"x"}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, evs := readAs(t, FormatClaudeCode, ok+"\n"+c.line+"\n")
			if len(in.Problems) != 1 || in.Problems[0].Line != 2 || in.Problems[0].Task != c.task || !strings.Contains(in.Problems[0].Message, "repeated key") {
				t.Errorf("problems %+v, want one at line 2 of task %q", in.Problems, c.task)
			}
			if got := types(evs); got != "task_started" {
				t.Errorf("events %s, want the session's start only", got)
			}
		})
	}
}

// In a document, a repeated key inside a record (an item, an event, a
// span) is a problem of that record, which is not read; the others are.
// A repeated key outside every record is a problem of no task.
func TestOpenAI_RepeatedKeyIsAProblemOfItsItem(t *testing.T) {
	call := func(id, args string) string {
		return `{"type": "function_call", "call_id": "` + id + `", "name": "slack_post_message", "arguments": ` + args + `}`
	}
	twoChannels := `{"channel": "C024BE91L", "channel": "C0OTHER01", "text": "weekly report"}`
	ins, evs := readFiles(t, map[string]string{
		"a.json": "{\"conversation\": \"conv_a\", \"input\": [\n" + call("call_000000000001", slackArgs) + ",\n" + call("call_000000000002", twoChannels) + "\n]}",
		"b.json": "{\"conversation\": \"conv_b\", \"conversation\": \"conv_c\", \"input\": [\n" + call("call_000000000003", slackArgs) + "\n]}",
	}, Options{})
	if p := ins[0].Problems; len(p) != 1 || p[0].Line != 3 || p[0].Task != "conv_a" || !strings.Contains(p[0].Message, `"input[1].arguments.channel"`) {
		t.Errorf("a.json problems %+v, want one of conv_a at line 3", p)
	}
	if p := ins[1].Problems; len(p) != 1 || p[0].Line != 1 || p[0].Task != "" || !strings.Contains(p[0].Message, `"conversation"`) {
		t.Errorf("b.json problems %+v, want one of no task at line 1", p)
	}
	n := 0
	for _, e := range evs {
		if e.Type == "request_sent" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d calls read, want the two with unique keys: %v", n, brief(evs))
	}
}

func TestOpenAI_RepeatedKeyInArgumentsTextIsAProblemOfTheCall(t *testing.T) {
	args := `"{\"channel\":\"C024BE91L\",\"channel\":\"C0OTHER01\",\"text\":\"weekly report\"}"`
	ins, evs := readFiles(t, map[string]string{
		"a.json": `{"conversation": "conv_a", "messages": [{"role": "assistant", "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "slack_post_message", "arguments": ` + args + `}}]}]}`,
	}, Options{})
	if p := ins[0].Problems; len(p) != 1 || p[0].Task != "conv_a" || !strings.Contains(p[0].Message, "arguments.channel") {
		t.Errorf("problems %+v", p)
	}
	if got := strings.Join(brief(evs), "|"); strings.Contains(got, "request_sent") {
		t.Errorf("events %s: the call has two readings and is not read", got)
	}
}

func TestOTel_RepeatedAttributesKeysAndSpanIDsAreProblemsOfTheSpan(t *testing.T) {
	const trace = "0af7651916cd43dd8448eb211c80319c"
	attr := func(k, v string) string { return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}` }
	span := func(id, extra string, attrs ...string) string {
		return `{"traceId":"` + trace + `","spanId":"` + id + `","name":"execute_tool slack_post_message","startTimeUnixNano":"1796026201000000000","endTimeUnixNano":"1796026202000000000"` + extra + `,"attributes":[` + strings.Join(attrs, ",") + `]}`
	}
	doc := func(spans ...string) string {
		return "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[\n" + strings.Join(spans, ",\n") + "\n]}]}]}"
	}
	args := attr("gen_ai.tool.call.arguments", otelArgsJSON)
	other := attr("gen_ai.tool.call.arguments", strings.ReplaceAll(otelArgsJSON, "C024BE91L", "C0OTHER01"))
	ok := span("c3f1a2b4d5e60718", "", attr("gen_ai.tool.name", "slack_post_message"), args)
	cases := []struct {
		name  string
		files map[string]string
		line  int
		has   string
	}{
		{"an attribute twice with different values", map[string]string{"a.json": doc(ok, span("e457b5a2e4d86bd1", "", args, other))}, 3, `attribute "gen_ai.tool.call.arguments" appears twice`},
		{"a repeated JSON key in a span", map[string]string{"a.json": doc(ok, span("e457b5a2e4d86bd1", `,"status":{"code":2},"status":{"code":1}`, args))}, 3, `repeated key "resourceSpans[0].scopeSpans[0].spans[1].status"`},
		{"one span id twice with different content", map[string]string{"a.json": doc(ok, span("c3f1a2b4d5e60718", `,"status":{"code":2}`, other))}, 3, "appears twice with different content"},
		{"one span id in two files with different content", map[string]string{"a.json": doc(ok), "b.json": doc(span("c3f1a2b4d5e60718", "", attr("gen_ai.tool.name", "slack_post_message"), other))}, 2, "read before with different content"},
		{"a repeated key in the arguments text", map[string]string{"a.json": doc(ok, span("e457b5a2e4d86bd1", "", attr("gen_ai.tool.call.arguments", `{\"channel\":\"C1\",\"channel\":\"C2\"}`)))}, 3, "arguments.channel"},
		{"the arguments under both names, different", map[string]string{"a.json": doc(ok, span("e457b5a2e4d86bd1", "", attr("gen_ai.tool.name", "slack_post_message"), args,
			attr("gen_ai.tool.args", strings.ReplaceAll(otelArgsJSON, "C024BE91L", "C0OTHER01"))))}, 3, "gen_ai.tool.call.arguments and gen_ai.tool.args"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, c.files, Options{})
			var probs []Problem
			for _, in := range ins {
				probs = append(probs, in.Problems...)
			}
			if len(probs) != 1 || probs[0].Line != c.line || !strings.Contains(probs[0].Message, c.has) {
				t.Errorf("problems %+v, want one at line %d saying %s", probs, c.line, c.has)
			}
			n := 0
			for _, e := range evs {
				if e.Type == "request_sent" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d calls read, want only the unambiguous one: %v", n, brief(evs))
			}
		})
	}
	// The same attribute twice with one value, and one span exported
	// twice as it was: one reading, no problem.
	ins, _ := readFiles(t, map[string]string{"a.json": doc(span("e457b5a2e4d86bd1", "", args, args)), "b.json": doc(span("e457b5a2e4d86bd1", "", args, args))}, Options{})
	for _, in := range ins {
		if len(in.Problems) != 0 {
			t.Errorf("%s: problems %+v", in.Path, in.Problems)
		}
	}
}

func TestTemporal_RepeatedKeyIsAProblemOfItsEvent(t *testing.T) {
	base := history(spelling{}, wf("", scheduled("a1", delivery), started(5, 1))...)
	cases := []struct {
		name, from, to, task string
	}{
		{"in an activity's attributes", `"activityId": "a1"`, `"activityId": "a1", "activityId": "a2"`, "run-1"},
		{"the event type", `"eventType": "ActivityTaskStarted"`, `"eventType": "ActivityTaskStarted", "eventType": "WorkflowTaskFailed"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(base, c.from, c.to, 1)
			if text == base {
				t.Fatalf("%q not in the history", c.from)
			}
			ins, _ := readTemporalText(t, map[string]string{"h.json": text})
			ps := ins[0].Problems
			if len(ps) != 1 || ps[0].Task != c.task || !strings.Contains(ps[0].Message, "repeated key") {
				t.Errorf("problems %+v, want one of task %q", ps, c.task)
			}
		})
	}
}

// The path of a repeat is the whole path clipped to 200 bytes, however
// deep the repeat (keyPath stops writing past them).
func TestRepeatedKeys_DeepPathClipped(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		depth := rapid.IntRange(0, 120).Draw(rt, "depth")
		var open, close, want strings.Builder
		for range depth {
			if rapid.Bool().Draw(rt, "array") {
				i := rapid.IntRange(0, 2).Draw(rt, "index")
				open.WriteString("[" + strings.Repeat("0,", i))
				close.WriteString("]")
				want.WriteString("[" + strconv.Itoa(i) + "]")
				continue
			}
			k := strings.Repeat(rapid.SampledFrom([]string{"k", "é", "ab"}).Draw(rt, "letter"), rapid.IntRange(1, 30).Draw(rt, "len"))
			open.WriteString(`{"` + k + `":`)
			close.WriteString("}")
			if want.Len() > 0 {
				want.WriteByte('.')
			}
			want.WriteString(clip(k, 40))
		}
		if want.Len() > 0 {
			want.WriteByte('.')
		}
		want.WriteString("dup")
		closers := []byte(close.String())
		slices.Reverse(closers)
		text := open.String() + `{"dup":1,"dup":2}` + string(closers)
		if !validJSONString(text) {
			rt.Fatalf("not JSON: %s", text)
		}
		reps, _ := repeatedKeys(text, 1)
		if len(reps) != 1 || reps[0].path != clip(want.String(), 200) {
			rt.Fatalf("%s: %v, want the path %q", text, reps, clip(want.String(), 200))
		}
	})
}
