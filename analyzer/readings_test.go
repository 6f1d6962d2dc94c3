package analyzer

import (
	"strings"
	"testing"

	"github.com/effectlint/effectlint/transcripts"
)

// An approach made before its task declared any intent is given the intent
// declared later, and also read with no intent in force (an unkeyed copy),
// unless a crossing or retreat of the same reading resolves it: one after
// the approach and before the intent. A retreat after the intent is that
// intent's, in its own key scope, and resolves nothing else (a fifteenth
// review: a check of another channel allowed).
func TestOtherReadings_AnApproachBeforeAnyIntentIsResolvedOnlyBeforeIt(t *testing.T) {
	const head = `{"ts":"2026-11-30T07:00:04Z","task":"w1","type":"task_started","relation":"delegated","parent":"p1"}
{"ts":"2026-11-30T07:00:05Z","task":"w1","type":"gate_check","checkpoint":"send","decision":"allow"}
`
	const intent = `{"ts":"2026-11-30T07:00:07Z","task":"w1","type":"intent","destination":{"provider":"slack","id":"C2"},"content":{"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}}
`
	const retreatAt6 = `{"ts":"2026-11-30T07:00:06Z","task":"w1","type":"picker_dismissed"}
`
	const pairAt8 = `{"ts":"2026-11-30T07:00:08Z","task":"w1","type":"picker_opened"}
{"ts":"2026-11-30T07:00:09Z","task":"w1","type":"picker_dismissed"}
`
	const retreatAt7 = `{"ts":"2026-11-30T07:00:07Z","task":"w1","type":"picker_dismissed"}
`
	for _, c := range []struct {
		name, text string
		copied     bool
	}{
		{"retreat after the intent", head + intent + pairAt8, true},
		{"retreat before the intent", head + retreatAt6 + intent, false},
		{"retreat at the intent's instant", head + retreatAt7 + intent, true},
		{"no retreat", head + intent, true},
	} {
		b := New()
		res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(c.text)}, b.Add)
		if err != nil {
			t.Fatal(err)
		}
		f := b.Build(res)
		copied := false
		for _, u := range f.Unkeyed {
			copied = copied || (u.Type == "gate_check" && strings.Contains(u.Rare().UnkeyedBecause, "declared no intent yet"))
		}
		if copied != c.copied {
			t.Errorf("%s: the approach read with no intent in force: %v, want %v (unkeyed %+v)", c.name, copied, c.copied, f.Unkeyed)
		}
	}
}
