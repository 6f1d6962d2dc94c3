package transcripts

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// agentChain is an OTLP/JSON document of one trace: depth invoke_agent
// spans, each the parent of the next, the last one calling a tool.
func agentChain(depth int) string {
	var b strings.Builder
	b.WriteString(`{"resourceSpans": [{"scopeSpans": [{"spans": [`)
	for i := 0; i < depth; i++ {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`, "parentSpanId": "%016x"`, i)
		}
		fmt.Fprintf(&b, `{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "%016x"%s, "name": "invoke_agent a%d",
 "startTimeUnixNano": "%d", "endTimeUnixNano": "%d",
 "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}]},
`, i+1, parent, i, 1796026200000000000+int64(i)*1000, 1796026300000000000-int64(i)*1000)
	}
	fmt.Fprintf(&b, `{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "%016x", "parentSpanId": "%016x",
 "name": "execute_tool slack_post_message", "startTimeUnixNano": "1796026250000000000", "endTimeUnixNano": "1796026251000000000",
 "attributes": [{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\"channel\": \"C024BE91L\", \"text\": \"hi\"}"}}]}
]}]}]}`, depth+1, depth)
	return b.String()
}

// A delegated child's id names its parent task while the chain is short
// ("<parent>/agent-<span>", as before); deeper, the ancestry above is a
// hash, so ids stay bounded and a deep chain reads in near-linear time
// (issue 15: a 20,000-deep chain took 100 s, its last id ~460 KB).
func TestOTel_DeepAgentChainIDsStayBounded(t *testing.T) {
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	_, evs := readFiles(t, map[string]string{"trace.json": agentChain(6)}, Options{})
	parents := map[string]string{}
	for _, e := range evs {
		if e.Type == "task_started" {
			parents[e.Task] = e.Str("parent")
		}
	}
	// the trace task, its first agent (a root span: the trace's task
	// itself), then children named by their parent
	a2 := trace + "/agent-0000000000000002"
	a3 := a2 + "/agent-0000000000000003"
	a4 := a3 + "/agent-0000000000000004"
	for _, id := range []string{a2, a3, a4} {
		if _, ok := parents[id]; !ok {
			t.Errorf("no task %s; tasks %v", id, parents)
		}
	}
	if parents[a3] != a2 || parents[a4] != a3 {
		t.Errorf("parents: %v", parents)
	}
	var a5 string
	for id, p := range parents {
		if p == a4 {
			a5 = id
		}
	}
	if !strings.HasPrefix(a5, trace+"/~") || !strings.HasSuffix(a5, "/agent-0000000000000005") || len(a5) > len(a4) {
		t.Errorf("the child of %s is %q: want %s/~<hash>/agent-0000000000000005", a4, a5, trace)
	}

	depth := 20000
	if testing.Short() {
		depth = 5000
	}
	start := time.Now()
	_, evs = readFiles(t, map[string]string{"trace.json": agentChain(depth)}, Options{})
	took := time.Since(start)
	ids, longest := map[string]bool{}, 0
	for _, e := range evs {
		if e.Type == "task_started" {
			if ids[e.Task] {
				t.Fatalf("task %s started twice: two spans, one id", e.Task)
			}
			ids[e.Task] = true
			longest = max(longest, len(e.Task))
		}
	}
	if len(ids) != depth {
		t.Errorf("%d tasks for %d agent spans", len(ids), depth)
	}
	if longest > 200 {
		t.Errorf("the longest task id has %d bytes", longest)
	}
	// generous: about a second on a quiet machine, 100 s before
	if took > 30*time.Second {
		t.Errorf("a %d-deep chain took %v", depth, took)
	}
	t.Logf("%d-deep chain: %v, longest id %d bytes", depth, took, longest)
}
