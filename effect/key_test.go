package effect

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"
)

const hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")

func TestKey_CanonicalForm(t *testing.T) {
	cases := []struct {
		dest Destination
		sha  string
		want string
	}{
		{Destination{Provider: "slack", ID: "C024BE91L"}, hello, "v1|dest=slack/C024BE91L|sha256=" + hello},
		{Destination{Provider: " Slack ", ID: "C024BE91L", Title: "#x"}, strings.ToUpper(hello), "v1|dest=slack/C024BE91L|sha256=" + hello},
		{Destination{Provider: "api", ID: "https://h.example/a|b"}, hello, "v1|dest=api/https:%2F%2Fh.example%2Fa%7Cb|sha256=" + hello},
		{Destination{Title: "  Finance   Reports "}, hello, "v1|title=finance%20reports|sha256=" + hello},
		{Destination{Provider: "slack", Title: "#ops"}, hello, "v1|title=%23ops|sha256=" + hello},
		// A provider of white space alone is none (the key could not be read back).
		{Destination{Provider: "  ", ID: "C1", Title: "#ops"}, hello, "v1|title=%23ops|sha256=" + hello},
	}
	for _, c := range cases {
		k, err := NewKey(c.dest, c.sha)
		if err != nil {
			t.Fatalf("%+v: %v", c.dest, err)
		}
		if k.String() != c.want {
			t.Errorf("%+v: key %q, want %q", c.dest, k.String(), c.want)
		}
		back, err := ParseKey(k.String())
		if err != nil || back.String() != k.String() {
			t.Errorf("round trip of %q: %q, %v", k.String(), back.String(), err)
		}
	}
}

func TestKey_Rejects(t *testing.T) {
	for _, sha := range []string{"", "abc", strings.Repeat("g", 64)} {
		if _, err := NewKey(Destination{Provider: "p", ID: "i"}, sha); err == nil {
			t.Errorf("sha %q accepted", sha)
		}
	}
	for _, d := range []Destination{{}, {Provider: " ", ID: "C1"}, {Provider: "slack", ID: "\t"}} {
		if _, err := NewKey(d, hello); err == nil {
			t.Errorf("destination %+v accepted", d)
		}
	}
	for _, s := range []string{
		"", "v2|dest=a/b|sha256=" + hello, "v1|dest=Slack/C1|sha256=" + hello, // not canonical: provider case
		"v1|dest=ab|sha256=" + hello, "v1|x=a|sha256=" + hello, "v1|dest=a/b|sha256=zz",
	} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}

// An http(s) destination is its URL's canonical form (found by the
// adversarial review: a check naming the URL with its default port or a
// fragment missed the recorded upload to it).
func TestNewKey_HTTPDestinationsInCanonicalForm(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	want, err := NewKey(Destination{Provider: "http", ID: "https://slack.example/api/files.upload"}, sha)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"https://slack.example:443/api/files.upload", "https://SLACK.example/api/files.upload#top",
		"https://slack.example/api/x/../files.upload", "https://bot@slack.example/api/%66iles.upload"} {
		k, err := NewKey(Destination{Provider: "http", ID: id}, sha)
		if err != nil || k.String() != want.String() {
			t.Errorf("%s: %v %v, want %s", id, k, err, want)
		}
	}
	// Without a scheme: an http:// URL, canonical (a thirty-fifth review).
	plain, _ := NewKey(Destination{Provider: "http", ID: "http://slack.example/api/files.upload"}, sha)
	for _, id := range []string{"slack.example/api/files.upload", "SLACK.example/api/x/../files.upload#top",
		"slack.example:80/api/%66iles.upload", "slack.example./api/./files.upload"} {
		for _, p := range []string{"http", "https"} {
			k, err := NewKey(Destination{Provider: p, ID: id}, sha)
			if err != nil || k.Destination.ID != plain.Destination.ID {
				t.Errorf("%s/%s: %v %v, want the id of %s", p, id, k, err, plain)
			}
		}
	}
	if k, _ := NewKey(Destination{Provider: "http", ID: "ftp://slack.example/x"}, sha); k.Destination.ID != "ftp://slack.example/x" {
		t.Errorf("another scheme's id changed: %s", k)
	}
	if k, _ := NewKey(Destination{Provider: "slack", ID: "https://slack.example:443/x"}, sha); k.Destination.ID != "https://slack.example:443/x" {
		t.Errorf("another provider's id changed: %s", k)
	}
}

// Two strong destinations may be the same when their identities differ at
// most in letter case (SPEC §2); a URL's provider (http or https) and its
// scheme are spellings of that kind too (an adversarial review: a crossing
// to https/https://example.com/hook did not stop a check of
// http/https://example.com/hook). Keys stay exact.
func TestMayBeSame_URLsAcrossProvidersAndSchemes(t *testing.T) {
	hook := func(p, id string) Destination { return Destination{Provider: p, ID: id} }
	same := [][2]Destination{
		{hook("https", "https://example.com/hook"), hook("http", "https://example.com/hook")},
		{hook("HTTPS", "https://example.com/hook"), hook(" http ", "HTTPS://EXAMPLE.com/hook")},
		{hook("http", "http://example.com/hook"), hook("http", "https://example.com/hook")},
		{hook("https", "http://example.com/hook"), hook("http", "https://example.com/hook")},
		{hook("slack", "C1"), hook("Slack", "c1")},
		// Either scheme's default port, and a URL written without its scheme
		// (the thirty-fourth review).
		{hook("https", "https://example.com:443/hook"), hook("http", "http://example.com:443/hook")},
		{hook("http", "http://example.com:80/hook"), hook("https", "https://example.com/hook")},
		{hook("http", "example.com/hook"), hook("https", "https://example.com/hook")},
		{hook("http", "http://[::1]:443/hook"), hook("https", "https://[::1]/hook")},
	}
	for _, c := range same {
		if !MayBeSame(c[0], c[1]) || !MayBeSame(c[1], c[0]) {
			t.Errorf("%+v and %+v: not the same, want may be", c[0], c[1])
		}
	}
	apart := [][2]Destination{
		{hook("http", "https://example.com/hook"), hook("http", "https://example.com/other")},
		{hook("http", "https://example.com/hook"), hook("api", "https://example.com/hook")},
		{hook("httpx", "https://example.com/hook"), hook("http", "https://example.com/hook")},
		{hook("http", "ftp://example.com/hook"), hook("http", "https://example.com/hook")},
		{hook("slack", "http://x"), hook("slack", "https://x")}, // another provider's ids are not URLs to fold
		{hook("http", "http://example.com:8080/hook"), hook("http", "http://example.com/hook")},
		{hook("http", "http://example.com:4430/hook"), hook("http", "http://example.com/hook")},
		{hook("http", "http://[::443]/hook"), hook("http", "http://[::]/hook")},
	}
	for _, c := range apart {
		if MayBeSame(c[0], c[1]) || MayBeSame(c[1], c[0]) {
			t.Errorf("%+v and %+v: may be the same, want apart", c[0], c[1])
		}
	}
	a, _ := NewKey(hook("https", "https://example.com/hook"), hello)
	b, _ := NewKey(hook("http", "https://example.com/hook"), hello)
	if a.String() == b.String() {
		t.Errorf("keys of two providers are one: %s", a)
	}
}

// FoldCase is coarser than lower case (two strings equal in lower case
// fold alike), equates every orbit of Unicode's simple case folding, and
// folds a fold to itself: checked for every rune.
func TestFoldCase_SimpleFoldingAndLower(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		f := FoldCase(s)
		if FoldCase(strings.ToLower(s)) != f {
			t.Errorf("%U: lower case folds to %+q, the rune to %+q", r, FoldCase(strings.ToLower(s)), f)
		}
		if FoldCase(f) != f {
			t.Errorf("%U: a fold folds again: %+q, %+q", r, f, FoldCase(f))
		}
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if FoldCase(string(o)) != f {
				t.Errorf("%U and %U fold apart: %+q, %+q", r, o, f, FoldCase(string(o)))
			}
		}
	}
}

// The long s and the final sigma may be the same as s and sigma in a
// title and in a provider identity (a review sent to "#ſales" and was
// allowed to send to "#Sales").
func TestMayBeSame_SimpleCaseFolds(t *testing.T) {
	for _, c := range [][2]Destination{
		{{Title: "#ſales"}, {Title: "#Sales"}},
		{{Title: "ΟΔΟΣ"}, {Title: "οδος"}},
		{{Title: "οδος"}, {Title: "οδoς"}}, // omicron and o stay apart: not a case pair
		{{Provider: "mail", ID: "ſam@example.com"}, {Provider: "MAIL", ID: "Sam@example.com"}},
		{{Provider: "slack", ID: "\u212a1"}, {Provider: "slack", ID: "k1"}}, // the Kelvin sign
	} {
		want := c[0].Title != "οδος"
		if MayBeSame(c[0], c[1]) != want || MayBeSame(c[1], c[0]) != want {
			t.Errorf("%+v and %+v: may be the same %v, want %v", c[0], c[1], MayBeSame(c[0], c[1]), want)
		}
	}
	a, _ := NewKey(Destination{Title: "#ſales"}, hello)
	b, _ := NewKey(Destination{Title: "#sales"}, hello)
	if a.String() == b.String() {
		t.Errorf("keys folded: %s", a)
	}
}

// A scheme written loosely, or none but "//": the same URL (a
// thirty-sixth review: http///ex.com/hook stayed as written, and
// http:/ex.com/hook was read as the host "http").
func TestCanonical_LooseSchemes(t *testing.T) {
	want := "http://ex.com/hook"
	for _, id := range []string{"//ex.com/hook", "http:/ex.com/hook", "HTTP:ex.com/hook", `http:\\ex.com/hook`, "http:///ex.com/hook", "ex.com/hook",
		`HTTP:\\ex.com\hook`, `http://ex.com\hook`, `\\ex.com/hook`} {
		if got := (Destination{Provider: "http", ID: id}).Canonical().ID; got != want {
			t.Errorf("%q: %q, want %q", id, got, want)
		}
	}
	if got := (Destination{Provider: "https", ID: "https:/ex.com/hook"}).Canonical().ID; got != "https://ex.com/hook" {
		t.Errorf("https:/ex.com/hook: %q", got)
	}
}

// A backslash in the path stays part of the path whatever the spelling
// of the rest (a thirty-eighth review: loose spellings read /a\b as /a/b,
// apart from http://h.com/a\b, and a second send was allowed).
func TestCanonical_BackslashInThePath(t *testing.T) {
	want := (Destination{Provider: "http", ID: `http://h.com/a\b`}).Canonical().ID
	for _, id := range []string{`h.com/a\b`, `HTTP:\\h.com/a\b`, `http://h.com\a\b`, `u@h.com/a\b`, `h.com/a%5Cb`, `\\h.com\a\b`} {
		if got := (Destination{Provider: "http", ID: id}).Canonical().ID; got != want {
			t.Errorf("%q: %q, want %q", id, got, want)
		}
	}
}

// A URL's path separators fold for "may be the same": WHATWG parsers read
// a backslash in an http(s) path as a slash, nginx merges slashes, Express
// routes /hook/ as /hook, and a server may decode %2F. A query is its own,
// and other paths stay apart.
func TestMayBeSame_URLPathSeparators(t *testing.T) {
	sent := Destination{Provider: "https", ID: "https://h.com/hooks/a"}
	for _, id := range []string{`https://h.com/hooks\a`, `http://h.com\hooks\a`, "https://h.com/hooks%5Ca", "https://h.com/hooks%2fA",
		"https://h.com//hooks///a", "https://h.com/hooks/a/", `h.com\hooks\a\`, "H.COM:443/hooks/a//"} {
		if d := (Destination{Provider: "http", ID: id}); !MayBeSame(sent, d) || !MayBeSame(d, sent) {
			t.Errorf("%q: not the same as %q (%q, %q)", id, sent.ID, d.FoldedIdentities(), sent.FoldedIdentities())
		}
	}
	for _, id := range []string{"https://h.com/hooks/b", "https://h.com/hooksa", "https://h.com/hooks/a?x", "https://h.com/hooks-a", "https://g.com/hooks/a"} {
		if d := (Destination{Provider: "http", ID: id}); MayBeSame(sent, d) {
			t.Errorf("%q: the same as %q", id, sent.ID)
		}
	}
	q1, q2 := Destination{Provider: "http", ID: `http://h.com/a?x=\b`}, Destination{Provider: "http", ID: "http://h.com/a?x=/b"}
	if MayBeSame(q1, q2) {
		t.Errorf("a query's backslash is folded: %q", q1.FoldedIdentities())
	}
}

// An id without a scheme is a URL even with "://" after its start (in the
// fragment, say); one that starts with another scheme is not read as an
// http URL (the forty-third review).
func TestCanonical_SchemeOnlyAtTheStart(t *testing.T) {
	for id, want := range map[string]string{
		"h.com/hooks/a#://":       "http://h.com/hooks/a",
		"u:p@h.com/hooks/a#a://b": "http://h.com/hooks/a",
		"h.com:80/a?x=://":        "http://h.com/a?x=://",
		"ftp://h.com/a":           "ftp://h.com/a",
	} {
		if got := (Destination{Provider: "http", ID: id}).Canonical().ID; got != want {
			t.Errorf("Canonical(http/%s) = %q, want %q", id, got, want)
		}
	}
	if ids := (Destination{Provider: "http", ID: "http://h.com/a#x"}).FoldedIdentities(); len(ids) != 1 || ids[0] != "http/http://h.com/a" {
		t.Errorf("a fragment is part of the identity: %q", ids)
	}
}

// A backslash before an @ ends the host for a browser (u) and is userinfo
// for curl (host h.com): either may be the request (the forty-fourth
// review).
func TestMayBeSame_BackslashInTheUserinfo(t *testing.T) {
	sent := Destination{Provider: "https", ID: "https://h.com/hooks/a"}
	for _, id := range []string{`https://u\@h.com/hooks/a`, `u:p\@h.com/hooks/a`, `http:x\@H.COM:80/hooks/a`, `https://u\x\@h.com/hooks/a`,
		`https://u\@h.com:/hooks/a`, `https://u\@h.com./hooks/a`, `u\@h.com%2e:/hooks/a`, `u\@%68.com/hooks/./a`} { // the forty-fifth review: curl's host in canonical form
		d := Destination{Provider: "http", ID: id}
		if !MayBeSame(sent, d) || !MayBeSame(sent, d.Canonical()) {
			t.Errorf("%q is not %q (%q)", id, sent.ID, d.Canonical().FoldedIdentities())
		}
	}
	if d := (Destination{Provider: "http", ID: `https://u\@g.com/hooks/a`}).Canonical(); MayBeSame(sent, d) {
		t.Errorf("%q is %q", d.ID, sent.ID)
	}
}

// curl reads %2E as data, a browser as a dot: /x/%2e%2e/../a is /x/a to
// curl and /a to a browser, and may be either (the forty-second review).
func TestMayBeSame_CurlAndBrowserReadings(t *testing.T) {
	spelled := Destination{Provider: "http", ID: "https://h.com/x/%2e%2e/../a"}.Canonical()
	for _, id := range []string{"https://h.com/x/a", "https://h.com/a", "https://h.com/x/a#f%"} {
		if d := (Destination{Provider: "https", ID: id}).Canonical(); !MayBeSame(spelled, d) {
			t.Errorf("%q is not %q (%q, %q)", spelled.ID, d.ID, spelled.FoldedIdentities(), d.FoldedIdentities())
		}
	}
	if d := (Destination{Provider: "https", ID: "https://h.com/x"}).Canonical(); MayBeSame(spelled, d) {
		t.Errorf("%q is %q", spelled.ID, d.ID)
	}
}

// A WHATWG parser (a browser, Node's fetch) sends one request for every
// spelling of a path that differs in a slash written as a backslash, in
// "." and "x/.." segments (spelled with %2E too) and, at the server, in
// %2F, %5C, runs of slashes and a trailing slash. Each such spelling of a
// sent URL may be the same; another last segment may not (a fortieth
// review found /x\..\a allowed after /a was sent).
func TestMayBeSame_AnySpellingOfOnePath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		segs := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "hooks", "x.y"}), 1, 6).Draw(t, "path")
		sent := Destination{Provider: "https", ID: "https://h.com/" + strings.Join(segs, "/")}
		var b strings.Builder
		b.WriteString("https://h.com")
		seps := []string{"/", "//", "/./", "/%2E/", "/z/../", "/z/%2e%2E/", "//../", "%5C", "%2f"}
		if rapid.Bool().Draw(t, "backslashes") {
			// A browser reads a backslash as a slash before it pops.
			seps = append([]string{`\`, `\.\`, `\q\..\`, `/q/r\..\..\`}, seps...)
		} else {
			// Without one, a segment holding %5C or %2F is popped whole
			// (a key cannot tell %5C from a backslash: a browser reads a
			// URL holding both beside dot segments otherwise, a known
			// limit).
			seps = append([]string{"/q%5Cr/../", "/q%2Fr/../", "/q%5C/../"}, seps...)
		}
		for i, seg := range segs {
			if i == 0 { // %5C and %2F after the host are part of it
				b.WriteString(rapid.SampledFrom(seps[:len(seps)-2]).Draw(t, "first sep"))
			} else {
				b.WriteString(rapid.SampledFrom(seps).Draw(t, "sep"))
			}
			b.WriteString(seg)
		}
		b.WriteString(rapid.SampledFrom([]string{"", "/", "/.", `\.`, "//", "/z/.."}).Draw(t, "end"))
		spelled := Destination{Provider: "http", ID: b.String()}
		if !MayBeSame(sent, spelled) || !MayBeSame(spelled.Canonical(), sent.Canonical()) {
			t.Fatalf("%q is not %q (%q, %q)", spelled.ID, sent.ID, spelled.FoldedIdentities(), sent.FoldedIdentities())
		}
		other := Destination{Provider: "http", ID: b.String() + "/c"}
		if MayBeSame(sent, other) || MayBeSame(sent.Canonical(), other.Canonical()) {
			t.Fatalf("%q is %q (%q)", other.ID, sent.ID, other.FoldedIdentities())
		}
	})
}
