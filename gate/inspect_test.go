package gate_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/gate"
)

// TestInspect_EvalRetryIsADuplicateDelivery: the incident with the retry
// in an .eval archive, judged whole: Sunday's sample (a JSON log) calls
// slack_post_message, which times out after it ran; Monday's retry (an
// .eval archive) makes the same call, which succeeds. SPEC §6: two
// crossing episodes in one key scope, the second after the scope was
// consumed.
func TestInspect_EvalRetryIsADuplicateDelivery(t *testing.T) {
	dir := t.TempDir()
	sample := func(uuid, day, errType string) string {
		outcome := `"result": "{\"ok\": true}", "completed": "` + day + `T08:10:02+00:00", "error": null`
		if errType != "" {
			outcome = `"result": "", "completed": "` + day + `T08:10:31+00:00", "error": {"type": "` + errType + `", "message": "timed out"}`
		}
		return `{"id": "w48", "epoch": 1, "uuid": "` + uuid + `", "input": "post it", "messages": [], "events": [
{"event": "tool", "timestamp": "` + day + `T08:10:01+00:00", "id": "call_1", "function": "slack_post_message",
 "arguments": {"channel": "C024BE91L", "text": "weekly report"}, ` + outcome + `}]}`
	}
	log := `{"version": 2, "status": "error", "eval": {"eval_id": "E1", "task": "weekly_report", "created": "2026-11-29T08:00:00+00:00", "dataset": {"samples": 1}},
"samples": [` + sample("sunday", "2026-11-29", "timeout") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "sunday.json"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range []struct{ name, text string }{
		{"header.json", `{"version": 2, "status": "success", "eval": {"eval_id": "E2", "task": "weekly_report", "created": "2026-11-30T08:00:00+00:00", "dataset": {"samples": 1}}}`},
		{"samples/w48_epoch_1.json", sample("monday", "2026-11-30", "")},
	} {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m.text))
	}
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "monday.eval"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := gate.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := g.Analyze(ctx, gate.AnalyzeRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		task := "-"
		if f.Task != nil {
			task = *f.Task
		}
		got = append(got, f.Rule+" "+task)
	}
	sort.Strings(got)
	if want := "DUPLICATE_DELIVERY monday, DUPLICATE_RISK_RESUME monday"; strings.Join(got, ", ") != want {
		t.Errorf("findings %q, want %s", got, want)
	}
	if len(rep.Keys) != 1 || rep.Keys[0].State != "sent_verified" {
		t.Errorf("keys %+v, want one sent_verified scope", rep.Keys)
	}
	for _, in := range rep.Inputs {
		if in.Format != "inspect-ai" || len(in.Problems) != 0 {
			t.Errorf("%s: format %s, problems %+v", in.Path, in.Format, in.Problems)
		}
	}
}

// TestInspect_GateStopsOnTwoReadingsAndMissingSamples: the readings
// review round 2 found fail-open, judged by the gate (SPEC §5,
// HISTORY_UNREADABLE). Sunday's sample timed out after the post ran; a
// second log holds the same sample uuid with other events (the post
// confirmed). Alone, Sunday's log consumes the scope; together they are
// two readings of one sample, which no choice of one may hide. A log
// that lists a sample it does not hold stops every check.
func TestInspect_GateStopsOnTwoReadingsAndMissingSamples(t *testing.T) {
	sample := func(errType, result string) string {
		return `{"id": "w48", "epoch": 1, "uuid": "U1", "input": "post it", "messages": [], "events": [
{"event": "tool", "timestamp": "2026-11-29T18:00:01+00:00", "id": "call_1", "function": "slack_post_message",
 "arguments": {"channel": "C024BE91L", "text": "weekly report"}, "completed": "2026-11-29T18:00:31+00:00", "result": ` + result + `, "error": ` + errType + `}]}`
	}
	logOf := func(ids, s string) string {
		return `{"version": 2, "status": "success", "eval": {"eval_id": "E1", "task": "weekly_report", "created": "2026-11-29T18:00:00+00:00",
"dataset": {"samples": 1, "sample_ids": [` + ids + `]}}, "samples": [` + s + `]}`
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sunday := write("sunday.json", logOf(`"w48"`, sample(`{"type": "timeout", "message": "x"}`, `""`)))
	other := write("other.json", logOf(`"w48"`, sample("null", `"{\"ok\": true}"`)))
	partial := write("partial.json", logOf(`"w48", "w49"`, sample("null", `"{\"ok\": true}"`)))
	ctx := context.Background()
	g, err := gate.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("weekly report"))
	check := func(paths ...string) []string {
		d := g.Check(ctx, gate.Request{Task: "retry", Checkpoint: gate.Send, Paths: paths,
			Intent: analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack_post_message", ID: "C024BE91L"}, SHA256: hex.EncodeToString(h[:])}})
		var rules []string
		for _, r := range d.Reasons {
			rules = append(rules, r.Rule)
		}
		if d.Allowed() {
			return append([]string{"ALLOW"}, rules...)
		}
		return rules
	}
	if got := check(sunday); len(got) == 0 || got[0] != "KEY_CONSUMED" {
		t.Fatalf("Sunday's log alone: %v, want KEY_CONSUMED (the key of the test is the call's)", got)
	}
	if got := check(sunday, other); len(got) == 0 || got[0] != "HISTORY_UNREADABLE" {
		t.Errorf("one sample, two readings: %v, want HISTORY_UNREADABLE", got)
	}
	if got := check(other); len(got) == 0 || got[0] != "KEY_CONSUMED" {
		t.Errorf("the confirmed log alone: %v, want KEY_CONSUMED (sent_verified)", got)
	}
	g2, _ := gate.New(ctx)
	d := g2.Check(ctx, gate.Request{Task: "fresh", Checkpoint: gate.Send, Paths: []string{partial},
		Intent: analyzer.IntentSpec{Destination: analyzer.Destination{Provider: "slack_post_message", ID: "C0OTHER"}, SHA256: hex.EncodeToString(h[:])}})
	if d.Allowed() || d.Reasons[0].Rule != "HISTORY_UNREADABLE" {
		t.Errorf("a log missing a sample it lists, another destination: %s %+v, want HISTORY_UNREADABLE", d.Decision, d.Reasons)
	}
}
