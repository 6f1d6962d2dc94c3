package report

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/policy"
)

func TestGitHubEscaping_FollowsTheRunnersRules(t *testing.T) {
	cases := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\nb\rc", "a%0Ab%0Dc", "a%0Ab%0Dc"},
		{"t1.jsonl:5, t2", "t1.jsonl:5, t2", "t1.jsonl%3A5%2C t2"},
		{"%0A", "%250A", "%250A"},
	}
	for _, c := range cases {
		if got := githubData(c.in); got != c.data {
			t.Errorf("githubData(%q) = %q, want %q", c.in, got, c.data)
		}
		if got := githubProperty(c.in); got != c.prop {
			t.Errorf("githubProperty(%q) = %q, want %q", c.in, got, c.prop)
		}
	}
}

func TestFileURI_KeepsLinksInert(t *testing.T) {
	cases := []struct {
		path, want string
		ok         bool
	}{
		{"t1.jsonl", "t1.jsonl", true},
		{"logs/run 1 (retry).jsonl", "logs/run%201%20%28retry%29.jsonl", true},
		{"javascript:alert(1)", "javascript%3Aalert%281%29", true},
		{"/var/log/t#1.jsonl", "file:///var/log/t%231.jsonl", true},
		{"a,b;c?.jsonl", "a%2Cb%3Bc%3F.jsonl", true},
		{"-", "", false},
	}
	for _, c := range cases {
		got, ok := fileURI(c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("fileURI(%q) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
	if u, _ := lineURI(analyzer.Pointer{File: "t1.jsonl", Line: 12}); u != "t1.jsonl#L12" {
		t.Errorf("lineURI = %q", u)
	}
}

func TestMarkdownEscaping_LeavesNoMarkupActive(t *testing.T) {
	hostile := "<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** | cell | `code` @team #12 \x1b[31m"
	got := md(hostile)
	if strings.ContainsAny(got, "<>\x1b") {
		t.Errorf("md left a raw < > or ESC in %q", got)
	}
	// Every Markdown-active character must follow an odd run of backslashes.
	for i, r := range got {
		if !strings.ContainsRune("|@#[]*`", r) {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && got[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			t.Errorf("md left %q active at %d in %q", r, i, got)
		}
	}
	if !strings.Contains(got, `&lt;img`) || !strings.Contains(got, `\[click\]`) || !strings.Contains(got, `\x1b`) {
		t.Errorf("md(%q) = %q: text lost instead of escaped", hostile, got)
	}
	if got := mdCode("a`b|c"); got != "``a`b|c``" {
		t.Errorf("mdCode = %q", got)
	}
	if got := mdCode("`x"); got != "`` `x ``" {
		t.Errorf("mdCode = %q", got)
	}
}

func TestLevels_MapSeverities(t *testing.T) {
	want := map[string][2]string{
		"critical": {"error", "error"}, "high": {"error", "error"}, "medium": {"warning", "warning"},
		"low": {"note", "notice"}, "info": {"note", "notice"},
	}
	for sev, w := range want {
		if got := sarifLevel(sev); got != w[0] {
			t.Errorf("sarifLevel(%s) = %s, want %s", sev, got, w[0])
		}
		if got := githubLevel(sev); got != w[1] {
			t.Errorf("githubLevel(%s) = %s, want %s", sev, got, w[1])
		}
	}
	if got := ruleName("NO_RECHECK_AFTER_INTERRUPTION"); got != "NoRecheckAfterInterruption" {
		t.Errorf("ruleName = %q", got)
	}
}

func TestHumanGap(t *testing.T) {
	for d, want := range map[time.Duration]string{
		15*time.Hour + 10*time.Minute: "15h 10m",
		2 * time.Hour:                 "2h",
		50*time.Hour + 5*time.Minute:  "2d 2h 5m",
	} {
		if got := humanGap(d); got != want {
			t.Errorf("humanGap(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestFails_IsTheFailOnComparison(t *testing.T) {
	r := &Report{Summary: Summary{FailOn: "high"}}
	for sev, want := range map[string]bool{"critical": true, "high": true, "medium": false, "info": false} {
		if got := r.Fails(policy.Finding{Severity: sev}); got != want {
			t.Errorf("fail-on high: Fails(%s) = %v", sev, got)
		}
	}
	r.Summary.FailOn = "none"
	if r.Fails(policy.Finding{Severity: "critical"}) {
		t.Error("fail-on none failed a critical finding")
	}
}

// scaleReport is one key scope with n tasks: task 0 crossed, task 1 was
// interrupted, task 2 is named by a finding, the rest were stopped by the
// gate and ended.
func scaleReport(n int) *Report {
	k := KeyScope{Key: "k", Scope: "original", State: "sent_verified"}
	seq := 0
	for i := 0; i < n; i++ {
		id := string(rune('a'+i/26)) + string(rune('a'+i%26))
		ts := TaskSummary{ID: id, Ended: true, Complete: true}
		cls, typ := "check", "gate_check"
		switch i {
		case 0:
			cls, typ = "crossing", "send_fired"
		case 1:
			ts.Interruptions = []analyzer.Interruption{{Seq: 1000, TS: "2026-11-30T09:00:00Z", Reason: "crash", At: analyzer.Pointer{File: id, Line: 9}}}
		}
		k.Tasks = append(k.Tasks, ts)
		seq++
		k.Evidence = append(k.Evidence, Evidence{Seq: seq, TS: "2026-11-30T08:00:00Z", Task: id, Type: typ, Class: cls, File: id, Line: 2})
	}
	e := k.Evidence[0]
	k.Consumed = &e
	task := k.Tasks[2].ID
	key, scope := "k", "original"
	return &Report{Keys: []KeyScope{k}, Findings: []policy.Finding{{Rule: "X", Severity: "high", Key: &key, Scope: &scope, Task: &task}}}
}

func TestTimeline_CollapsesOnlyAboveTheThresholdAndKeepsWhatMatters(t *testing.T) {
	small := scaleReport(CollapseAbove)
	if tl := small.Timeline(small.Keys[0]); len(tl.Lanes) != CollapseAbove || len(tl.Collapsed) != 0 {
		t.Errorf("%d tasks: %d lanes, %d collapsed; want nothing collapsed", CollapseAbove, len(tl.Lanes), len(tl.Collapsed))
	}
	big := scaleReport(200)
	tl := big.Timeline(big.Keys[0])
	var lanes []string
	for _, l := range tl.Lanes {
		lanes = append(lanes, l.ID)
	}
	if strings.Join(lanes, ",") != "aa,ab,ac" {
		t.Errorf("lanes %v, want the crossing, the interrupted and the named task", lanes)
	}
	if len(tl.Collapsed) != 197 || tl.CollapsedMarks != 197 || len(tl.CollapsedAt) != 197 {
		t.Errorf("collapsed %d tasks, %d marks, %d pointers; want 197 each", len(tl.Collapsed), tl.CollapsedMarks, len(tl.CollapsedAt))
	}
	if len(tl.Marks) != 4 || !tl.Marks[0].Consumed || tl.Marks[3].Kind != kindInterruption || tl.Marks[3].Gap != time.Hour {
		t.Errorf("marks %+v", tl.Marks)
	}
}

func TestExcerpt_CutsLongTextKeepingIdentity(t *testing.T) {
	short := strings.Repeat("é", MaxText/2) // exactly MaxText bytes
	if excerpt(short) != short {
		t.Error("text of MaxText bytes was cut")
	}
	long := strings.Repeat("é", MaxText) // 2×MaxText bytes: cut inside a rune?
	got := excerpt(long)
	sum := sha256.Sum256([]byte(long))
	if want := long[:excerptKeep] + fmt.Sprintf("…[%d bytes, sha256:%x]", len(long), sum[:6]); got != want || !utf8.ValidString(got) {
		t.Errorf("excerpt = %q", got)
	}
	if excerpt(long+"x") == excerpt(long+"y") {
		t.Error("two long texts that differ at the end share an excerpt")
	}
	key := "v1|dest=slack/" + strings.Repeat("C", 5000) + "|sha256=" + strings.Repeat("0", 64)
	if k := excerptKey(key); !regexp.MustCompile(`^v1\|dest=slack/C+…\[5011 bytes, sha256:[0-9a-f]{12}\]\|sha256=0{64}$`).MatchString(k) {
		t.Errorf("excerptKey = %q", k)
	}
	if got := clean("\x1b[2J\u202eabc\u2066\u0085"); got != `\x1b[2J\u202eabc\u2066\x85` {
		t.Errorf("clean = %q", got)
	}
}

func TestJSON_EscapesWhatEncodingJSONLeavesRaw(t *testing.T) {
	in := []byte("{\"a\": \"x\x7fy\u0085z\u202e\u2066w é\"}")
	want := `{"a": "x\u007fy\u0085z\u202e\u2066w é"}`
	if got := string(escapeJSONControls(in)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	var v map[string]string
	if err := json.Unmarshal(escapeJSONControls(in), &v); err != nil || v["a"] != "x\x7fy\u0085z\u202e\u2066w é" {
		t.Errorf("the escaped JSON means something else: %q %v", v["a"], err)
	}
}

func TestJSON_CutsLongStringsInACopy(t *testing.T) {
	long := strings.Repeat("T", 3000)
	task := long
	r := &Report{Version: Version, Findings: []policy.Finding{{Rule: "R", Task: &task, Message: "task " + long}},
		Keys: []KeyScope{{Key: "k", Tasks: []TaskSummary{{ID: long}}}}}
	cut, err := cutLongStrings(r, json.Marshal, json.Unmarshal)
	if err != nil {
		t.Fatal(err)
	}
	if cut == r || *cut.Findings[0].Task != excerpt(long) || cut.Keys[0].Tasks[0].ID != excerpt(long) || cut.Findings[0].Message != excerpt("task "+long) {
		t.Errorf("not cut: %+v", cut)
	}
	if *r.Findings[0].Task != long || r.Keys[0].Tasks[0].ID != long {
		t.Error("the original report was changed")
	}
	small := &Report{Version: Version}
	if same, _ := cutLongStrings(small, json.Marshal, json.Unmarshal); same != small {
		t.Error("a report without long strings was copied")
	}
}

// The fence is one backtick longer than the longest run inside, as the
// loop that grew it until it was not found gave (quadratic in the run).
func TestMdCode_FenceAsGrown(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := rng.IntN(30); n > 0; n-- {
			b.WriteString([]string{"`", "``", "a", " ", "```"}[rng.IntN(5)])
		}
		s := clean(b.String())
		fence := "`"
		for strings.Contains(s, fence) {
			fence += "`"
		}
		pad := ""
		if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
			pad = " "
		}
		if got, want := mdCode(b.String()), fence+pad+s+pad+fence; got != want {
			t.Fatalf("mdCode(%q) = %q, want %q", b.String(), got, want)
		}
	}
}
