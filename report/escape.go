package report

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/effectlint/effectlint/analyzer"
)

// Transcript text (task ids, titles, messages, paths) is untrusted: every
// format escapes it for itself. clean (text.go) shows control characters
// escaped; the helpers here add what each markup needs.

// fileURI turns a display path into a URI reference for links (Markdown,
// HTML, SARIF): slashes for separators, every segment percent-escaped (so
// "(", ")", "#", spaces and a "javascript:" prefix stay inert), absolute
// paths as file: URIs. Standard input has no URI.
func fileURI(path string) (string, bool) {
	if path == "-" || path == "" {
		return "", false
	}
	p := filepath.ToSlash(path)
	segs := strings.Split(p, "/")
	for i, s := range segs {
		// PathEscape leaves ':' alone, which would make "javascript:x" or
		// "c:" a scheme; escape it too.
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	u := strings.Join(segs, "/")
	if strings.HasPrefix(p, "/") {
		return "file://" + u, true
	}
	return u, true
}

// lineURI is fileURI with a GitHub-style line anchor (#L12).
func lineURI(p analyzer.Pointer) (string, bool) {
	u, ok := fileURI(p.File)
	if !ok {
		return "", false
	}
	if p.Line > 0 {
		u += fmt.Sprintf("#L%d", p.Line)
	}
	return u, true
}

// mdEscaper escapes Markdown: backslash-escapes for the punctuation that
// starts emphasis, code, links, tables, headings, mentions and
// references; entities for the characters that start HTML.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"|", `\|`, "~", `\~`, "#", `\#`, "!", `\!`, "@", `\@`, "{", `\{`, "}", `\}`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;",
)

// md makes transcript text inert in Markdown (tables included).
func md(s string) string { return mdEscaper.Replace(clean(s)) }

// mdCode puts text in a code span that no backtick inside can end. Not for
// table cells: there a pipe would end the cell even inside the span, and
// the GFM escape for it shows as a backslash everywhere else.
func mdCode(s string) string {
	s = clean(s)
	// One backtick more than the longest run inside (found in one pass:
	// growing the fence until it is not found was quadratic in the run).
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// Escape makes transcript text (task ids, keys, messages) safe to print on
// a terminal: control characters, escape sequences included, are shown
// escaped (\x1b), never interpreted. For output outside the renderers,
// such as test diffs and explanations.
func Escape(s string) string { return clean(s) }
