package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/transcripts"
)

// The page fits any window (no fixed width), times never wrap, paths and
// UUIDs are not cut at any character, and the counts of states and of
// severities are two tables.
func TestHTML_FluidWidthUnbrokenTimesAndTwoCountTables(t *testing.T) {
	r := scaleReport(3)
	r.Summary = Summary{FailOn: "high", States: map[string]int{"sent_verified": 1}, Findings: map[string]int{"high": 1}}
	var b bytes.Buffer
	if err := (htmlRenderer{}).Analyze(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	body := regexp.MustCompile(`(?m)^body\{[^}]*\}`).FindString(out)
	if body == "" || strings.Contains(body, "max-width") || strings.Contains(body, "width:") {
		t.Errorf("the body has a fixed width: %q", body)
	}
	if strings.Contains(out, "break-all") {
		t.Errorf("text may be cut at any character (word-break:break-all)")
	}
	if !regexp.MustCompile(`\.t\{[^}]*white-space:nowrap|\.mono,\.t\{white-space:nowrap`).MatchString(out) {
		t.Errorf("times may wrap: no white-space:nowrap on .t")
	}
	if !strings.Contains(out, `<td class="mono t">2026-11-30T08:00:00Z</td>`) {
		t.Errorf("event times are not marked as times")
	}
	if !strings.Contains(out, `<table class="summary states">`) || !strings.Contains(out, `<table class="summary severities">`) ||
		strings.Contains(out, "<th>severity</th><th>findings</th>") {
		t.Errorf("the counts are not two tables")
	}
}

// The same notice of many inputs is one item, with a count.
func TestHTML_GroupsRepeatedNotices(t *testing.T) {
	r := scaleReport(3)
	r.Summary = Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}
	for i := 0; i < 5; i++ {
		r.Inputs = append(r.Inputs, transcripts.Input{Path: "s" + strconv.Itoa(i) + ".jsonl", Notices: []string{"record types <x> not read"}})
	}
	var b bytes.Buffer
	if err := (htmlRenderer{}).Analyze(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "record types") != 1 || !strings.Contains(out, `<li>5 × notice: record types &lt;x&gt; not read (in <span class="mono">s0.jsonl</span>, <span class="mono">s1.jsonl</span>, <span class="mono">s2.jsonl</span> and 2 more)</li>`) {
		t.Errorf("notices not grouped:\n%s", out)
	}
}
