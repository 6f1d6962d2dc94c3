package analyzer

import (
	"fmt"
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
	const sha = `"content":{"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}`
	line := func(sec, rest string) string {
		return `{"ts":"2026-11-30T07:00:` + sec + `Z","task":"w1",` + rest + "}\n"
	}
	started := line("04", `"type":"task_started","relation":"delegated","parent":"p1"`)
	check := func(sec, named string) string {
		return line(sec, `"type":"gate_check","checkpoint":"send","decision":"allow"`+named)
	}
	intent := func(sec, id, channel string) string {
		return line(sec, `"type":"intent","intent":"`+id+`","destination":{"provider":"slack","id":"`+channel+`"},`+sha)
	}
	retreat := func(sec string) string { return line(sec, `"type":"picker_dismissed"`) }
	opened := func(sec string) string { return line(sec, `"type":"picker_opened"`) }
	for _, c := range []struct {
		name, text string
		copied     bool
	}{
		{"retreat after the intent", started + check("05", "") + intent("07", "w", "C2") + opened("08") + retreat("09"), true},
		{"retreat before the intent", started + check("05", "") + retreat("06") + intent("07", "w", "C2"), false},
		{"retreat at the intent's instant", started + check("05", "") + retreat("07") + intent("07", "w", "C2"), true},
		{"no retreat", started + check("05", "") + intent("07", "w", "C2"), true},
		// A sixteenth review: the approach at the instant of the task's
		// first intent; and an approach naming w, declared later, whose
		// only retreat is of intent a, in force then.
		{"approach at the intent's instant", started + check("07", "") + intent("07", "w", "C2"), true},
		{"retreat of another intent", started + intent("04", "a", "C3") + check("05", `,"intent":"w"`) + retreat("06") + intent("07", "w", "C2"), true},
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

// A resumed task that started at the instant its predecessor declared an
// intent may have taken over any intent of that instant or the one before:
// its history is incomplete, and it is a task of each one's key scope, so
// the states of all of them weigh it, whichever the order at the instant
// gives it (a property test: a keyed intent tied with a keyless one).
func TestInheritedAtATie_TheResumerIsATaskOfEveryScopeItMayHold(t *testing.T) {
	const sha = `"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"`
	line := func(task, sec, rest string) string {
		return `{"ts":"2026-11-30T07:00:` + sec + `Z","task":"` + task + `",` + rest + "}\n"
	}
	intent := func(sec, channel, content string) string {
		return line("t1", sec, `"type":"intent","destination":{"provider":"slack","id":"`+channel+`"},"content":`+content)
	}
	start := line("t1", "00", `"type":"task_started","relation":"sibling"`)
	resumed := line("t2", "03", `"type":"task_started","relation":"resumed","resumes":"t1"`)
	for _, c := range []struct {
		name, text string
		scopes     int // key scopes t2 is a task of
	}{
		{"two keyed at the instant", start + intent("03", "C1", `{"sha256":`+sha+`}`) + intent("03", "C2", `{"sha256":`+sha+`}`) + resumed, 2},
		{"one keyed before, one keyed at it", start + intent("01", "C1", `{"sha256":`+sha+`}`) + intent("03", "C2", `{"sha256":`+sha+`}`) + resumed, 2},
		{"keyed and keyless at the instant", start + intent("03", "C1", `{"path":"missing.pdf"}`) + intent("03", "C2", `{"sha256":`+sha+`}`) + resumed, 1},
		{"two keyless at the instant", start + intent("03", "C1", `{"path":"missing.pdf"}`) + intent("03", "C2", `{"path":"gone.pdf"}`) + resumed, 0},
	} {
		b := New()
		res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(c.text)}, b.Add)
		if err != nil {
			t.Fatal(err)
		}
		f := b.Build(res)
		if f.Tasks["t2"].Complete {
			t.Errorf("%s: t2's history is complete; which intent it took over is not known", c.name)
		}
		n := 0
		for _, s := range f.Scopes {
			for _, id := range s.Tasks {
				if id == "t2" {
					n++
				}
			}
		}
		if n != c.scopes {
			t.Errorf("%s: t2 is a task of %d key scopes, want %d", c.name, n, c.scopes)
		}
	}
}

// Evidence naming an id that every task of a chain declared, each for
// another channel, may be any of theirs: past maxReadings it is copied once
// with no destination known (which every check weighs), not once for each,
// which made N² copies (5 GB for a chain of 2,000).
func TestOtherReadings_ManyReadingsAreOneCopy(t *testing.T) {
	const n = 200
	var text strings.Builder
	for k := 0; k < n; k++ {
		rel := `"relation":"sibling"`
		if k > 0 {
			rel = fmt.Sprintf(`"relation":"resumed","resumes":"t%d"`, k-1)
		}
		at := func(i int) string {
			return fmt.Sprintf("2026-11-30T%02d:%02d:%02dZ", 7+(4*k+i)/3600, (4*k+i)/60%60, (4*k+i)%60)
		}
		fmt.Fprintf(&text, `{"ts":%q,"task":"t%d","type":"task_started",%s}`+"\n", at(0), k, rel)
		fmt.Fprintf(&text, `{"ts":%q,"task":"t%d","type":"intent","intent":"q","destination":{"provider":"slack","id":"C%d"},"content":{"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}}`+"\n", at(1), k, k)
		fmt.Fprintf(&text, `{"ts":%q,"task":"t%d","type":"send_fired","intent":"q"}`+"\n", at(2), k)
		fmt.Fprintf(&text, `{"ts":%q,"task":"t%d","type":"interrupted","reason":"crash"}`+"\n", at(3), k)
	}
	b := New()
	res, err := transcripts.Read([]string{"-"}, transcripts.Options{Stdin: strings.NewReader(text.String())}, b.Add)
	if err != nil {
		t.Fatal(err)
	}
	f := b.Build(res)
	nowhere := 0
	for _, u := range f.Unkeyed {
		if u.Rare().UnkeyedDestination == nil {
			nowhere++
		}
	}
	if len(f.Unkeyed) > n*(maxReadings+1) {
		t.Errorf("%d unkeyed copies for %d sends", len(f.Unkeyed), n)
	}
	if nowhere < n-maxReadings-1 {
		t.Errorf("%d copies with no destination, want one for each send past the first %d", nowhere, maxReadings+1)
	}
}
