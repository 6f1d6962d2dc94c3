package cmd

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The HTML report is opened in headless Chromium (Debian's chromium
// package; .ci/run installs it and sets EFFECTLINT_REQUIRE_CHROMIUM=1 so
// that a missing browser fails CI instead of skipping). The page must load
// with nothing on the console, the DOM must hold every timeline and mark,
// and a screenshot must show the marks' colors: drawn, not just present.
// Negative controls prove each check can fail on this browser build.

func chromiumPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("EFFECTLINT_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("EFFECTLINT_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("EFFECTLINT_REQUIRE_CHROMIUM=1 but there is no Chromium at %s: %v", path, err)
		}
		t.Skipf("headless Chromium is not installed at %s (apt-get install chromium): skipping the browser test", path)
	}
	return path
}

// consoleLine matches what Chromium logs to stderr for each console
// message ("[...:INFO:CONSOLE:12] "message", source: ..."). The page has
// no script, so any console message is the browser complaining: a blocked
// resource, a CSP violation, a parse problem.
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d+\)?\] (.*)`)

// browse opens page in headless Chromium with extra flags and returns its
// standard output and the console messages.
func browse(t *testing.T, bin, page string, extra ...string) (string, []string) {
	t.Helper()
	// No network here: these flags keep Chromium from trying to reach it
	// (component updates, sync, first-run fetches); a fresh profile keeps
	// runs independent.
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-default-apps", "--mute-audio",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	args = append(append(args, extra...), "file://"+page)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", filepath.Base(page), err, tail(stderr.String(), 2000))
	}
	var console []string
	for _, m := range consoleLine.FindAllStringSubmatch(stderr.String(), -1) {
		console = append(console, m[1])
	}
	return stdout.String(), console
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// colorPixels counts the pixels of img within a small distance of rgb.
func colorPixels(img image.Image, rgb [3]int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			d := abs(int(r>>8)-rgb[0]) + abs(int(g>>8)-rgb[1]) + abs(int(bl>>8)-rgb[2])
			if d <= 24 {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

var (
	crossingRed       = [3]int{0xd6, 0x27, 0x28}
	confirmationGreen = [3]int{0x2c, 0xa0, 0x2c}
)

// screenshot renders page with only the timelines left visible (hideAll
// hides them too) and returns the picture.
func screenshot(t *testing.T, bin, html string, hideAll bool) image.Image {
	t.Helper()
	dir := t.TempDir()
	css := `<style>body>*:not(#scopes){display:none}#scopes>*:not(.scope){display:none}.scope>*:not(.timeline-wrap){display:none}`
	if hideAll {
		css += `.timeline-wrap{display:none}`
	}
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte(strings.Replace(html, "</head>", css+"</style>\n</head>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	if _, console := browse(t, bin, page, "--window-size=1400,1000", "--screenshot="+shot); len(console) > 0 {
		t.Errorf("console while taking the screenshot: %q", console)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestHTML_LoadsCleanlyAndShowsTheTimelineInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	t.Parallel() // mostly waiting for Chromium; no working folder of its own
	bin := chromiumPath(t)

	// Control: a CSP-blocked inline script must show up on the console,
	// or the console check below would be blind.
	control := filepath.Join(t.TempDir(), "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><head><meta charset="utf-8">`+
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>c</title></head>`+
		`<body><p>control</p><script>console.log("x")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := browse(t, bin, control, "--dump-dom"); len(console) == 0 {
		t.Fatal("a CSP violation left no console message: this Chromium does not log the console to stderr, the check is blind")
	}

	root := repoRoot(t)
	for _, c := range []struct{ name, dir string }{
		{"incident", filepath.Join(root, "testdata/scenarios/06-overnight-resume-duplicate")},
		{"large", largeScenario(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			html, stderr, code := run(t, "analyze", "--format", "html", c.dir)
			if code != ExitFindings {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			page := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, console := browse(t, bin, page, "--dump-dom")
			if len(console) > 0 {
				t.Errorf("the report put messages on the console: %q", console)
			}
			timelines, marks := strings.Count(html, `<svg class="timeline"`), strings.Count(html, `<g class="mark `)
			if timelines == 0 || marks == 0 {
				t.Fatalf("the report has %d timelines and %d marks", timelines, marks)
			}
			if got := strings.Count(dom, `<svg class="timeline"`); got != timelines {
				t.Errorf("the browser's DOM holds %d timelines, the page %d", got, timelines)
			}
			if got := strings.Count(dom, `<g class="mark `); got != marks {
				t.Errorf("the browser's DOM holds %d marks, the page %d", got, marks)
			}
			if !strings.Contains(dom, `class="consumed"`) {
				t.Error("the DOM has no consumed line")
			}

			shown := screenshot(t, bin, html, false)
			red, green := colorPixels(shown, crossingRed), colorPixels(shown, confirmationGreen)
			if red < 100 || green < 50 {
				t.Errorf("the rendered timelines show %d crossing-red and %d confirmation-green pixels; want the marks drawn", red, green)
			}
			// Control: with the timelines hidden the same colors vanish,
			// so the pixels above came from the SVG.
			hidden := screenshot(t, bin, html, true)
			if n := colorPixels(hidden, crossingRed); n != 0 {
				t.Errorf("%d crossing-red pixels with the timelines hidden: the pixel check does not measure the SVG", n)
			}
			t.Logf("%d timeline(s), %d mark(s); %d red and %d green pixels drawn", timelines, marks, red, green)
		})
	}
}
