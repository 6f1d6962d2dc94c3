package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of issue 11's command-line parts: --path-map, --ignore, and the
// fail-closed reading of inputs no reader recognizes.

const (
	fcSHA  = "56e3374fadd347b5a41382218161a64614d3910ef356d2108e54c5bcdc778332"
	fcDest = `{"provider":"slack","id":"C024BE91L"}`
)

// TestPathMap_ReadsARecordedPathOnAnotherMachine: the agent ran under
// /home/agent/exports; the review happens here. Without --path-map the
// content cannot be hashed (the crossing is unkeyed: stop); with it, the
// file is found and keyed, so the sibling's check stops on the very key.
func TestPathMap_ReadsARecordedPathOnAnotherMachine(t *testing.T) {
	dir := t.TempDir()
	exports := filepath.Join(dir, "copied-exports")
	writeFile(t, filepath.Join(exports, "report.pdf"), "%PDF-1.4 fake report\n")
	writeFile(t, filepath.Join(dir, "t1.jsonl"), strings.Join([]string{
		`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"sibling"}`,
		`{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","destination":` + fcDest + `,"content":{"path":"/home/agent/exports/report.pdf"}}`,
		`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"gate_check","checkpoint":"send","decision":"allow"}`,
		`{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:04Z","task":"t1","type":"task_ended","status":"failed"}`,
	}, "\n")+"\n")
	sum := "sha256=" // the file's digest, as effectlint key computes it
	keyOut, _, code := runWith(t, "", builtinRules(t), "key", "--destination", "slack/C024BE91L", "--file", filepath.Join(exports, "report.pdf"))
	if code != ExitOK {
		t.Fatalf("key exit %d", code)
	}
	key := strings.TrimSpace(keyOut)
	if !strings.Contains(key, sum) {
		t.Fatalf("key %q", key)
	}
	check := []string{"check", "--task", "t9", "--checkpoint", "send", "--key", key}

	out, _, code := runWith(t, "", builtinRules(t), append(check, dir)...)
	if code != ExitFindings || !strings.Contains(out, "UNKEYED_CROSSING") {
		t.Errorf("without --path-map: exit %d, want a stop on the unkeyed crossing:\n%s", code, out)
	}
	out, _, code = runWith(t, "", builtinRules(t), append(check, "--path-map", "/home/agent/exports="+exports, dir)...)
	if code != ExitFindings || !strings.Contains(out, "KEY_CONSUMED") || strings.Contains(out, "UNKEYED_CROSSING") {
		t.Errorf("with --path-map: exit %d, want KEY_CONSUMED on the keyed crossing:\n%s", code, out)
	}
	// The longest FROM wins, and a FROM that is only a string prefix of a
	// path component does not match.
	out, _, _ = runWith(t, "", builtinRules(t), append(check, "--path-map", "/home=/nowhere", "--path-map", "/home/agent/exports="+exports, dir)...)
	if !strings.Contains(out, "KEY_CONSUMED") {
		t.Errorf("the longest --path-map did not win:\n%s", out)
	}
	out, _, _ = runWith(t, "", builtinRules(t), append(check, "--path-map", "/home/agent/exp="+exports, dir)...)
	if !strings.Contains(out, "UNKEYED_CROSSING") {
		t.Errorf("--path-map matched inside a path component:\n%s", out)
	}
	if _, stderr, code := runWith(t, "", builtinRules(t), append(check, "--path-map", "no-equals-sign", dir)...); code != ExitError || !strings.Contains(stderr, "FROM=TO") {
		t.Errorf("a malformed --path-map: exit %d, %q", code, stderr)
	}
}

// TestCheck_FailsClosedOnInputsItCannotRead_AndIgnoreLeavesThemOut: a file
// no reader recognizes next to a history may be a history of a format this
// version cannot read; analyze lists it, check stops, and --ignore is the
// documented way to leave known non-histories out.
func TestCheck_FailsClosedOnInputsItCannotRead_AndIgnoreLeavesThemOut(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "t1.jsonl"), fsGood)
	writeFile(t, filepath.Join(dir, "meta", "settings.json"), `{"theme":"dark","font":12}`+"\n")
	check := []string{"check", "--task", "t9", "--checkpoint", "send", "--destination", "slack/C0OTHER99", "--sha256", fcSHA}

	rep, code, _ := analyzeJSON(t, "", dir)
	if code != ExitOK || len(rep.Inputs) != 2 {
		t.Fatalf("analyze: exit %d, inputs %+v; want the unknown file listed, no failure", code, rep.Inputs)
	}
	out, _, code := runWith(t, "", builtinRules(t), append(check, dir)...)
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("check next to an unrecognized file: exit %d, want a stop:\n%s", code, out)
	}
	for _, glob := range []string{"settings.json", "meta/*", "*.json"} {
		out, stderr, code := runWith(t, "", builtinRules(t), append(check, "--ignore", glob, dir)...)
		if code != ExitOK {
			t.Errorf("--ignore %s: exit %d, want allow:\n%s%s", glob, code, out, stderr)
		}
	}
	if _, stderr, code := runWith(t, "", builtinRules(t), append(check, "--ignore", "[", dir)...); code != ExitError || !strings.Contains(stderr, "--ignore") {
		t.Errorf("a malformed --ignore glob: exit %d, %q", code, stderr)
	}
}

// TestAnalyze_StepFunctionsCorpusIsRead: issue 11 found these real
// histories "not recognized" (exit 2); issue 17 reads them. The three
// heartbeat executions send the same (normalized) message to the same
// queue, so analyze finds duplicates: exit 1, every input read.
func TestAnalyze_StepFunctionsCorpusIsRead(t *testing.T) {
	dir := needCorpus(t, "stepfunctions")
	out, stderr, code := runWith(t, "", builtinRules(t), "analyze", "--color", "never", dir)
	if code != ExitFindings || strings.Contains(out, "not recognized") || !strings.Contains(out, "DUPLICATE_DELIVERY") {
		t.Errorf("analyze %s: exit %d, stderr %q; want 1 with every history read\n%s", dir, code, stderr, out)
	}
}

// TestAsOf_TemporalActivityOpenAtThatTimeIsAnUnconcludedCrossing: a
// delivery activity scheduled before --as-of and started after it. The
// history as written then shows only Scheduled, which Temporal writes for
// a running activity too (Started comes with the close): the run may be
// sending, so its own check at send stops. Read whole and cut afterwards,
// the reader would have seen the later Started and left no crossing at T.
func TestAsOf_TemporalActivityOpenAtThatTimeIsAnUnconcludedCrossing(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/scenarios/fmt-temporal-incident/run-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	// One run alone: without the run it continues.
	doc := strings.Replace(string(b), `"continuedExecutionRunId": "0193a5b2-7c1e-7d40-9b5e-2f6a1c3e8d01",`, "", 1)
	if doc == string(b) {
		t.Fatal("the fixture changed: no continuedExecutionRunId to drop")
	}
	path := filepath.Join(t.TempDir(), "run.json")
	writeFile(t, path, doc)
	const run = "0193a5b3-5a09-7e1b-8c2d-4b7f9e0a6c12"
	check := []string{"check", "--task", run, "--checkpoint", "send", path}
	// 18:01:30.183071 scheduled, 18:01:30.190388 started.
	out, _, code := runWith(t, "", builtinRules(t), append([]string{check[0], "--as-of", "2026-11-29T18:01:30.185Z"}, check[1:]...)...)
	if code != ExitFindings || !strings.Contains(out, "ALREADY_CROSSED") {
		t.Errorf("as of after the activity was scheduled: exit %d, want ALREADY_CROSSED:\n%s", code, out)
	}
}

// A line that gives a key and also a destination or content naming
// another key has two readings (an adversarial review: read by its key
// alone, t1's send to slack/C1 hid and a check for slack/C1 allowed; a
// record keyed C2 with destination C1 authorized C2). Neither is taken: a
// problem of the line, and the check stops on the unreadable history.
func TestCheck_KeyAndDestinationThatDisagreeStop(t *testing.T) {
	c2 := "v1|dest=slack/C2|sha256=" + fcSHA
	c1 := "v1|dest=slack/C1|sha256=" + fcSHA
	other := "v1|dest=slack/C1|sha256=" + strings.Repeat("ab", 32)
	for _, c := range []struct {
		name, line string
		stops      bool
	}{
		{"intent key C2, destination C1", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + c2 + `","destination":{"provider":"slack","id":"C1"}}`, true},
		{"intent key of other content, content of this", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + other + `","content":{"sha256":"` + fcSHA + `"}}`, true},
		{"intent key and destination agree, title given", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + c1 + `","destination":{"provider":"slack","id":"C1","title":"fin"},"content":{"sha256":"` + strings.ToUpper(fcSHA) + `"}}`, false},
		// A fourth review: the parts a destination leaves out are the key's.
		{"intent key C2, destination id C1 alone", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + c2 + `","destination":{"id":"C1"}}`, true},
		{"intent key slack/C1, destination provider mail alone", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + c1 + `","destination":{"provider":"mail"}}`, true},
		{"intent key slack/C1, destination title alone", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","key":"` + c1 + `","destination":{"title":"fin"}}`, false},
		{"content sha256 of other bytes than its path's", `{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1"},"content":{"sha256":"` + fcSHA + `","path":"other.txt"}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "other.txt"), "other bytes\n")
			writeFile(t, filepath.Join(dir, "t1.jsonl"), strings.Join([]string{
				`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"task_started","relation":"root"}`,
				c.line,
				`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"send_fired"}`,
				`{"ts":"2026-11-30T07:00:03Z","task":"t1","type":"task_ended","status":"failed"}`,
			}, "\n")+"\n")
			out, _, code := runWith(t, "", builtinRules(t), "check", "--task", "t4", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", fcSHA, dir)
			if code != ExitFindings {
				t.Fatalf("exit %d, want a stop:\n%s", code, out)
			}
			if unreadable := strings.Contains(out, "HISTORY_UNREADABLE"); unreadable != c.stops {
				t.Errorf("HISTORY_UNREADABLE %v, want %v:\n%s", unreadable, c.stops, out)
			}
			if !c.stops && !strings.Contains(out, "KEY_CONSUMED") {
				t.Errorf("want KEY_CONSUMED on t1's send:\n%s", out)
			}
		})
	}
	// A digest beside a path that cannot be read is not confirmed: the
	// intent has no key (SPEC §2), and its crossing stops every check for
	// the destination, whatever the content (it was read by its sha256).
	dir0 := t.TempDir()
	writeFile(t, filepath.Join(dir0, "t1.jsonl"), strings.Join([]string{
		`{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"intent","destination":{"provider":"slack","id":"C1"},"content":{"sha256":"` + fcSHA + `","path":"gone.txt"}}`,
		`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"send_fired"}`,
	}, "\n")+"\n")
	out, _, code := runWith(t, "", builtinRules(t), "check", "--task", "t4", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", strings.Repeat("ab", 32), dir0)
	if code != ExitFindings || !strings.Contains(out, "UNKEYED_CROSSING") {
		t.Errorf("a sha256 beside an unreadable path: exit %d, want UNKEYED_CROSSING for other content:\n%s", code, out)
	}
	// A record keyed C2 whose destination is C1 authorizes neither.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "h.jsonl"), strings.Join([]string{
		`{"ts":"2026-11-30T07:00:00Z","task":"t1","type":"intent","key":"` + c2 + `"}`,
		`{"ts":"2026-11-30T07:00:01Z","task":"t1","type":"send_fired"}`,
		`{"ts":"2026-11-30T07:00:02Z","task":"t1","type":"readback","result":"confirmed"}`,
		`{"ts":"2026-11-30T07:00:03Z","task":"ops","type":"authorization","authorization":"A1","by":"alice","reason":"again","key":"` + c2 + `","destination":{"provider":"slack","id":"C1"}}`,
		`{"ts":"2026-11-30T07:00:04Z","task":"t2","type":"intent","key":"` + c2 + `","authorization":"A1"}`,
	}, "\n")+"\n")
	out, _, code = runWith(t, "", builtinRules(t), "check", "--task", "t2", "--checkpoint", "send", dir)
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("record whose key and destination disagree: exit %d, want HISTORY_UNREADABLE:\n%s", code, out)
	}
}

// Adversarial reviews of the order and attribution rules: each history
// stopped no check before its fix (the folders under
// testdata/adversarial hold them as the review wrote them).
func TestCheck_OrderAndAttributionCasesStop(t *testing.T) {
	const h = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	c1 := []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}
	ownSend := []string{"--task", "sess-one", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}
	sibling := []string{"--task", "sess-two", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}
	t2 := []string{"--task", "t2", "--checkpoint", "send"}
	for _, c := range []struct {
		dir, why string
		args     []string
	}{
		{"a1", "a send names q at the instant the resumer declares its own q: the inherited q may be meant", c1},
		{"tie4", "a worker's send at the instant of its first intent: it may have had none", []string{"--task", "p1", "--checkpoint", "send"}},
		{"m3", "two intents at the send's instant: the intent in force before may be meant", []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C0", "--sha256", h}},
		{"tzA", "a tie written with two UTC offsets is a tie", c1},
		{"au1", "a tie between two scopes of one key: A1's one more delivery may be spent", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h, "--authorization", "A1"}},
		{"k1", "a worker's send names the intent it declares only later", []string{"--task", "p1", "--checkpoint", "send"}},
		{"rs2", "a resumer's send names an intent its predecessor declares only later", c1},
		{"d2", "a worker's picker opened before it declared any intent, never resolved", []string{"--task", "p1", "--checkpoint", "send"}},
		{"y1", "a resumer of a resumer continues what that one held when it was resumed", []string{"--task", "x9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A fourth review's case, fixed by c23dda9 without a test: which
		// intent a resumer started at the instant its predecessor declared
		// q2 took over (q1, slack/C1, or q2) is not known; it allowed C1.
		{"rs-tie", "a resumer started at the instant its predecessor declared another key's intent", c1},
		// A fifth review: an allowed `effectlint check` for slack/C1 in a
		// session went to the session's later post to slack/C2.
		{"cc-check-then-other-post", "a Claude Code session's allowed check names its key", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"openai-check-then-other-post", "an OpenAI conversation's allowed check names its key", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// An eighth review: a delegated worker's crossing whose type is a
		// known one with an invisible, control or look-alike character was
		// read as an unknown type, and its parent's send allowed.
		{"type-cyrillic", "send_fired with a Cyrillic ѕ is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-zero-width", "send_fired with a zero-width space is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-unicode-hyphen", "send‐fired with a Unicode hyphen is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-nul", "send_fired with a NUL is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-newline", "readback with a newline is a misspelt readback", []string{"--task", "p1", "--checkpoint", "send"}},
		// A ninth review: look-alikes the fold did not know. A type a
		// letter or two from a known one is now a problem of its line.
		{"type-dotless", "send_fıred with a dotless ı is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-small-caps", "ꜱend_fired with a small capital S is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-hangul-filler", "send_fired with a Hangul filler for its underscore is a misspelt send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-digit", "s3nd_fired is a letter from send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		{"type-one-letter", "sent_fired is a letter from send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		// A tenth review: a script drawn like Latin that no table maps.
		{"type-lisu", "send_fired in Lisu letters is a disguised send_fired", []string{"--task", "p1", "--checkpoint", "send"}},
		// Found beside an eleventh review: the rules parted a title's words
		// at ASCII white space only, the analyzer at any.
		{"title-nbsp", "a send known by \"#a<no-break space>b\" may have gone to the channel titled \"#a b\"", c1},
		// A twelfth review: the check resolved t2's picker_opened (under its
		// slack/C1 intent) by its picker_dismissed under a title-only intent,
		// another scope it weighs; analyze calls the scope send_status_unknown.
		{"retreat-other-scope", "a retreat in another weighed scope resolves no approach", c1},
		// A fifteenth review: w1's allowing send check came before it
		// declared any intent; the retreat after it is its slack/C2
		// intent's, which resolves nothing of the no-intent reading.
		{"preintent-approach-other-scope", "a retreat after the intent resolves no approach made before any intent", []string{"--task", "p1", "--checkpoint", "send"}},
		// A sixteenth review, of that fix: the same approach at the very
		// instant of its task's first intent, and one naming an intent
		// declared later, its retreat another intent's.
		{"preintent-approach-at-first-intent", "an approach at the instant of the task's first intent may have had none", []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"preintent-named-approach-other-intent-retreat", "a retreat of the intent in force resolves no approach naming one declared later", []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// Stop 25's CI (a random history): unkeyed evidence was resolved
		// by any unkeyed evidence of its task that named no intent, so a
		// keyless intent's crossing resolved the no-intent reading of an
		// approach at the intent's instant, and one keyless intent's
		// retreat another's approach.
		{"keyless-crossing-resolves-no-intent-reading", "a keyless intent's crossing of another channel resolves no approach read with no intent", []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"keyless-retreat-of-another-intent", "a keyless intent's retreat resolves no approach of another keyless intent", []string{"--task", "t3", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A seventeenth review, of that fix: intent ids are a task's own,
		// and a resumed task's keyless intent may bear its predecessor's.
		{"resumer-own-keyless-id-of-predecessor", "a retreat of the resumer's keyless q1 resolves no approach that may be its predecessor's q1", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"resumer-own-keyless-automatic-id", "the same with the automatic id #1", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"resumer-keyless-retreat-of-inherited", "a retreat of the resumer's keyless #1 resolves no approach of the inherited keyless #1", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A nineteenth review: an unnamed retreat after two intents of one
		// instant may be either's (the first stopped before the change
		// above and allowed after it); a resumer inherits one of two tied
		// intents, or starts at a tie of two keyless ones; evidence names
		// an id its predecessor declared only after the resumer started;
		// a keyless intent's URL written in another spelling.
		{"unnamed-retreat-after-tied-intents", "an unnamed retreat after tied intents L and N resolves no approach naming keyless L", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"unnamed-retreat-after-tied-keyed-intents", "the same with keyed intents", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"resumer-inherits-one-of-two-tied", "a resumer's send may be either tied intent's", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"resumer-at-tie-of-keyless-intents", "a resumer started at the instant of a second keyless intent took over one of two", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"named-evidence-late-predecessor-intent", "evidence naming q is the q in force, not one its predecessor declared after it started", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"keyless-url-spelled-otherwise", "a keyless intent's URL is weighed in its canonical form", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://example.com/hook", "--sha256", h}},
		// A thirty-third review: one URL under the providers https and
		// http was two destinations, apart for every check; so were its
		// two schemes.
		{"url-provider-https-keyless", "a keyless crossing to https/URL may be the check's http/URL", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://example.com/hook", "--sha256", h}},
		{"url-provider-https-keyed", "a keyed crossing to https/URL consumed the same content's http/URL", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://example.com/hook", "--sha256", h}},
		{"url-scheme-http-keyed", "a crossing to http://URL may have reached https://URL", []string{"--task", "t9", "--checkpoint", "send", "--destination", "https/https://example.com/hook", "--sha256", h}},
		// A thirty-fourth review, of that fix: a port of either scheme's
		// default, and a URL written without its scheme.
		{"url-explicit-port-other-scheme", "a crossing to https://example.com:443/hook may be http://example.com:443/hook's", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/http://example.com:443/hook", "--sha256", strings.Repeat("a", 64)}},
		{"url-without-scheme", "a crossing to http/example.com/hook may be https://example.com/hook's", []string{"--task", "t9", "--checkpoint", "send", "--destination", "https/https://example.com/hook", "--sha256", strings.Repeat("a", 64)}},
		// A thirty-fifth review: an id written without a scheme was never
		// made canonical.
		{"url-schemeless-spelled-otherwise", "http/ex.com/./hook is the URL t1 delivered to", []string{"--task", "t2", "--checkpoint", "send", "--destination", "http/ex.com/./hook", "--sha256", strings.Repeat("a", 64)}},
		{"url-schemeless-spelled-otherwise", "and so is https/ex.com:443/a/../hook", []string{"--task", "t2", "--checkpoint", "send", "--destination", "https/ex.com:443/a/../hook", "--sha256", strings.Repeat("a", 64)}},
		// A thirty-sixth review: a path's letters beyond ASCII in other
		// letter case (the canonical form had them in %XX form).
		{"url-nonascii-letter-case", "a send to http/ex.com/café may be https/https://ex.com/CAFÉ's", []string{"--task", "t9", "--checkpoint", "send", "--destination", "https/https://ex.com/CAF%C3%89", "--sha256", strings.Repeat("a", 64)}},
		{"url-nonascii-letter-case", "and http/ex.com/CAFÉ's", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/ex.com/CAFÉ", "--sha256", strings.Repeat("a", 64)}},
		// A thirty-seventh review: backslashes for slashes, and unreserved
		// characters in %XX form in the host.
		{"url-backslash-and-host-escapes", `HTTP:\\h.com\x is http://h.com/x`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/HTTP:\\h.com\x`, "--sha256", strings.Repeat("a", 64)}},
		{"url-backslash-and-host-escapes", "http://%68.com/x is http://h.com/x", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/http://%68.com/x", "--sha256", strings.Repeat("a", 64)}},
		// A thirty-ninth review: a WHATWG parser (a browser, Node's fetch)
		// reads a backslash in an http(s) path as a slash; servers merge
		// slashes, route /hook/ as /hook and may decode %2F.
		{"url-path-separators", `https://h.com/hooks\a is the request https://h.com/hooks/a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks\a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and so may be /hooks%2Fa", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hooks%2Fa", "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and /hooks//a/", []string{"--task", "t9", "--checkpoint", "send", "--destination", "https/h.com/hooks//a/", "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and h.com\hooks\a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/h.com\hooks\a`, "--sha256", strings.Repeat("a", 64)}},
		// The fortieth review: a backslash beside a dot segment. A WHATWG
		// parser reads /hooks/x\..\a as /hooks/x/../a, which is /hooks/a.
		{"url-path-separators", `and /hooks/x\..\a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks/x\..\a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and /hooks\.\a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks\.\a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and /hooks/a\.`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks/a\.`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and /hooks/x/%2e%2E%5Ca", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hooks/x/%2e%2E%5Ca", "--sha256", strings.Repeat("a", 64)}},
		// The forty-first: a ".." that pops a segment a backslash parts
		// (a browser sends /hooks/a; a key that removed the dot segments
		// as curl does had lost it), %2F beside them, and a %5C inside a
		// popped segment, which only curl's reading pops whole.
		{"url-path-separators", `and /hooks/a\b/../..\a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks/a\b/../..\a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and /hooks/a\x/..`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks/a\x/..`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and /hooks/x%2Fy\..\a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/hooks/x%2Fy\..\a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and /hooks/q%5Cr/../a", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hooks/q%5Cr/../a", "--sha256", strings.Repeat("a", 64)}},
		// The forty-second: what url.Parse refused was kept as written
		// (a bad % in the fragment, userinfo it refuses), and curl reads
		// %2E as data (it sends /hooks/%2e%2e/../a as /hooks/a).
		{"url-path-separators", "and /hooks/a#100%", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hooks/a#100%", "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and u^@h.com/hooks/a", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://u^@h.com/hooks/a", "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and /hooks/%2e%2e/../a", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hooks/%2e%2e/../a", "--sha256", strings.Repeat("a", 64)}},
		// The forty-third: "://" in an id without a scheme (curl sends
		// h.com/hooks/a#:// as GET /hooks/a).
		{"url-path-separators", "and h.com/hooks/a#://", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/h.com/hooks/a#://", "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", "and u:p@h.com/hooks/a#a://b", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/u:p@h.com/hooks/a#a://b", "--sha256", strings.Repeat("a", 64)}},
		// The forty-fourth: curl ends the authority at a slash only, so a
		// backslash before an @ is userinfo to it (it sends
		// https://u\@h.com/hooks/a to h.com as /hooks/a).
		{"url-path-separators", `and https://u\@h.com/hooks/a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://u\@h.com/hooks/a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and u:p\@h.com:443/hooks/a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://u:p\@h.com:443/hooks/a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and https://u\@h.com.:/hooks/a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://u\@h.com.:/hooks/a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-separators", `and http:x\@h.com/hooks/a`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/http:x\@h.com/hooks/a`, "--sha256", strings.Repeat("a", 64)}},
		{"url-path-escapes", `/s/a%40b\c is /s/a%40b/c`, []string{"--task", "t9", "--checkpoint", "send", "--destination", `http/https://h.com/s/a%40b\c`, "--sha256", strings.Repeat("a", 64)}},
		// The same review: a WHATWG parser writes an IP address in one
		// form, reads a port as a number and removes tabs and newlines.
		{"url-host-spellings", "https://2130706433/hooks/a is https://127.0.0.1/hooks/a", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://2130706433/hooks/a", "--sha256", strings.Repeat("a", 64)}},
		{"url-host-spellings", "and so is 0x7f.1", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://0x7f.1/hooks/a", "--sha256", strings.Repeat("a", 64)}},
		{"url-host-spellings", "[0:0::1] is [::1]", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://[0:0::1]/hooks/b", "--sha256", strings.Repeat("a", 64)}},
		{"url-host-spellings", ":0443 is the default port", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com:0443/hooks/c", "--sha256", strings.Repeat("a", 64)}},
		{"url-host-spellings", "a tab in the path is removed", []string{"--task", "t9", "--checkpoint", "send", "--destination", "http/https://h.com/hoo\tks/c", "--sha256", strings.Repeat("a", 64)}},
		// The same review: titles that differ by a simple case fold only.
		{"title-long-s", "a keyless send to \"#ſales\" may have gone to \"#Sales\"", []string{"--task", "t9", "--checkpoint", "send", "--title", "#Sales", "--sha256", h}},
		{"title-final-sigma-keyed", "a send to chat/ΟΔΟΣ consumed chat/οδος", []string{"--task", "t9", "--checkpoint", "send", "--destination", "chat/οδος", "--sha256", h}},
		{"title-final-sigma-keyed", "and the channel titled οδος", []string{"--task", "t9", "--checkpoint", "send", "--title", "οδος", "--sha256", h}},
		// A twentieth review: where intents share an instant, each may be
		// the one in force. A predecessor declared the named id at the
		// instant its resumer started (the first stopped before
		// inheritedNamed, which gave the send the other q; the second is
		// the same with task ids that sort the other way); the intent in
		// force before an instant, or before a resumer's start, was one
		// of two; a send check without a key of a task whose latest
		// intents are tied; a running resumer of tied intents.
		{"named-id-at-resumer-start", "a send naming q may be either q: the one declared at the resumer's start", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"named-id-at-resumer-start-other-order", "or the one before", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C0", "--sha256", h}},
		{"evidence-at-intent-after-tied-pair", "evidence at q3's instant may be q1's or q2's, tied before", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"resumer-at-tie-after-tied-pair", "a resumer started at q's instant may hold a or b, tied before", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C2", "--sha256", h}},
		{"send-check-of-tied-latest-intents", "t1's send check judges both tied latest intents; C1 was sent by t5", []string{"--task", "t1", "--checkpoint", "send"}},
		{"resumer-of-tied-intents-running", "a running resumer may hold either tied intent: it is elected", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A twenty-first review: a dismissal naming q1 after a task it
		// continues declared another q1 (the first stopped before
		// b3ae5d2 by another reading, the second allowed before too).
		{"named-retreat-late-predecessor-id", "a retreat naming q1 may be the late q1's: it resolves no approach", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"named-retreat-late-older-predecessor-id", "the same through an older predecessor", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A twenty-second review: the same when the id names no intent
		// the task took over (both were declared after it started).
		{"named-retreat-undeclared-id-late-lineage", "a retreat naming q1 that two tasks it continues declared since resolves nothing", []string{"--task", "t9", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A twenty-third review: an approach of nine readings, copied
		// once with no intent, was resolved by a retreat of no intent.
		{"many-readings-approach-unnamed-retreat", "an approach of more readings than eight is resolved by nothing", []string{"--task", "t99", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A sixth review, of agents' own checks.
		{"k_quoted", `--checkpoint "send", quoted, is send`, []string{"--task", "22222222-0000-0000-0000-000000000002", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"c_globalflag", "effectlint --color never check … is a check", []string{"--task", "22222222-0000-0000-0000-000000000002", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"p_arr_ck", "an OpenAI shell call's argv array running bash -lc 'effectlint check …', read with its output", []string{"--task", "conv_S2", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"q_local_lc", "a local_shell_call of bash -lc 'curl …' keeps its script whole", []string{"--task", "conv_S2", "--checkpoint", "send", "--destination", "http/https://x.example/up", "--sha256", h}},
		{"e_gh_or", "a check's --format github annotation says its decision", []string{"--task", "22222222-0000-0000-0000-000000000002", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		{"e_jq", "a decision jq prints alone is the check's", []string{"--task", "22222222-0000-0000-0000-000000000002", "--checkpoint", "send", "--destination", "slack/C1", "--sha256", h}},
		// A seventh review: a checkpoint or key the shell completes, and a
		// decision the output does not say, read the fail-closed way.
		{"cp_ansi_c", `--checkpoint $'send' may be send: the session's own allowed check is an approach`, ownSend},
		{"cp_subst", `--checkpoint "$(echo send)" may be send`, ownSend},
		{"cp_var", "--checkpoint $CP may be send", ownSend},
		{"dec_junit", "a check whose --format junit output is not read may have allowed", sibling},
		{"dec_html", "a check whose --format html output is not read may have allowed", sibling},
		{"dec_output", "a check written to --output FILE may have allowed", sibling},
		{"dec_subst_jq", "a check at a checkpoint the shell builds, its decision printed by jq", sibling},
		{"key_var", "--destination slack/$CH names no key that can be read: its approach may be any destination's", sibling},
		// A third review today, of those readings: a native t2 holds the
		// key, and an agent's check of it allowed (t2's check must stop).
		{"brace_cp", "--checkpoint={resume,send} is two flags, the last at send", t2},
		{"quoted_flag", `"$@" (sh -c '…' _ --checkpoint send) may be flags`, t2},
		{"openai_sh_args", `an OpenAI argv ["sh","-c","… \"$@\" …","_","--checkpoint","send"]`, t2},
		{"two_checks", "two checks in one call, an allow and a stop: the allow's approach stands", t2},
		{"xargs_cp", "echo send | xargs effectlint check … --checkpoint: xargs appends the value", t2},
		// A fourth review today.
		{"codex_exec_cmd", `Codex's exec_command {"cmd": …} is a shell call`, t2},
		{"codex_shell_command", "Codex's shell_command is a shell call", t2},
		{"negated_check", "! effectlint check: the call's failure is not the check's stop", t2},
		{"negated_bash_c", "! bash -c '…' runs its script", t2},
		{"trap_exit", "an EXIT trap sets the call's status", t2},
		{"two_results", "a second, different result for one call is a second reading", t2},
		{"output_sed", "a stop printed by sed is not the check's", t2},
		// A seventh review of the fixes above.
		{"allow_output_failed", "a failed call whose check printed ALLOW: something else failed it", t2},
		{"allow_output_trap", "an EXIT trap set by an earlier call fails a call whose check printed ALLOW", t2},
		{"pw_nested_resources", "test-results/x/resources/trace.zip in a trace archive is another trace, not its resources", t2},
	} {
		t.Run(c.dir, func(t *testing.T) {
			out, _, code := runWith(t, "", builtinRules(t), append(append([]string{"check", "--no-cache"}, c.args...), filepath.Join("..", "testdata", "adversarial", c.dir))...)
			if code != ExitFindings {
				t.Errorf("%s: exit %d, want a stop:\n%s", c.why, code, out)
			}
		})
	}
}

// The URL spelling folders stop for their spellings only: another path
// or host with the same content is allowed, so those stops are the
// spellings' doing.
func TestCheck_URLSpellingFoldersAllowOtherDestinations(t *testing.T) {
	for _, c := range [][2]string{
		{"url-path-separators", "https://h.com/hooks/b"},
		{"url-path-separators", `https://h.com/hooks\x\..\b`},
		{"url-host-spellings", "https://h.com/hooks/d"},
		{"url-host-spellings", "https://127.0.0.2/hooks/a"},
		{"url-host-spellings", "https://[::2]/hooks/b"},
		{"url-host-spellings", "https://h.com:4430/hooks/c"},
		{"url-path-escapes", `https://h.com/s/a%40b\d`},
		{"url-path-separators", `https://u\@g.com/hooks/a`},
		{"url-path-escapes", "https://h.com/t/x"},
	} {
		out, _, code := runWith(t, "", builtinRules(t), "check", "--no-cache", "--task", "t9", "--checkpoint", "send", "--destination", "http/"+c[1],
			"--sha256", strings.Repeat("a", 64), filepath.Join("..", "testdata", "adversarial", c[0]))
		if code != ExitOK {
			t.Errorf("%s %s: exit %d, want an allow:\n%s", c[0], c[1], code, out)
		}
	}
}

// A thirty-fourth review: w1 delivered to https/https://h.com/hook; A is
// recorded for http/http://h.com/hook, the same URL in another spelling;
// w2 names A and delivers to w1's key. A has no record for that key, so
// w2's evidence counts in its original scope (SPEC §4), beside w1's: a
// duplicate. Opening A's scope for a key that only may be the record's
// hid it (analyze passed --fail-on critical).
func TestAnalyze_UnrecordedAuthorizationOfAnotherSpellingIsADuplicate(t *testing.T) {
	dir := filepath.Join("..", "testdata", "adversarial", "auth-other-spelling-duplicate")
	out, _, code := runWith(t, "", builtinRules(t), "analyze", "--no-cache", "--color", "never", "--fail-on", "critical", dir)
	for _, want := range []string{"DUPLICATE_DELIVERY", "UNKNOWN_AUTHORIZATION"} {
		if code != ExitFindings || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %s:\n%s", code, want, out)
		}
	}
	// The one more delivery A allows was spent by w2: a check under A of
	// the record's own key stops.
	h := "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	out, _, code = runWith(t, "", builtinRules(t), "check", "--no-cache", "--task", "w3", "--checkpoint", "send",
		"--destination", "http/http://h.com/hook", "--sha256", h, "--authorization", "A", dir)
	if code != ExitFindings || !strings.Contains(out, "KEY_CONSUMED") {
		t.Errorf("a second delivery under A: exit %d, want KEY_CONSUMED:\n%s", code, out)
	}
}

// A seventh review of the foreign readers (the folders under
// testdata/adversarial hold the review's inputs; each allowed, or missed
// the duplicate, before its fix).
func TestReaders_TwoReadingsOfOneRunOrCallId(t *testing.T) {
	dir := filepath.Join("..", "testdata", "adversarial")
	// Two Temporal histories of run-5555 whose event 5 posts different
	// messages: neither reading is taken, and a check for either stops.
	another := "28ea0f231192a65711a644003b0cb3a049bfaf43397b36c8beed63137374ed97" // sha256("another message")
	out, _, code := runWith(t, "", builtinRules(t), "check", "--no-cache", "--task", "newworker", "--checkpoint", "send",
		"--destination", "slack/C024BE91L", "--sha256", another, filepath.Join(dir, "temporal-same-run-disagree"))
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("two disagreeing histories of one Temporal run: exit %d, want HISTORY_UNREADABLE:\n%s", code, out)
	}
	// Two OpenAI conversations a day apart reuse one call id for the same
	// post: two deliveries, not one call recorded twice.
	out, _, code = runWith(t, "", builtinRules(t), "analyze", "--no-cache", "--color", "never", filepath.Join(dir, "openai-callid-two-conversations"))
	if code != ExitFindings || !strings.Contains(out, "DUPLICATE_DELIVERY") {
		t.Errorf("one call id in two OpenAI conversations at two times: exit %d, want DUPLICATE_DELIVERY:\n%s", code, out)
	}
	// One LangSmith run id in two exports, uploading to two channels (a
	// sixth review): two readings, neither taken.
	out, _, code = runWith(t, "", builtinRules(t), "check", "--no-cache", "--task", "X", "--checkpoint", "send",
		"--destination", "upload_file/C0OTHER00", "--sha256", "8a3c67892f82af22b58377b8e85bb41899053788d3aa3b81d2e6b4580e917c29", filepath.Join(dir, "langsmith-runid-two-files"))
	if code != ExitFindings || !strings.Contains(out, "HISTORY_UNREADABLE") {
		t.Errorf("one LangSmith run id in two files with two contents: exit %d, want HISTORY_UNREADABLE:\n%s", code, out)
	}
	// Two conversations post the same body with curl through Codex's
	// exec_command, whose argument is cmd (a fourth review).
	out, _, code = runWith(t, "", builtinRules(t), "analyze", "--no-cache", "--color", "never", filepath.Join(dir, "codex_exec_cmd_dup"))
	if code != ExitFindings || !strings.Contains(out, "DUPLICATE_DELIVERY") {
		t.Errorf("the same curl POST in two Codex exec_command calls: exit %d, want DUPLICATE_DELIVERY:\n%s", code, out)
	}
}

// A fifth review today: a trace.zip inside a test's artifact zip that is
// itself a trace archive (it holds the runner's test.trace), and an
// unpacked trace cut in its first record, were never read (the first
// silently, the second listed as skipped), and a check allowed.
func TestPlaywright_NestedAndDamagedTracesStop(t *testing.T) {
	const report = "8b349ebe650558ffb6e350658fb7cdc269f2a2e8c6a8b2f84bc8307c7e98c176"
	for _, dir := range []string{"pw_nested_zip", "pw_damaged_unpacked"} {
		out, _, code := runWith(t, "", builtinRules(t), "check", "--no-cache", "--task", "newbie", "--checkpoint", "send",
			"--destination", "web/https://chat.example.com/c/general", "--sha256", report, filepath.Join("..", "testdata", "adversarial", dir))
		if code != ExitFindings {
			t.Errorf("%s: exit %d, want a stop:\n%s", dir, code, out)
		}
	}
}
