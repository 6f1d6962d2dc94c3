package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Pages lists the Markdown files of the documentation under root, as
// slash paths relative to it: the top-level pages and docs/**.
func Pages(root string) ([]string, error) {
	var out []string
	for _, p := range []string{"README.md", "CHANGELOG.md", "CONTRIBUTING.md", "SECURITY.md"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			out = append(out, p)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Command is one command of a runnable block, with what the page shows
// of its output.
type Command struct {
	Line     int    // the page's line of the command
	Text     string // the command, continuation lines joined
	Exit     int    // the exit code expected
	Output   []string
	HasShown bool // the page shows output below the command
}

// Block is a fenced code block marked runnable.
type Block struct {
	Page     string
	Line     int // the line of the opening fence
	Commands []Command
}

var runMarker = regexp.MustCompile(`^<!--\s*run(?::\s*(.*?))?\s*-->\s*$`)

// RunnableBlocks finds the blocks of a page marked <!-- run --> or
// <!-- run: exit=N --> (exit=N,M,... gives one code per command) on the
// line right above the opening fence.
func RunnableBlocks(page, text string) ([]Block, error) {
	lines := strings.Split(text, "\n")
	var out []Block
	for i := 0; i < len(lines); i++ {
		m := runMarker.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		exits, err := parseExits(m[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", page, i+1, err)
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("%s:%d: a run marker must stand right above a fenced block", page, i+1)
		}
		start := i + 1
		var body []string
		j := start + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: the block never ends", page, start+1)
		}
		cmds, err := parseCommands(body, start+2)
		if err != nil {
			return nil, fmt.Errorf("%s:%v", page, err)
		}
		if len(cmds) == 0 {
			return nil, fmt.Errorf("%s:%d: a runnable block with no command (each starts with \"$ \")", page, start+1)
		}
		switch {
		case len(exits) == 1:
			for k := range cmds {
				cmds[k].Exit = exits[0]
			}
		case len(exits) == len(cmds):
			for k := range cmds {
				cmds[k].Exit = exits[k]
			}
		default:
			return nil, fmt.Errorf("%s:%d: %d exit codes for %d commands", page, i+1, len(exits), len(cmds))
		}
		out = append(out, Block{Page: page, Line: start + 1, Commands: cmds})
		i = j
	}
	return out, nil
}

func parseExits(attrs string) ([]int, error) {
	attrs = strings.TrimSpace(attrs)
	if attrs == "" {
		return []int{0}, nil
	}
	v, ok := strings.CutPrefix(attrs, "exit=")
	if !ok || strings.ContainsAny(v, " \t") {
		return nil, fmt.Errorf("run marker %q: want <!-- run --> or <!-- run: exit=N[,N...] -->", attrs)
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 255 {
			return nil, fmt.Errorf("run marker: exit code %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseCommands reads "$ command" lines (a trailing backslash continues a
// command on the next line) and the output lines below each.
func parseCommands(body []string, firstLine int) ([]Command, error) {
	var out []Command
	for k := 0; k < len(body); k++ {
		l := body[k]
		if !strings.HasPrefix(l, "$ ") {
			if len(out) == 0 {
				if strings.TrimSpace(l) == "" {
					continue
				}
				return nil, fmt.Errorf("%d: a runnable block begins with a command (\"$ \"), not %q", firstLine+k, l)
			}
			c := &out[len(out)-1]
			c.Output = append(c.Output, l)
			c.HasShown = true
			continue
		}
		c := Command{Line: firstLine + k, Text: strings.TrimPrefix(l, "$ ")}
		for strings.HasSuffix(c.Text, `\`) && k+1 < len(body) {
			k++
			c.Text = strings.TrimSuffix(c.Text, `\`) + " " + strings.TrimSpace(body[k])
		}
		out = append(out, c)
	}
	for i := range out {
		for len(out[i].Output) > 0 && strings.TrimSpace(out[i].Output[len(out[i].Output)-1]) == "" {
			out[i].Output = out[i].Output[:len(out[i].Output)-1]
		}
		out[i].HasShown = len(out[i].Output) > 0
	}
	return out, nil
}

// MatchOutput compares what a command printed with what the page shows.
// Lines are compared without trailing white space; a line that is just
// "..." stands for any number of lines (none included), and "..." inside
// a line for any text within it. It returns "" on
// a match, else a description of the first difference.
func MatchOutput(shown, got []string) string {
	norm := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimRight(l, " \t\r")
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		return out
	}
	s, g := norm(shown), norm(got)
	if match(s, g) {
		return ""
	}
	// Name the first line that differs, reading from the top while the
	// page's lines are literal.
	for i := range s {
		if s[i] == "..." {
			break
		}
		if i >= len(g) {
			return fmt.Sprintf("output ends before shown line %d %q", i+1, s[i])
		}
		if !lineMatch(s[i], g[i]) {
			return fmt.Sprintf("shown line %d:\n  page: %q\n  got:  %q", i+1, s[i], g[i])
		}
	}
	return "output differs from the page"
}

func match(s, g []string) bool {
	if len(s) == 0 {
		return len(g) == 0
	}
	if s[0] == "..." {
		for k := 0; k <= len(g); k++ {
			if match(s[1:], g[k:]) {
				return true
			}
		}
		return false
	}
	return len(g) > 0 && lineMatch(s[0], g[0]) && match(s[1:], g[1:])
}

// lineMatch compares one line; "..." inside a shown line stands for any
// text within that line.
func lineMatch(shown, got string) bool {
	if !strings.Contains(shown, "...") {
		return shown == got
	}
	parts := strings.Split(shown, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// Link is a Markdown link of a page.
type Link struct {
	Page   string
	Line   int
	Target string
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	inlineCodeRE = regexp.MustCompile("`[^`]*`")
)

// Links lists the inline links of a page outside code blocks and code spans.
func Links(page, text string) []Link {
	var out []Link
	fence := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		l = inlineCodeRE.ReplaceAllStringFunc(l, func(s string) string {
			if strings.Contains(s, "](") {
				return "``"
			}
			return s
		})
		for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
			out = append(out, Link{Page: page, Line: i + 1, Target: m[1]})
		}
	}
	return out
}

// Anchors are the #fragments GitHub gives a page's headings.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimLeft(l, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		a := Slug(strings.TrimSpace(h))
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// Slug is GitHub's anchor of a heading: lower case, spaces to hyphens,
// every other character but letters, digits, '-' and '_' dropped.
func Slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLetter(r rune) bool {
	return strings.ContainsRune("àáâäçèéêëìíîïñòóôöùúûüß", r)
}
