package report

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Helpers of the reports for people: wrapping, plain-word lists and the
// short labels of long task ids. Presentation only.

// wrapWords wraps text to lines of at most w cells, breaking at spaces
// only. A timestamp, a flag, a UUID, a key or a path is one token: it is
// never cut, and a token longer than the width gets a line of its own,
// whole, so that it can still be copied or searched for. (ansi.Wrap cuts
// long words, and its word wrap breaks at every hyphen, which is inside
// every timestamp and UUID.)
func wrapWords(text string, w int) []string {
	w = max(w, 20)
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		var line strings.Builder
		lineW := 0
		// Words keep the spaces between them on a line (two spaces
		// separate columns); a break drops them.
		rest := para
		for rest != "" {
			gap := len(rest) - len(strings.TrimLeft(rest, " "))
			sep, after := rest[:gap], rest[gap:]
			// The word, and what follows it from its space on (sliced,
			// not rebuilt: rebuilding made a long paragraph quadratic).
			word := after
			rest = ""
			if i := strings.IndexByte(after, ' '); i >= 0 {
				word, rest = after[:i], after[i:]
			}
			if word == "" {
				continue
			}
			ww := ansi.StringWidth(word)
			switch {
			case lineW == 0:
				line.WriteString(sep)
				line.WriteString(word)
				lineW = ansi.StringWidth(sep) + ww
			case lineW+len(sep)+ww <= w:
				line.WriteString(sep)
				line.WriteString(word)
				lineW += len(sep) + ww
			default:
				lines = append(lines, line.String())
				line.Reset()
				line.WriteString(word)
				lineW = ww
			}
		}
		lines = append(lines, line.String())
	}
	return lines
}

// plainList joins items the way a person writes a list: "a", "a and b",
// "a, b and c" (never Go's "[a b c]").
func plainList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// minLabel is the shortest label of a long task id: eight characters tell
// apart the tasks of any one key scope in practice, and are what people
// already use for commit hashes and UUIDs.
const minLabel = 8

// longID is the length above which a task id is shown by a label: shorter
// ids (t2, worker-042, run-2026-11-30) fit the timeline's task column.
const longID = 16

// taskLabels gives each task id a label for the narrow columns of a
// timeline. Ids of at most longID characters, and ids with no opaque part,
// are their own label (conv-weekly-report reads better whole than cut).
// An opaque part — a UUID or a hex id, with or without a word prefix as in
// agent-a20c0ffee0000001 — is cut after its prefix, every opaque part to
// the same number of characters, at the shortest length of at least
// minLabel at which the labels of the set are still unique. Two ids never
// share a label, and no label is another id of the set.
func taskLabels(ids []string) map[string]string {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	labels := make(map[string]string, len(ids))
	longest := 0
	for _, id := range ids {
		longest = max(longest, utf8.RuneCountInString(id))
	}
	isID := make(map[string]bool, len(ids))
	for _, id := range ids {
		isID[id] = true
	}
	for n := minLabel; ; n++ {
		clear(labels)
		used := map[string]bool{}
		ok := true
		for _, id := range ids {
			l := id
			if utf8.RuneCountInString(id) > longID {
				l = cutOpaque(id, n)
			}
			if used[l] || (l != id && isID[l]) {
				ok = false
				break
			}
			used[l] = true
			labels[id] = l
		}
		if ok || n >= longest {
			break
		}
	}
	if len(labels) != len(ids) {
		for _, id := range ids {
			labels[id] = id
		}
	}
	return labels
}

// cutOpaque cuts each opaque '/'-separated part of id to n characters
// after its word prefix (see taskLabels); other parts stay whole.
func cutOpaque(id string, n int) string {
	parts := strings.Split(id, "/")
	for i, p := range parts {
		prefix, body := opaque(p, 12)
		if body != "" && len(body) > n {
			parts[i] = prefix + body[:n]
		}
	}
	return strings.Join(parts, "/")
}

// opaque splits a UUID or hex id ("5b1f0c9e-2f41-…", "agent-a20c0ffee0000001")
// into its word prefix and its opaque body; body is "" when part is not one
// (fewer than digits hex digits, or other characters).
func opaque(part string, digits int) (prefix, body string) {
	if i := strings.IndexAny(part, "-_"); i > 0 && isLetters(part[:i]) && isHexID(part[i+1:], digits) {
		return part[:i+1], part[i+1:]
	}
	if isHexID(part, digits) {
		return "", part
	}
	return "", ""
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// isHexID: hex digits and dashes only, at least min digits.
func isHexID(s string, min int) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			digits++
		case c == '-':
		default:
			return false
		}
	}
	return digits >= min
}
