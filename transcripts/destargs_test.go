package transcripts

import (
	"reflect"
	"testing"
)

// A call naming several destination arguments may deliver to any of them;
// one naming a destination no one could check (an object, a number) has
// none (fail closed). Found by an adversarial review of the hook: an extra
// channel_id re-keyed an MCP upload, and a list or an object let it
// through.
func TestDestArgs_EveryDestinationOrNone(t *testing.T) {
	paths := []string{"channel_id", "channel", "to"}
	for args, want := range map[string][]string{
		`{"channel":"C1"}`:                   {"C1"},
		`{"channel":"C1","channel_id":"C2"}`: {"C2", "C1"},
		`{"channel":"C1","channel_id":"C1"}`: {"C1"},
		`{"channel":["C1","C2"]}`:            {"C1", "C2"},
		`{"channel":{"id":"C1"}}`:            nil,
		`{"channel":true}`:                   nil,
		`{"channel":["C1",{"id":"C2"}]}`:     nil,
		`{"channel":"C1","to":7}`:            nil,
		`{"channel":null,"to":""}`:           nil,
		`{"path":"report.pdf"}`:              nil,
	} {
		got, _ := argValues(args, paths)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
	if _, present := argValues(`{"path":"x"}`, paths); present {
		t.Error("a call with none of the arguments gives no destination argument")
	}
	if _, present := argValues(`{"channel":{"id":"C1"}}`, paths); !present {
		t.Error("an object is a destination argument given (and unreadable)")
	}
}

// Every content argument of a call is a delivery of its own: an upload
// given a file and an attachment delivers both (an adversarial review:
// only the first was keyed, and a duplicate of the second went through).
func TestClassify_EveryContentArgumentIsADelivery(t *testing.T) {
	cl := ClassifyClaudeCodeCall(ClaudeCodeCall{Session: "s", ToolUseID: "t1", Name: "mcp__uploader__upload_file",
		Input: []byte(`{"channel":"C1","file":"other.pdf","attachment":"report.pdf"}`), Cwd: "/w"}, nil)
	var paths []string
	for _, in := range cl.Intents {
		if p, ok := in.Content["path"].(string); ok {
			paths = append(paths, p)
		}
	}
	if !cl.Delivery || !reflect.DeepEqual(paths, []string{"/w/other.pdf", "/w/report.pdf"}) {
		t.Fatalf("delivery %v, contents %q; want both files", cl.Delivery, paths)
	}
	cl = ClassifyClaudeCodeCall(ClaudeCodeCall{Session: "s", ToolUseID: "t2", Name: "mcp__uploader__upload_file",
		Input: []byte(`{"channel":"C1","path":{"name":"report.pdf"}}`), Cwd: "/w"}, nil)
	if len(cl.Intents) != 0 {
		t.Fatalf("an unreadable file argument gave intents %+v; want none (no key)", cl.Intents)
	}
}
