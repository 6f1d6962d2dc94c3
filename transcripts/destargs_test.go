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
		got, _ := destArgs(args, paths)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
	if _, present := destArgs(`{"path":"x"}`, paths); present {
		t.Error("a call with none of the arguments gives no destination argument")
	}
	if _, present := destArgs(`{"channel":{"id":"C1"}}`, paths); !present {
		t.Error("an object is a destination argument given (and unreadable)")
	}
}
