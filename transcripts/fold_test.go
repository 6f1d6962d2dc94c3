package transcripts

import (
	"strings"
	"testing"
)

// SPEC §3: a type or field that differs from a known one only in letter
// case or separators is a problem of its line. What cannot be seen, and
// letters drawn like Latin ones, are no other word either (an eighth
// review: these read as unknown types, their crossings lost).
func TestVariants_InvisibleControlAndLookalikeCharacters(t *testing.T) {
	for typ, want := range map[string]string{
		"Send_Fired": "send_fired", "send fired": "send_fired", " send_fired": "send_fired",
		"send_fired\n": "send_fired", "readback\n": "readback", "send_fired\x00": "send_fired",
		"send_fired\u200b": "send_fired", "\ufeffsend_fired": "send_fired", "send\u00adfired": "send_fired",
		"send‐fired": "send_fired", "send–fired": "send_fired", "ѕend_fired": "send_fired",
		"sеnd_fіred": "send_fired", "ｓｅｎｄ＿ｆｉｒｅｄ": "send_fired", "sénd_fired": "send_fired",
		"send_fire\u0301d": "send_fired", "picker@opened": "picker_opened",
		strings.Repeat("\u200b", 100) + "readback": "readback",
		// Known types themselves, other words, and what is too long.
		"send_fired": "", "tool_output": "", "ﬁ": "", "send_fired_twice": "", "sendfiredx": "",
		"送信": "", strings.Repeat("a", 200): "",
	} {
		if got := typeVariant(typ); got != want {
			t.Errorf("typeVariant(%q) = %q, want %q", typ, got, want)
		}
	}
	for key, want := range map[string]string{
		"Destination": "destination", "destination\u200b": "destination", "dеstination": "destination",
		"@type": "type", "destination": "", "tool_output": "",
	} {
		if got := fieldVariant(key); got != want {
			t.Errorf("fieldVariant(%q) = %q, want %q", key, got, want)
		}
	}
	for typ, want := range map[string]string{
		"tool_use\u200b": "tool_use", "tооl_use": "tool_use", "Tool-Use": "tool_use", "tool_use": "", "thinking": "",
	} {
		if got := claudeVariant(typ, claudeContentNames); got != want {
			t.Errorf("claudeVariant(%q) = %q, want %q", typ, got, want)
		}
	}
}
