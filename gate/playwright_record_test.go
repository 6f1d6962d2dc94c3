package gate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/effectlint/effectlint/gate"
)

// The incident recorded fresh, with the Playwright of the day: a test and
// its retry (two browser contexts, each its own Chromium) choose the same
// file in a page's file input and press Send. The first run's upload is
// answered 503 and the page never shows it sent; the retry sends the same
// file again. analyze must find the duplicate delivery, with evidence in
// the traces.
//
// EFFECTLINT_PLAYWRIGHT is a folder with node_modules/playwright-core
// (.ci/run installs it); without it the test skips, unless
// EFFECTLINT_REQUIRE_PLAYWRIGHT=1 (CI), where it fails.

const incidentPage = `<!doctype html>
<title>Report upload</title>
<form id="f"><input type="file" id="file" name="file"><button type="button" id="send">Send</button></form>
<p id="status"></p>
<script>
document.getElementById('send').onclick = async () => {
  const fd = new FormData();
  fd.append('file', document.getElementById('file').files[0]);
  const r = await fetch('/upload', {method: 'POST', body: fd});
  if (r.ok) document.getElementById('status').textContent = 'Sent';
};
</script>`

func playwrightOrSkip(t *testing.T) (root, node, chromium string) {
	t.Helper()
	need := os.Getenv("EFFECTLINT_REQUIRE_PLAYWRIGHT") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if need {
			t.Fatalf("EFFECTLINT_REQUIRE_PLAYWRIGHT=1, but "+format, args...)
		}
		t.Skipf(format+": skipped (CI installs it)", args...)
	}
	root = os.Getenv("EFFECTLINT_PLAYWRIGHT")
	if root == "" {
		missing("EFFECTLINT_PLAYWRIGHT (a folder with node_modules/playwright-core) is not set")
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "playwright-core", "package.json")); err != nil {
		missing("no playwright-core in %s: %v", root, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing("no Chromium at %s: %v", chromium, err)
	}
	return root, node, chromium
}

func TestPlaywright_IncidentRecordedFresh(t *testing.T) {
	if testing.Short() && os.Getenv("EFFECTLINT_REQUIRE_PLAYWRIGHT") != "1" {
		t.Skip("records with a browser: not in -short")
	}
	root, node, chromium := playwrightOrSkip(t)

	var mu sync.Mutex
	uploads := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/upload":
			mu.Lock()
			uploads++
			n := uploads
			mu.Unlock()
			if n == 1 {
				// The item may well have been stored; the answer says not.
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, incidentPage)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	file := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(file, []byte("%PDF-1.4 quarterly report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "traces")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "scripts", "playwright-record.mjs"), srv.URL+"/", file, out)
	cmd.Env = append(os.Environ(), "EFFECTLINT_PLAYWRIGHT="+root, "CHROMIUM="+chromium)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("recording failed: %v\n%s", err, b)
	}
	if uploads != 2 {
		t.Fatalf("the page received %d uploads, want 2 (the run and its retry)", uploads)
	}

	g, err := gate.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := g.Analyze(context.Background(), gate.AnalyzeRequest{Paths: []string{out}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 2 {
		t.Fatalf("%d inputs read from the traces folder, want the 2 archives: %+v", len(rep.Inputs), rep.Inputs)
	}
	for _, in := range rep.Inputs {
		if in.Format != "playwright" || len(in.Problems) != 0 || in.Events == 0 {
			t.Errorf("input %s: format %s, %d events, problems %+v", in.Path, in.Format, in.Events, in.Problems)
		}
	}
	var dup bool
	for _, f := range rep.Findings {
		if f.Rule != "DUPLICATE_DELIVERY" {
			continue
		}
		dup = true
		// The evidence is the picker and the send of each run, in the
		// trace inside each archive.
		runs := map[string]bool{}
		for _, p := range f.Evidence {
			if p.Line < 1 || !strings.HasSuffix(p.File, ".trace") && !strings.HasSuffix(p.File, ".network") {
				t.Errorf("evidence %s:%d does not point into a trace", p.File, p.Line)
			}
			for _, r := range []string{"run-1.zip/", "run-2.zip/"} {
				if strings.Contains(p.File, r) {
					runs[r] = true
				}
			}
		}
		if len(runs) != 2 {
			t.Errorf("DUPLICATE_DELIVERY rests on %v, want evidence in both runs' traces", f.Evidence)
		}
	}
	if !dup {
		t.Fatalf("no DUPLICATE_DELIVERY; findings %+v", rep.Findings)
	}
	if len(rep.Keys) != 1 || rep.Keys[0].Destination.ID != srv.URL+"/" {
		t.Fatalf("keys %+v, want one: the page's URL and the file", rep.Keys)
	}
	// Each run, in its own archive: the file chosen, Send pressed, the
	// upload's answer, and the wait for "Sent" (timed out, then shown).
	got := map[string][]string{}
	for _, e := range rep.Keys[0].Evidence {
		run := strings.SplitN(filepath.Base(filepath.Dir(e.File)), ".", 2)[0]
		got[run] = append(got[run], e.Type+" "+e.Detail)
	}
	want := map[string]string{
		"run-1": "picker_accepted |send_fired |response not ok|readback unavailable",
		"run-2": "picker_accepted |send_fired |response ok|readback confirmed",
	}
	for run, w := range want {
		if g := strings.Join(got[run], "|"); g != w {
			t.Errorf("%s: evidence %q, want %q", run, g, w)
		}
	}
}
