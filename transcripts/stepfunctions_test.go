package transcripts

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/internal/sharedtest"
)

// sfnEv is one event of a test history: its type, previous event id and
// details (JSON object text, or "" for none). Event i (from 1) is written
// on line i+1.
type sfnEv struct {
	typ     string
	prev    int
	details string
}

func sfnHistory(extra string, evs ...sfnEv) string {
	var b strings.Builder
	b.WriteString(`{` + extra + `"events": [` + "\n")
	for i, e := range evs {
		fmt.Fprintf(&b, `{"timestamp": %d.5, "type": %q, "id": %d, "previousEventId": %d`, 1795975200+i, e.typ, i+1, e.prev)
		if e.details != "" {
			fmt.Fprintf(&b, `, %q: %s`, strings.ToLower(e.typ[:1])+e.typ[1:]+"EventDetails", e.details)
		}
		b.WriteString("}")
		if i < len(evs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.String()
}

const (
	sfnSNS    = `{"resourceType": "sns", "resource": "publish", "parameters": "{\"TopicArn\":\"arn:aws:sns:eu-west-1:1:reports\",\"Message\":\"weekly report\"}"}`
	sfnSNSRes = `{"resourceType": "sns", "resource": "publish"}`
	sfnLambda = `{"resourceType": "lambda", "resource": "invoke", "parameters": {"FunctionName": "arn:aws:lambda:eu-west-1:1:function:render", "Payload": {}}}`
)

func sfnStart() sfnEv {
	return sfnEv{"ExecutionStarted", 0, `{"input": "{}", "roleArn": "arn:aws:iam::1:role/r"}`}
}

func TestStepFunctions_TaskOutcomes(t *testing.T) {
	cases := []struct {
		name string
		evs  []sfnEv
		want []string
	}{
		{"succeeded: a confirmed delivery", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}, {"TaskSucceeded", 3, `{"output": "{\"MessageId\":\"m1\"}"}`},
			{"ExecutionSucceeded", 4, `{"output": "{}"}`}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3", "x response ok=true @5", "x task_ended status=completed @6"}},
		{"failed: a response not ok", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}, {"TaskFailed", 3, `{"error": "SNS.InternalError", "cause": "x"}`},
			{"ExecutionFailed", 4, `{"error": "SNS.InternalError"}`}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3", "x response ok=false @5", "x task_ended status=failed @6"}},
		{"timed out (heartbeat) after a submission: uncertainty", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}, {"TaskSubmitted", 3, `{"output": "{\"MessageId\":\"m1\"}"}`},
			{"TaskTimedOut", 4, `{"error": "States.HeartbeatTimeout"}`}, {"ExecutionFailed", 5, `{"error": "States.HeartbeatTimeout"}`}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3", "x outgoing_item_seen @5", "x timeout @6", "x task_ended status=failed @7"}},
		{"never started: nothing crossed", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStartFailed", 2, `{"error": "States.Permissions"}`}, {"ExecutionFailed", 3, `{}`}},
			[]string{"x task_started relation=root @2", "x task_ended status=failed @5"}},
		{"still running: an unconcluded crossing", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3"}},
		{"a lambda invoke is no delivery", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnLambda}, {"TaskStarted", 2, ""}, {"TaskSucceeded", 3, ""}, {"ExecutionSucceeded", 4, ""}},
			[]string{"x task_started relation=root @2", "x task_ended status=completed @6"}},
		{"a retried delivery: the retry restarts the segment", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}, {"TaskFailed", 3, `{"error": "States.TaskFailed"}`},
			{"TaskScheduled", 4, sfnSNS}, {"TaskStarted", 5, sfnSNSRes}, {"TaskSucceeded", 6, `{}`}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3", "x response ok=false @5",
				"x interrupted reason=retry @5", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @6",
				"x request_sent tool=sns:publish @6", "x response ok=true @8"}},
		{"a redrive is a restart", []sfnEv{sfnStart(),
			{"TaskScheduled", 1, sfnSNS}, {"TaskStarted", 2, sfnSNSRes}, {"TaskTimedOut", 3, `{"error": "States.Timeout"}`},
			{"ExecutionFailed", 4, `{}`}, {"ExecutionRedriven", 5, `{"redriveCount": 1}`},
			{"TaskScheduled", 6, sfnSNS}, {"TaskStarted", 7, sfnSNSRes}, {"TaskSucceeded", 8, `{}`}, {"ExecutionSucceeded", 9, `{}`}},
			[]string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
				"x request_sent tool=sns:publish @3", "x timeout @5", "x task_ended status=failed @6",
				"x task_started relation=root @7", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @8",
				"x request_sent tool=sns:publish @8", "x response ok=true @10", "x task_ended status=completed @11"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"h.json": sfnHistory(`"executionArn": "x", `, c.evs...)}, Options{})
			if ins[0].Format != FormatStepFunctions || len(ins[0].Problems) != 0 {
				t.Fatalf("format %s, problems %+v", ins[0].Format, ins[0].Problems)
			}
			assertLines(t, "events", brief(evs), c.want)
		})
	}
}

func TestStepFunctions_TimesAndTasks(t *testing.T) {
	ins, evs := readFiles(t, map[string]string{"h.json": sfnHistory("", sfnStart(), sfnEv{"ExecutionSucceeded", 1, `{}`})}, Options{})
	if ins[0].Format != FormatStepFunctions || len(evs) != 2 {
		t.Fatalf("format %s, %d events", ins[0].Format, len(evs))
	}
	// Without an executionArn the file names the execution.
	if !strings.HasPrefix(evs[0].Task, "stepfunctions:") || !strings.HasSuffix(evs[0].Task, "/h.json") {
		t.Errorf("task = %q", evs[0].Task)
	}
	// Epoch seconds with a fraction, exactly.
	if got := evs[0].TS.Format("2006-01-02T15:04:05.000Z07:00"); got != "2026-11-29T18:00:00.500Z" {
		t.Errorf("time = %s", got)
	}
	// The CLI's RFC 3339 times.
	doc := `{"events": [{"timestamp": "2026-11-29T19:00:00.250000+01:00", "type": "ExecutionStarted", "id": 1, "previousEventId": 0}]}`
	_, evs = readFiles(t, map[string]string{"h.json": doc}, Options{})
	if len(evs) != 1 || !evs[0].TS.Equal(evs[0].TS.UTC()) || evs[0].TS.UTC().Format("15:04:05.000") != "18:00:00.250" {
		t.Errorf("events %+v", evs)
	}
}

func TestStepFunctions_IncompleteHistoriesAreProblems(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"one page", strings.Replace(sfnHistory("", sfnStart()), `{"events"`, `{"nextToken": "AAAA", "events"`, 1), "nextToken"},
		{"a gap", strings.Replace(sfnHistory("", sfnStart(), sfnEv{"TaskStateEntered", 1, ""}, sfnEv{"ExecutionSucceeded", 2, ""}), `"id": 3`, `"id": 7`, 1), "events 3 to 6 are missing"},
		{"the start missing", strings.Replace(sfnHistory("", sfnEv{"TaskStateEntered", 0, ""}), `"id": 1`, `"id": 4`, 1), "earlier events are missing"},
		{"two events lists", strings.Replace(sfnHistory("", sfnStart()), `{"events"`, `{"events": [], "events"`, 1), "repeated key"},
		{"a task without its details", sfnHistory("", sfnStart(), sfnEv{"TaskScheduled", 1, ""}), "without its details"},
		{"an event without an id", strings.Replace(sfnHistory("", sfnStart(), sfnEv{"TaskScheduled", 1, sfnSNS}), `"id": 2`, `"id": "two"`, 1), "without a positive numeric id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, _ := readFiles(t, map[string]string{"h.json": c.doc}, Options{})
			var msgs []string
			for _, p := range ins[0].Problems {
				msgs = append(msgs, p.Message)
			}
			if ins[0].Format != FormatStepFunctions || !strings.Contains(strings.Join(msgs, "\n"), c.want) {
				t.Errorf("format %s, problems %q, want one saying %q", ins[0].Format, msgs, c.want)
			}
		})
	}
}

// A profile teaches the reader a delivery the built-in conventions do not
// know: a Lambda function that mails.
func TestStepFunctions_ProfileMakesATaskADelivery(t *testing.T) {
	p, err := ParseProfile("p", []byte(`{"name": "p", "rules": [{"name": "mailer lambda", "tool": "^lambda:invoke$", "arg": "FunctionName", "matches": "mailer",
		"evidence": "request_sent", "result": "response", "destination": {"provider": "mail", "id_args": ["Payload.to"]}, "content": {"text_args": ["Payload.body"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	task := `{"resourceType": "lambda", "resource": "invoke", "parameters": {"FunctionName": "mailer", "Payload": {"to": "ops@example.com", "body": "hi"}}}`
	_, evs := readFiles(t, map[string]string{"h.json": sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, task},
		sfnEv{"TaskStarted", 2, ""}, sfnEv{"TaskSucceeded", 3, ""})}, Options{Profile: p})
	assertLines(t, "events", brief(evs), []string{"x task_started relation=root @2", "x intent dest=mail/ops@example.com @3",
		"x request_sent tool=lambda:invoke @3", "x response ok=true @5"})
}

// TestStepFunctions_Corpus reads LocalStack's snapshot histories: 0
// problems; the normalized "timestamp" strings are a notice.
func TestStepFunctions_Corpus(t *testing.T) {
	dir := sharedtest.Path(t, "corpus/stepfunctions")
	res, evs := readPaths(t, Options{}, dir)
	if len(res.Inputs) != 3 {
		t.Fatalf("%d inputs", len(res.Inputs))
	}
	for _, in := range res.Inputs {
		if in.Format != FormatStepFunctions || len(in.Problems) != 0 || len(in.Notices) != 1 || !strings.Contains(in.Notices[0], "synthetic") {
			t.Errorf("%s: format %s, problems %+v, notices %q", in.Path, in.Format, in.Problems, in.Notices)
		}
	}
	count := map[string]int{}
	for _, e := range evs {
		count[filepath.Base(e.File)+" "+e.Type]++
	}
	want := map[string]int{
		// Three executions each send to SQS with waitForTaskToken: the
		// message is submitted, then the heartbeat times out.
		"localstack-test_heartbeats.snapshot.json task_started": 3, "localstack-test_heartbeats.snapshot.json intent": 3,
		"localstack-test_heartbeats.snapshot.json request_sent": 3, "localstack-test_heartbeats.snapshot.json outgoing_item_seen": 3,
		"localstack-test_heartbeats.snapshot.json timeout": 3, "localstack-test_heartbeats.snapshot.json task_ended": 3,
		// Lambda invokes, retried or timed out in a Map: no deliveries.
		"localstack-lambda-invoke-with-retry.snapshot-extract.json task_started": 1, "localstack-lambda-invoke-with-retry.snapshot-extract.json task_ended": 1,
		"localstack-lambda-map-timeout.snapshot-extract.json task_started": 1, "localstack-lambda-map-timeout.snapshot-extract.json task_ended": 1,
	}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("events by file and type:\n got %v\nwant %v", count, want)
	}
	for _, e := range evs {
		if e.Type == "intent" {
			d, _ := e.Fields["destination"].(map[string]any)
			if d["provider"] != "sqs" || d["id"] != "<sqs_queue_url>" {
				t.Errorf("intent destination %v", d)
			}
		}
	}
}

// FuzzReadStepFunctions: Step Functions histories; an input with no event
// has a problem (a history starts its execution, or says why not).
func FuzzReadStepFunctions(f *testing.F) {
	addSeeds(f, seedFiles(f, "../testdata/scenarios/fmt-stepfunctions-*/*.json", "../../shared/corpus/stepfunctions/*.json"))
	f.Add([]byte(sfnHistory(`"nextToken": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, sfnSNS}, sfnEv{"TaskFailed", 99, `{}`},
		sfnEv{"TaskScheduled", 3, sfnSNS}, sfnEv{"ExecutionRedriven", 4, `{"redriveCount": 1e99}`})))
	f.Add([]byte(`{"t::x": {"recorded-content": {"h": {"events": [{"type": "TaskTimedOut", "id": 1, "previousEventId": 1, "timestamp": 1e300}]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, evs := fuzzRead(t, data, Options{InputFormat: FormatStepFunctions})
		documentSaid(t, data, in, evs)
		if len(evs) == 0 && len(in.Problems) == 0 && len(in.Notices) == 0 {
			t.Fatalf("no events, no problem, no notice")
		}
	})
}

// TestNewReadersFuzzSeedsArePresent: the seed globs of the Step
// Functions, OpenInference, LangSmith and Inspect AI fuzz targets match
// (a glob that stops matching would make their seed runs nothing).
func TestNewReadersFuzzSeedsArePresent(t *testing.T) {
	for _, p := range []string{"../testdata/scenarios/fmt-stepfunctions-*/*.json", "../testdata/scenarios/fmt-openinference-*/*.json",
		"../testdata/scenarios/fmt-langsmith-*/*.json", "../testdata/scenarios/fmt-inspect-ai-*/*.json"} {
		if m, _ := filepath.Glob(p); len(m) == 0 {
			t.Errorf("no seed matches %s", p)
		}
	}
	sharedtest.Path(t, "corpus")
	for _, p := range []string{"../../shared/corpus/stepfunctions/*.json", "../../shared/corpus/inspect-ai/*.json"} {
		if m, _ := filepath.Glob(p); len(m) == 0 {
			t.Errorf("no corpus seed matches %s", p)
		}
	}
}

// Other logs of typed, numbered events are not taken for Step Functions
// histories.
func TestStepFunctions_DetectionNeedsTheHistoryShape(t *testing.T) {
	ins, _ := readFiles(t, map[string]string{"e.json": `{"events": [{"type": "PushEvent", "id": 1, "actor": "x"}]}`}, Options{})
	if ins[0].Format != FormatUnknown {
		t.Errorf("format %s, want unknown", ins[0].Format)
	}
	ins, _ = readFiles(t, map[string]string{"e.json": `{"events": [{"type": "ExecutionStarted", "id": 1, "timestamp": 1796026200, "executionStartedEventDetails": {"input": "{}"}}]}`}, Options{})
	if ins[0].Format != FormatStepFunctions {
		t.Errorf("format %s, want stepfunctions", ins[0].Format)
	}
}

// sfProblemsOf is the messages of an input's problems, one a line.
func sfProblemsOf(in Input) string {
	var msgs []string
	for _, p := range in.Problems {
		msgs = append(msgs, p.Message)
	}
	return strings.Join(msgs, "\n")
}

// A repeated key inside the JSON text of a task's parameters (or an
// activity's or Lambda function's input) has two readings: the task is a
// problem, not read with the first value.
func TestStepFunctions_RepeatedParameterKeyIsAProblem(t *testing.T) {
	cases := []struct{ name, typ, details, want string }{
		{"parameters", "TaskScheduled", `{"resourceType": "sns", "resource": "publish", "parameters": "{\"TopicArn\":\"arn:aws:sns:eu-west-1:1:reports\",\"Message\":\"m\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:other\"}"}`,
			`repeated key "parameters.TopicArn"`},
		{"nested", "TaskScheduled", `{"resourceType": "aws-sdk:ses", "resource": "sendEmail", "parameters": "{\"Destination\":{\"ToAddresses\":[\"a@example.com\"],\"ToAddresses\":[\"b@example.com\"]},\"Message\":{}}"}`,
			`repeated key "parameters.Destination.ToAddresses"`},
		{"an activity's input", "ActivityScheduled", `{"resource": "arn:aws:states:eu-west-1:1:activity:send", "input": "{\"to\":\"a\",\"to\":\"b\"}"}`,
			`repeated key "input.to"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"h.json": sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{c.typ, 1, c.details})}, Options{})
			if got := sfProblemsOf(ins[0]); !strings.Contains(got, c.want) || len(ins[0].Problems) != 1 || ins[0].Problems[0].Task != "x" || ins[0].Problems[0].Line != 3 {
				t.Errorf("problems %+v, want one of task x at line 3 saying %s", ins[0].Problems, c.want)
			}
			assertLines(t, "events", brief(evs), []string{"x task_started relation=root @2"})
		})
	}
}

// Two histories of one execution (one executionArn) that overlap are
// read once where they agree; an event they both hold that differs is a
// problem of the later one, never dropped as a copy.
func TestStepFunctions_DisagreeingOverlapIsAProblem(t *testing.T) {
	other := strings.Replace(sfnSNS, ":reports", ":other", 1)
	a := sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, sfnSNS}, sfnEv{"TaskStarted", 2, sfnSNSRes})
	same := sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, sfnSNS}, sfnEv{"TaskStarted", 2, sfnSNSRes},
		sfnEv{"TaskSucceeded", 3, `{}`})
	b := sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, other}, sfnEv{"TaskStarted", 2, sfnSNSRes})

	ins, evs := readFiles(t, map[string]string{"a.json": a, "b.json": same}, Options{})
	if len(ins[0].Problems)+len(ins[1].Problems) != 0 {
		t.Errorf("an agreeing overlap: problems %+v %+v", ins[0].Problems, ins[1].Problems)
	}
	// The later file's response concludes the earlier file's call.
	assertLines(t, "events", brief(evs), []string{"x task_started relation=root @2", "x intent dest=sns/arn:aws:sns:eu-west-1:1:reports @3",
		"x request_sent tool=sns:publish @3", "x response ok=true @5"})

	ins, _ = readFiles(t, map[string]string{"a.json": a, "b.json": b}, Options{})
	if len(ins[0].Problems) != 0 || len(ins[1].Problems) == 0 || ins[1].Problems[0].Task != "x" || ins[1].Problems[0].Line != 3 ||
		!strings.Contains(ins[1].Problems[0].Message, "event 2 differs") {
		t.Errorf("a disagreeing overlap: problems %+v / %+v, want one of task x in b.json at line 3", ins[0].Problems, ins[1].Problems)
	}
	// A time is part of what an event says.
	later := strings.Replace(a, "1795975201.5", "1795975299.5", 1)
	ins, _ = readFiles(t, map[string]string{"a.json": a, "b.json": later}, Options{})
	if len(ins[1].Problems) == 0 || !strings.Contains(ins[1].Problems[0].Message, "event 2 differs") {
		t.Errorf("another time: problems %+v", ins[1].Problems)
	}
}

// An event type that differs from a Step Functions type only in letter
// case or separators is a problem, not an unknown type skipped.
func TestStepFunctions_TypeCaseVariantIsAProblem(t *testing.T) {
	for _, typ := range []string{"taskScheduled", "TASKSCHEDULED", "Task_Scheduled", "executionSucceeded"} {
		t.Run(typ, func(t *testing.T) {
			doc := sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{typ, 1, sfnSNS})
			ins, _ := readFiles(t, map[string]string{"h.json": doc}, Options{})
			if got := sfProblemsOf(ins[0]); !strings.Contains(got, "only in letter case or separators") || ins[0].Problems[0].Line != 3 {
				t.Errorf("problems %+v", ins[0].Problems)
			}
		})
	}
	// Unknown types that are no variant stay unknown: skipped.
	ins, _ := readFiles(t, map[string]string{"h.json": sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"SomeFutureEvent", 1, ""})}, Options{})
	if len(ins[0].Problems) != 0 {
		t.Errorf("problems %+v", ins[0].Problems)
	}
}

// HTTP Tasks and API Gateway tasks with a writing method deliver their
// request body to their endpoint; a GET does not.
func TestStepFunctions_HTTPTasks(t *testing.T) {
	http := func(method, body string) string {
		p := fmt.Sprintf(`{"ApiEndpoint":"https://hooks.slack.com/services/T0/B0/x","Method":%q,"Authentication":{"ConnectionArn":"arn:aws:events:eu-west-1:1:connection/c"}%s}`, method, body)
		return fmt.Sprintf(`{"resourceType": "http", "resource": "invoke", "parameters": %q}`, p)
	}
	apigw := `{"resourceType": "apigateway", "resource": "invoke", "parameters": "{\"ApiEndpoint\":\"x.execute-api.eu-west-1.amazonaws.com\",\"Method\":\"POST\",\"Stage\":\"prod\",\"Path\":\"/send\",\"RequestBody\":{\"a\":1}}"}`
	cases := []struct {
		name, details string
		want          []string
		sha           string
	}{
		{"http POST", http("POST", `,"RequestBody":{"text":"Weekly report"}`), []string{"x intent dest=http/https://hooks.slack.com/services/T0/B0/x @3",
			"x request_sent tool=http:invoke @3"}, sha256Hex(`{"text":"Weekly report"}`)},
		{"http put, a string body", http("put", `,"RequestBody":"hello"`), []string{"x intent dest=http/https://hooks.slack.com/services/T0/B0/x @3",
			"x request_sent tool=http:invoke @3"}, sha256Hex("hello")},
		{"http POST without a body: no key", http("POST", ""), []string{"x request_sent tool=http:invoke @3"}, ""},
		{"http GET", http("GET", ""), nil, ""},
		{"API Gateway POST", apigw, []string{"x intent dest=http/https://x.execute-api.eu-west-1.amazonaws.com/prod/send @3",
			"x request_sent tool=apigateway:invoke @3"}, sha256Hex(`{"a":1}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, evs := readFiles(t, map[string]string{"h.json": sfnHistory(`"executionArn": "x", `, sfnStart(), sfnEv{"TaskScheduled", 1, c.details})}, Options{})
			if len(ins[0].Problems) != 0 {
				t.Errorf("problems %+v", ins[0].Problems)
			}
			assertLines(t, "events", brief(evs), append([]string{"x task_started relation=root @2"}, c.want...))
			for _, e := range evs {
				if e.Type == "intent" {
					if ct, _ := e.Fields["content"].(map[string]any); ct["sha256"] != c.sha {
						t.Errorf("content %v, want sha256 %s", e.Fields["content"], c.sha)
					}
				}
				if e.Type == "request_sent" && c.sha == "" && e.Fields["intent"] == nil {
					t.Errorf("a body-less POST has no intent field: %v", e.Fields)
				}
			}
		})
	}
}
