package cmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/effectlint/effectlint/internal/largescenario"
	"github.com/effectlint/effectlint/report"
)

// Tests of the output formats. Goldens for every format live next to the
// scenario goldens: testdata/golden/06-overnight-resume-duplicate/analyze.*
// for the incident, testdata/golden/large-200-workers/analyze.* for the
// generated fan-out of 200 workers (written to a temporary folder at test
// time). Refresh with GOLDIE_UPDATE=1 and read the diff.

// goldenExt names each format's golden file.
var goldenExt = map[string]string{
	"text": "txt", "markdown": "md", "html": "html", "json": "json",
	"sarif": "sarif", "junit": "junit.xml", "github": "github.txt",
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// largeScenario writes the generated scenario into a temporary folder.
func largeScenario(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := largescenario.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFormats_GoldensOfTheIncidentAndOfTwoHundredWorkers(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	root := repoRoot(t)
	cases := []struct {
		name    string
		dir     string
		formats []string
	}{
		// text and json of the incident are TestScenarios' goldens.
		{"06-overnight-resume-duplicate", filepath.Join(root, "testdata/scenarios/06-overnight-resume-duplicate"),
			[]string{"markdown", "html", "sarif", "junit", "github"}},
		{"large-200-workers", largeScenario(t), report.Formats},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.dir)
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(root, "testdata/golden", c.name)), goldie.WithNameSuffix(".golden"))
			for _, f := range c.formats {
				out, stderr, code := run(t, "analyze", "--color", "never", "--format", f, ".")
				if code != ExitFindings {
					t.Errorf("%s: exit %d, want 1 (findings); stderr %q", f, code, stderr)
				}
				g.Assert(t, "analyze."+goldenExt[f], ruleLinesNormalized(out))
			}
			if c.name != "06-overnight-resume-duplicate" {
				return
			}
			// The gate's answer that morning, in every format that can
			// say it (text and json are TestScenarios' goldens).
			for _, f := range []string{"markdown", "html", "junit", "github"} {
				out, stderr, code := run(t, "check", "--color", "never", "--format", f,
					"--task", "t2", "--checkpoint", "resume", "--as-of", "2026-11-30T08:09:59Z", ".")
				if code != ExitFindings {
					t.Errorf("check %s: exit %d, want 1 (stop); stderr %q", f, code, stderr)
				}
				g.Assert(t, "check-t2-resume-that-morning."+goldenExt[f], []byte(out))
			}
		})
	}
}

// TestLargeScenario_Verdicts states by hand, from SPEC §4 and §6, what the
// generated fan-out must give, so that its goldens rest on a checked story.
func TestLargeScenario_Verdicts(t *testing.T) {
	t.Chdir(largeScenario(t))
	out, stderr, code := run(t, "analyze", "--format", "json", ".")
	if code != ExitFindings {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	assertVerdicts(t, out, expectation{
		Scopes: []scope{
			{"slack/C0NIGHTLY", "original", "sent_verified"},  // w001 confirmed
			{"mail/ops@example.com", "original", "in_flight"}, // r2 fired, still running
			{"mail/ops@example.com", "original", "not_sent"},  // r1 opened and dismissed
			{"title:#general", "original", "open"},            // r3 running, nothing yet
		},
		Findings: []string{
			"DUPLICATE_DELIVERY w113", // w001, w113 (one token, counted once), w042
			"DUPLICATE_RISK_RESUME w042", "DUPLICATE_RISK_RESUME w113",
			"IGNORED_GATE_STOP w042", "IGNORED_GATE_STOP w113",
			"NO_RECHECK_AFTER_INTERRUPTION w042",
			"UNCHECKED_CROSSING w042", "UNCHECKED_CROSSING w042",
			"UNCHECKED_CROSSING w113", "UNCHECKED_CROSSING w113",
			"PROVIDER_DEDUPLICATED w113",
			"WEAK_DESTINATION_IDENTITY r3",
			"LABEL_CONTRADICTS_EVIDENCE w150", // claims sent_verified with no confirmation of its own
		},
	})
	var rep struct {
		Summary struct{ Tasks int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Summary.Tasks < 200 {
		t.Errorf("the large scenario has %d tasks (err %v), want at least 200", rep.Summary.Tasks, err)
	}
}

func TestText_CollapsesUneventfulTasksAndSaysSo(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	t.Chdir(largeScenario(t))
	out, _, _ := run(t, "analyze", "--color", "never", ".")
	// 196 stopped workers: w150 is stopped too, but carries a finding
	// (LABEL_CONTRADICTS_EVIDENCE), so it stays in view.
	if !strings.Contains(out, "196 uneventful task(s) collapsed") {
		t.Errorf("the text report does not say that it collapsed the 196 uneventful stopped workers")
	}
	k3 := out[strings.Index(out, "K3 "):strings.Index(out, "K4 ")]
	if n := strings.Count(k3, "\n"); n > 45 {
		t.Errorf("the 200-task key scope takes %d lines; the collapsed timeline should stay short", n)
	}
	for _, lane := range []string{" w001 ", " w042 ", " w113 "} {
		if !strings.Contains(k3, lane) {
			t.Errorf("lane %q missing from the timeline", lane)
		}
	}
	if strings.Contains(k3, " w057 ") {
		t.Errorf("an uneventful worker got a lane")
	}
}

func TestText_FitsTheWidth(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range []string{filepath.Join(root, "testdata/scenarios/06-overnight-resume-duplicate"), largeScenario(t)} {
		for _, width := range []int{80, 100, 140} {
			t.Setenv("COLUMNS", fmt.Sprint(width))
			out, _, _ := run(t, "analyze", "--color", "never", dir)
			for _, l := range strings.Split(out, "\n") {
				// Keys and the folder of the inputs are printed whole so
				// they can be copied.
				if n := len([]rune(l)); n > width && !strings.Contains(l, "v1|") && strings.TrimSpace(l) != dir+string(filepath.Separator) {
					t.Errorf("COLUMNS=%d: a line of %d cells: %q", width, n, l)
				}
			}
		}
	}
}

func TestText_ColorFlagsAndCI(t *testing.T) {
	rules := builtinRules(t)
	t.Setenv("CI", "true") // lipgloss turns color off under CI unless forced
	always, _, _ := runWith(t, "", rules, "analyze", "--color", "always", incident)
	auto, _, _ := runWith(t, "", rules, "analyze", incident)
	if !strings.Contains(always, "\x1b[") {
		t.Error("--color always under CI printed no color")
	}
	if strings.Contains(auto, "\x1b[") {
		t.Error("--color auto into a pipe printed color")
	}
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(always, ""); stripped != auto {
		t.Error("color changed the layout: --color always without its escapes differs from plain text")
	}
}

// findingSummary is "RULE severity" per finding, sorted.
func findingSummary(t *testing.T, jsonOut string) []string {
	t.Helper()
	var rep struct {
		Findings []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule+" "+f.Severity)
	}
	sort.Strings(out)
	return out
}

// TestFormats_AgreeOnTheVerdict: every renderer reads the same report, so
// every format shows the same findings and the same exit code, for every
// scenario.
func TestFormats_AgreeOnTheVerdict(t *testing.T) {
	t.Parallel() // no working folder or environment of its own (docs/testing.md)
	if testing.Short() {
		t.Skip("every scenario in every format, about 9 s; runs without -short")
	}
	dirs, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata/scenarios/*"))
	dirs = append(dirs, largeScenario(t))
	level := map[string]string{"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
	ghLevel := map[string]string{"critical": "error", "high": "error", "medium": "warning", "low": "notice", "info": "notice"}
	for _, d := range dirs {
		name := filepath.Base(d)
		jsonOut, _, code := run(t, "analyze", "--format", "json", d)
		want := findingSummary(t, jsonOut)
		var rep struct {
			Keys     []struct{ Key, Scope string }
			Findings []struct {
				Key, Scope *string
				Severity   string
			}
			Summary struct {
				Failed bool
				Events int
			}
		}
		if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil {
			t.Fatal(err)
		}
		// Each format rendered once; the checks below read these outputs.
		out := map[string]string{"json": jsonOut}
		for _, f := range report.Formats {
			if f == "json" {
				continue
			}
			o, _, c := run(t, "analyze", "--format", f, d)
			if c != code {
				t.Errorf("%s: --format %s exits %d, json exits %d", name, f, c, code)
			}
			out[f] = o
		}

		sarifOut := out["sarif"]
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct{ Rules []struct{ ID string } }
				}
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Level     string
					Props     struct{ Severity string } `json:"properties"`
				}
			}
		}
		if err := json.Unmarshal([]byte(sarifOut), &log); err != nil {
			t.Fatalf("%s: sarif: %v", name, err)
		}
		var got []string
		for _, r := range log.Runs[0].Results {
			got = append(got, r.RuleID+" "+r.Props.Severity)
			if r.Level != level[r.Props.Severity] {
				t.Errorf("%s: sarif level %s for severity %s", name, r.Level, r.Props.Severity)
			}
			if rules := log.Runs[0].Tool.Driver.Rules; r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("%s: sarif result %s points at rule index %d", name, r.RuleID, r.RuleIndex)
			}
		}
		sort.Strings(got)
		assertSameMultiset(t, name+" sarif findings", got, want)

		ghOut := out["github"]
		got = nil
		for _, l := range strings.Split(strings.TrimSpace(ghOut), "\n") {
			m := regexp.MustCompile(`^::(error|warning|notice) (?:file=[^,]*,line=\d+,)?title=([A-Z_]+) \((\w+)\)::`).FindStringSubmatch(l)
			if m == nil {
				continue
			}
			got = append(got, m[2]+" "+m[3])
			if m[1] != ghLevel[m[3]] {
				t.Errorf("%s: github %s for severity %s", name, m[1], m[3])
			}
		}
		assertSameMultiset(t, name+" github findings", got, want)

		junitOut := out["junit"]
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(junitOut), &suites); err != nil {
			t.Fatalf("%s: junit is not XML: %v", name, err)
		}
		wantCases, wantFailures := len(rep.Keys), 0
		failingScope := map[string]bool{}
		keyless := false
		scopes := map[string]bool{}
		for _, k := range rep.Keys {
			scopes[k.Key+" scope "+k.Scope] = true
		}
		for _, f := range rep.Findings {
			// A finding of no key scope of the report (none, or an
			// authorization's scope no intent uses) has JUnit's case for
			// findings without a key scope.
			id := "-"
			if f.Key != nil && scopes[*f.Key+" scope "+*f.Scope] {
				id = *f.Key + " scope " + *f.Scope
			} else {
				keyless = true
			}
			if rank(f.Severity) >= rank("high") {
				failingScope[id] = true
			}
		}
		if keyless {
			wantCases++
		}
		wantFailures = len(failingScope)
		if rep.Summary.Events == 0 { // the "nothing was read" case
			wantCases++
			wantFailures++
		}
		if len(suites.Suites) != 1 || suites.Tests != wantCases || len(suites.Suites[0].Cases) != wantCases || suites.Failures != wantFailures {
			t.Errorf("%s: junit has %d suite(s), %d test(s), %d failure(s); want 1, %d, %d", name, len(suites.Suites), suites.Tests, suites.Failures, wantCases, wantFailures)
		}
		if (suites.Failures > 0) != rep.Summary.Failed {
			t.Errorf("%s: junit failures %d but the report failed=%v", name, suites.Failures, rep.Summary.Failed)
		}
	}
}

func rank(sev string) int {
	return map[string]int{"critical": 5, "high": 4, "medium": 3, "low": 2, "info": 1}[sev]
}

func TestOutputFlag_WritesSeveralFormatsFromOneRun(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	dir := t.TempDir()
	args := []string{"analyze", "--color", "never", "--format", "json"}
	for _, f := range report.Formats {
		args = append(args, "--output", f+"="+filepath.Join(dir, "report."+goldenExt[f]))
	}
	stdout, stderr, code := run(t, append(args, incident)...)
	if code != ExitFindings {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	alone, _, _ := run(t, "analyze", "--color", "never", "--format", "json", incident)
	if stdout != alone {
		t.Error("--output changed standard output")
	}
	for _, f := range report.Formats {
		got, err := os.ReadFile(filepath.Join(dir, "report."+goldenExt[f]))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, _, _ := run(t, "analyze", "--color", "never", "--format", f, incident)
		if string(got) != want {
			t.Errorf("--output %s differs from --format %s", f, f)
		}
	}
	// check writes its decision too.
	p := filepath.Join(dir, "check.xml")
	_, _, code = run(t, "check", "--task", "t2", "--output", "junit="+p, incident)
	if b, err := os.ReadFile(p); code != ExitFindings || err != nil || !bytes.Contains(b, []byte("<failure")) {
		t.Errorf("check --output junit: exit %d, err %v, %q", code, err, b)
	}
}

func TestOutputFlag_RefusesBadSpecsBeforeReading(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"analyze", "--output", "sarif"}, "FORMAT=PATH"},
		{[]string{"analyze", "--output", "yaml=x.yaml"}, "unknown format"},
		{[]string{"analyze", "--output", "sarif=-"}, "name a file"},
		{[]string{"analyze", "--output", "sarif=a", "--output", "junit=a"}, "named twice"},
		{[]string{"analyze", "--output", "sarif=" + filepath.Join(dir, "no/such/dir/x.sarif")}, "no such file"},
		{[]string{"check", "--task", "t2", "--format", "sarif"}, "use it with analyze"},
		{[]string{"check", "--task", "t2", "--output", "sarif=x.sarif"}, "use it with analyze"},
	} {
		_, stderr, code := run(t, append(c.args, incident)...)
		if code != ExitError || !strings.Contains(stderr, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.err)
		}
	}
}

// hostileScenario is a history whose every string tries to be markup or a
// terminal escape, in a file whose name needs escaping in every format.
func hostileScenario(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	evil := `t<script>alert(1)</script>|*x*_[a](javascript:alert(1)) @team #1 %0A,:\u001b[2J\u0007\u0000]]>&amp;\n::error::x`
	lines := []string{
		`{"ts":"2026-11-30T07:00:00Z","task":"` + evil + `","type":"task_started","relation":"root"}`,
		`{"ts":"2026-11-30T07:00:01Z","task":"` + evil + `","type":"intent","destination":{"provider":"slack","id":"C1","title":"` + evil + `"},"content":{"sha256":"` + strings.Repeat("0", 64) + `"}}`,
		`{"ts":"2026-11-30T07:00:02Z","task":"` + evil + `","type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:03Z","task":"` + evil + `","type":"interrupted","reason":"` + evil + `"}`,
		`{"ts":"2026-11-30T07:00:04Z","task":"` + evil + `","type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:05Z","task":"` + evil + `","type":"` + evil + `"}`,
		`not json <b>`,
	}
	if err := os.WriteFile(filepath.Join(dir, "ev,il: (1) <b>.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFormats_TranscriptTextStaysInert(t *testing.T) {
	t.Chdir(hostileScenario(t))
	outs := map[string]string{}
	for _, f := range report.Formats {
		out, stderr, code := run(t, "analyze", "--color", "never", "--format", f, ".")
		if code == ExitError {
			t.Fatalf("%s: exit 2: %s", f, stderr)
		}
		outs[f] = out
		if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
			t.Errorf("%s: raw control character %q at %d", f, out[i], i)
		}
	}
	if !strings.Contains(outs["text"], `\x1b[2J`) {
		t.Error("text: the escape sequence is not shown escaped")
	}
	// HTML: no element from the transcript; the text is there, escaped.
	for _, bad := range []string{"<script", " <b>.jsonl", "href=\"javascript", "href=\"ev,il"} {
		if strings.Contains(outs["html"], bad) {
			t.Errorf("html: %q got through", bad)
		}
	}
	if !strings.Contains(outs["html"], "t&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("html: the hostile task id is not shown escaped")
	}
	if !strings.Contains(outs["html"], `href="ev%2Cil%3A%20%281%29%20%3Cb%3E.jsonl#L3"`) {
		t.Error("html: the evidence link is not an escaped relative URI")
	}
	// Markdown: no raw HTML from the transcript, no live link.
	if m := regexp.MustCompile(`<[a-z/]`).FindAllString(outs["markdown"], -1); len(m) != strings.Count(outs["markdown"], `<a id="f`)+strings.Count(outs["markdown"], "</a>") {
		t.Errorf("markdown: raw HTML from the transcript: %v", m)
	}
	if regexp.MustCompile(`[^\\]\]\(javascript`).MatchString(outs["markdown"]) {
		t.Error("markdown: a javascript link got through")
	}
	// JUnit: well-formed XML, control characters shown escaped.
	dec := xml.NewDecoder(strings.NewReader(outs["junit"]))
	for {
		_, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Errorf("junit is not well-formed XML: %v", err)
			}
			break
		}
	}
	if !strings.Contains(outs["junit"], `\x1b[2J`) {
		t.Error("junit: the escape sequence is not shown escaped")
	}
	// GitHub: one command per line; the file name's ',' and ':' escaped.
	for _, l := range strings.Split(strings.TrimSpace(outs["github"]), "\n") {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
			t.Errorf("github: a line that is not a workflow command: %q", l)
		}
	}
	if !strings.Contains(outs["github"], "file=ev%2Cil%3A (1) <b>.jsonl,line=") {
		t.Errorf("github: the file property is not escaped:\n%s", outs["github"])
	}
	var sarif map[string]any
	if err := json.Unmarshal([]byte(outs["sarif"]), &sarif); err != nil {
		t.Errorf("sarif is not JSON: %v", err)
	}
}
