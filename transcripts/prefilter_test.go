package transcripts

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// prefilterPatterns: every pattern of the built-in conventions, and
// patterns made to trip a prefilter that promises too much: case folding,
// optional and repeated parts, alternations with an empty branch, classes,
// U+FFFD (which also matches an invalid byte), anchors and boundaries.
func prefilterPatterns(t *testing.T) []string {
	var ps []string
	for _, r := range builtin().compiled {
		for _, re := range []*regexp.Regexp{r.matches, r.tool, r.toolNot, r.idPattern, r.contentPattern, r.checkpoint, r.filePattern} {
			if re != nil {
				ps = append(ps, re.String())
			}
		}
	}
	if len(ps) < 10 {
		t.Fatalf("only %d built-in patterns: the conventions did not load", len(ps))
	}
	return append(ps,
		`curl`, `(?i)curl`, `cu(?i:RL)`, `x?curl`, `(curl)?`, `(curl|)`, `(?:curl|wget)+`,
		`a{0,3}b`, `a{2}`, `[$`+"`"+`]x`, `[a-z]`, `[ab]c|d`, `\x{FFFD}`, `[\x{FFFD}a]`,
		`^gh\s+api\b`, `\bgit\s+push\b`, `(?s)a.*b`, `(?m)^x$`, `é+`, `\Qa.b\E`, `(?U)a+?b`,
		`(a|b)(c|d)`, `(?:ab|cd)*ef`, ``, `.`, `\S+@\S`)
}

func TestPrefilter_MatchesAsTheRegexpDoes(t *testing.T) {
	patterns := prefilterPatterns(t)
	var lits []string // pieces a text is built of: the patterns' own words
	for _, p := range patterns {
		lits = append(lits, strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune(`\()[]{}|?*+^$.`, r) })...)
	}
	lits = append(lits, " ", "-X POST", "--data", "@f", "$URL", "`", "\xff", "\xef\xbf\xbd", "é", "CURL", "Curl", "\n", "s3://b", "h:/p")
	promised := 0
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		pf := newPrefiltered(re)
		if pf.need != nil {
			promised++
		}
		rapid.Check(t, func(rt *rapid.T) {
			s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(lits), 0, 8).Draw(rt, "pieces"), "")
			if got, want := pf.MatchString(s), re.MatchString(s); got != want {
				rt.Fatalf("%q on %q: prefiltered %v, regexp %v (needs one of %q)", p, s, got, want, pf.need)
			}
		})
	}
	if promised < 10 {
		t.Errorf("only %d of %d patterns have a prefilter: it saves nothing", promised, len(patterns))
	}
}

// What the prefilter promises, pattern by pattern: the literal every match
// holds, or nothing.
func TestPrefilter_Required(t *testing.T) {
	for _, c := range []struct {
		pattern string
		need    []string // nil: no promise
	}{
		{`\bcurl\b.*\s-d`, []string{"curl"}},
		{`\bgh\s+(pr|issue)\s+(create|comment)\b`, []string{"reate", "omment"}},
		{`(?:^|[\s/])(?:http|https|xh|xhs)\s+`, []string{"http", "xh"}},
		{`(?i)curl`, nil},
		{`x?curl?`, []string{"cur"}},
		{`(curl|)`, nil},
		{`a{0,3}`, nil},
		{`[$` + "`" + `]\S*`, []string{"$", "`"}},
		{`[a-z]+`, nil},
		{`\x{FFFD}`, nil},
		{`.`, nil},
	} {
		got := newPrefiltered(regexp.MustCompile(c.pattern)).need
		if strings.Join(got, "|") != strings.Join(c.need, "|") || (got == nil) != (c.need == nil) {
			t.Errorf("%q: needs %q, want %q", c.pattern, got, c.need)
		}
	}
}
