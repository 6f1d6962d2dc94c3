package transcripts_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

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
