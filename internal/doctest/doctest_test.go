package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// root is the module root; bin the folder holding the effectlint built
// once for the whole package.
var root, bin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	root = filepath.Dir(filepath.Dir(wd))
	dir, err := os.MkdirTemp("", "effectlint-doctest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "effectlint"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "doctest: go build: %v\n%s", err, out)
		return 2
	}
	return m.Run()
}

func read(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pages(t *testing.T) []string {
	t.Helper()
	ps, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 5 {
		t.Fatalf("only %d documentation pages found under %s", len(ps), root)
	}
	return ps
}

// TestRunnableBlocks runs every command the pages mark runnable, in the
// module root with effectlint on PATH, and checks its exit code and, when
// the page shows it, its standard output.
func TestRunnableBlocks(t *testing.T) {
	total := 0
	for _, page := range pages(t) {
		blocks, err := RunnableBlocks(page, read(t, page))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, b := range blocks {
			// The commands of a block share one home and temporary
			// folder: a later one sees what an earlier one wrote (a
			// ledger, a file).
			tmp := t.TempDir()
			for _, c := range b.Commands {
				total++
				t.Run(fmt.Sprintf("%s:%d", page, c.Line), func(t *testing.T) { runCommand(t, c, tmp) })
			}
		}
	}
	if total < 10 {
		t.Errorf("only %d runnable commands in the documentation", total)
	}
}

func runCommand(t *testing.T, c Command, tmp string) {
	before := topLevel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c.Text)
	sh.Dir = root
	sh.Env = commandEnv(tmp)
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	err := sh.Run()
	// What the command writes into the module root (a report file it
	// names) goes; anything else new there is another test's, left alone.
	for name := range topLevel(t) {
		if !before[name] && strings.Contains(c.Text, name) {
			os.RemoveAll(filepath.Join(root, name))
		}
	}
	code := sh.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("%s: %v\nstderr:\n%s", c.Text, err, stderr.String())
	}
	if code != c.Exit {
		t.Errorf("%s\nexited %d, the page says %d\nstdout:\n%s\nstderr:\n%s", c.Text, code, c.Exit, stdout.String(), stderr.String())
		return
	}
	if !c.HasShown {
		return
	}
	got := normalize(stdout.String(), tmp)
	if d := MatchOutput(c.Output, strings.Split(got, "\n")); d != "" {
		t.Errorf("%s\n%s\nwhole output:\n%s", c.Text, d, got)
	}
}

// commandEnv is the environment of a documented command: effectlint first
// on PATH, a fixed width, no colour, a home and temporary folder of its
// own (so the default ledger is a fresh file), and none of the variables
// that change what effectlint does.
func commandEnv(tmp string) []string {
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + tmp,
		"TMPDIR=" + tmp,
		"COLUMNS=100",
		"TZ=UTC",
		"LANG=C.UTF-8",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH" || k == "HOME" || k == "TMPDIR" || k == "COLUMNS" || k == "TZ" || k == "LANG" || k == "CI" || k == "NO_COLOR":
		case strings.HasPrefix(k, "EFFECTLINT_") || strings.HasPrefix(k, "LC_") || k == "GOMEMLIMIT" || k == "GOGC":
		default:
			env = append(env, kv)
		}
	}
	return env
}

// normalize replaces what differs from run to run: the command's temporary
// folder and the module root by fixed names.
func normalize(out, tmp string) string {
	out = strings.ReplaceAll(out, tmp, "$TMPDIR")
	out = strings.ReplaceAll(out, root+string(filepath.Separator), "")
	return out
}

func topLevel(t *testing.T) map[string]bool {
	t.Helper()
	es, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range es {
		out[e.Name()] = true
	}
	return out
}

// TestReadmeStartsWithItsTwoCommands: the README opens with the command
// that runs the main job on a bundled example and the one that runs the
// tests, and .ci/run runs exactly that test command. The example is run
// here with the built binary standing for `go run .`.
func TestReadmeStartsWithItsTwoCommands(t *testing.T) {
	readme := read(t, "README.md")
	lines := strings.Split(readme, "\n")
	var block []string
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			for _, b := range lines[i+1:] {
				if strings.HasPrefix(b, "```") {
					break
				}
				block = append(block, b)
			}
			break
		}
		if strings.HasPrefix(l, "## ") {
			break
		}
	}
	if len(block) != 2 {
		t.Fatalf("the README's first block before any section must hold exactly two commands, has %q", block)
	}
	example := strings.TrimSpace(strings.SplitN(block[0], "#", 2)[0])
	test := strings.TrimSpace(strings.SplitN(block[1], "#", 2)[0])
	args, ok := strings.CutPrefix(example, "go run . ")
	if !ok || !strings.HasPrefix(args, "analyze ") {
		t.Fatalf("the README's first command is %q, want go run . analyze EXAMPLE", example)
	}
	if !strings.HasPrefix(test, "go test ") {
		t.Fatalf("the README's second command is %q, want go test ...", test)
	}
	ci := read(t, ".ci/run")
	found := false
	for _, l := range strings.Split(ci, "\n") {
		if strings.TrimSpace(l) == test {
			found = true
		}
	}
	if !found {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", test)
	}
	sh := exec.Command(filepath.Join(bin, "effectlint"), strings.Fields(args)...)
	sh.Dir = root
	sh.Env = commandEnv(t.TempDir())
	out, _ := sh.Output()
	if code := sh.ProcessState.ExitCode(); code != 1 {
		t.Errorf("%s exited %d, want 1 (the incident's findings)", example, code)
	}
	if !bytes.Contains(out, []byte("DUPLICATE_DELIVERY")) {
		t.Errorf("%s does not report DUPLICATE_DELIVERY:\n%s", example, out)
	}
}

// TestReadmeIsAFrontPage: the README stays a front page.
func TestReadmeIsAFrontPage(t *testing.T) {
	if n := len(read(t, "README.md")); n > 10*1024 {
		t.Errorf("README.md is %d bytes, more than 10 KB: move the detail into docs/", n)
	}
}

// TestLinks resolves every relative link of the pages: the file must be in
// the module, and a #fragment must be a heading of the page it names.
func TestLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		anchors[page] = Anchors(read(t, page))
		return anchors[page]
	}
	n := 0
	for _, page := range pages(t) {
		for _, l := range Links(page, read(t, page)) {
			if strings.HasPrefix(l.Target, "http://") || strings.HasPrefix(l.Target, "https://") || strings.HasPrefix(l.Target, "mailto:") {
				continue
			}
			n++
			where := fmt.Sprintf("%s:%d: link %s", l.Page, l.Line, l.Target)
			file, frag, _ := strings.Cut(l.Target, "#")
			target := page
			if file != "" {
				if strings.HasPrefix(file, "/") {
					t.Errorf("%s: an absolute path", where)
					continue
				}
				target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), file)))
				if target == ".." || strings.HasPrefix(target, "../") {
					t.Errorf("%s: leaves the repository", where)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
			}
			if frag != "" {
				if !strings.HasSuffix(target, ".md") {
					t.Errorf("%s: a fragment into a file that is not a page", where)
					continue
				}
				if !anchorsOf(target)[frag] {
					t.Errorf("%s: %s has no heading with anchor #%s", where, target, frag)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d relative links found: is the link parser broken?", n)
	}
}

// TestNothingPointsOutside: no page names the folder beside the clone,
// the contract's file or a path of the maintainers' machine.
func TestNothingPointsOutside(t *testing.T) {
	bad := regexp.MustCompile(`\.\./shared|SPEC\.md|SPEC §|(^|[\s("'=:\x60])/work/|OPA-NOTES`)
	for _, page := range pages(t) {
		for i, l := range strings.Split(read(t, page), "\n") {
			if m := bad.FindString(l); m != "" {
				t.Errorf("%s:%d: mentions %q, which users do not have", page, i+1, m)
			}
		}
	}
}
