package transcripts

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A prefiltered regexp answers MatchString as its regexp does, but first
// looks for the literal text every match must contain: a shell rule such
// as `\bcurl\b.*...` cannot match a command without "curl", and
// strings.Contains says so far faster than the regexp's backtracker. The
// conventions try every shell rule on every simple command of every shell
// call, which made the regexps a third of reading a Claude Code session
// (issue 15).
type prefiltered struct {
	re *regexp.Regexp
	// need: every match contains one of these; nil when the pattern
	// promises no literal (then every text goes to the regexp).
	need []string
}

func newPrefiltered(re *regexp.Regexp) *prefiltered {
	p := &prefiltered{re: re}
	if tree, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		if need, ok := required(tree.Simplify()); ok {
			p.need = need
		}
	}
	return p
}

// MatchString reports whether s contains a match of the regexp.
func (p *prefiltered) MatchString(s string) bool {
	if p.need != nil && !containsAny(s, p.need) {
		return false
	}
	return p.re.MatchString(s)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maxClass bounds the characters of a class that becomes a set of
// one-character literals ([$`] does; \w does not).
const maxClass = 4

// required returns literal strings of which every match of re contains
// at least one; ok is false when it cannot promise any. It only ever
// under-promises: a node it does not understand promises nothing.
// Case-folded literals promise nothing (the text is not folded), nor does
// U+FFFD, which the regexp also matches for each invalid byte.
func required(re *syntax.Regexp) (need []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return nil, false
		}
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				return nil, false
			}
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r == utf8.RuneError || len(out) == maxClass {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Any one part's promise holds for the whole; keep the one whose
		// shortest literal is longest (the fewest false hits).
		best, bestLen := []string(nil), 0
		for _, sub := range re.Sub {
			need, ok := required(sub)
			if !ok {
				continue
			}
			if n := shortest(need); n > bestLen {
				best, bestLen = need, n
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			need, ok := required(sub)
			if !ok {
				return nil, false
			}
			out = append(out, need...)
		}
		return out, len(out) > 0
	}
	return nil, false
}

func shortest(ss []string) int {
	n := -1
	for _, s := range ss {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}
