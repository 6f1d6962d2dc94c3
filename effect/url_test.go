package effect

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// URLs for which a client sends the same request are one destination.
func TestNormalizeURL(t *testing.T) {
	want := "https://slack.example/api/files.upload"
	for _, in := range []string{
		"https://slack.example/api/files.upload",
		"HTTPS://SLACK.EXAMPLE/api/files.upload",
		"https://slack.example:443/api/files.upload",
		"https://slack.example:/api/files.upload",
		"https://slack.example/api/files.upload#top",
		"https://bot:secret@slack.example/api/files.upload",
		"https://slack.example/api/x/../files.upload",
		"https://slack.example/api/./files.upload",
		"https://slack.example/api/%66iles.upload",
		"https://slack.example/api/files%2Eupload",
		"https://slack.example/./x/../../api/files.upload",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
	normalizes(t, map[string]string{
		"http://h.example":                 "http://h.example/",
		"http://h.example:80/a/":           "http://h.example/a/",
		"http://h.example:8080/a":          "http://h.example:8080/a",
		"https://h.example/a%2fb?q=%7e%2f": "https://h.example/a%2Fb?q=~%2F",
		"https://h.example/a/.":            "https://h.example/a/",
		"https://[::1]:443/x":              "https://[::1]/x",
		"ftp://h.example/x":                "",
		"report.pdf":                       "",
		"https:///x":                       "",
	})
}

// Found by the second adversarial review: a trailing-dot host and an empty
// query reach the same resource with the same request.
func TestNormalizeURL_TrailingDotHostAndEmptyQuery(t *testing.T) {
	want := "https://slack.example/api/files.upload"
	for _, in := range []string{"https://slack.example./api/files.upload", "https://slack.example/api/files.upload?",
		"https://SLACK.example.:443/api/files.upload?"} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A character beyond ASCII is written as itself, whether it came raw or
// in %XX form, so that its letter case can be folded (a thirty-sixth
// review: http/ex.com/café and http/ex.com/CAFÉ were apart); bytes that
// are not one valid UTF-8 character stay in %XX form.
func TestNormalizeURL_CharactersBeyondASCII(t *testing.T) {
	normalizes(t, map[string]string{
		"http://ex.com/café":                  "http://ex.com/café",
		"http://ex.com/caf%C3%A9":             "http://ex.com/café",
		"http://ex.com/caf%c3%a9?q=%E2%82%AC": "http://ex.com/café?q=€",
		"http://ex.com/%FF%41":                "http://ex.com/%FFA",
		"http://ex.com/%C0%AF":                "http://ex.com/%C0%AF", // an overlong "/"
		"http://ex.com/%C3":                   "http://ex.com/%C3",
		"http://ex.com/%C3%A9%A9":             "http://ex.com/é%A9",
		"http://ex.com/%ED%A0%80":             "http://ex.com/%ED%A0%80", // a surrogate
	})
	a := Destination{Provider: "http", ID: "ex.com/café"}.Canonical()
	b := Destination{Provider: "http", ID: "ex.com/CAFÉ"}.Canonical()
	c := Destination{Provider: "https", ID: "https://EX.com/CAF%C3%89"}.Canonical()
	if !MayBeSame(a, b) || !MayBeSame(a, c) {
		t.Errorf("%+v, %+v and %+v: not the same", a, b, c)
	}
}

// An unreserved character in %XX form in the host is the character (a
// thirty-seventh review: http://%68.com/x was kept apart from
// http://h.com/x); other escapes there still fail the parse.
func TestNormalizeURL_UnreservedEscapesInTheHost(t *testing.T) {
	normalizes(t, map[string]string{
		"http://%68.com/x":         "http://h.com/x",
		"http://h%2Ecom/x":         "http://h.com/x",
		"http://u%40@h%2ecom:80/x": "http://h.com/x",
		"http://h.com/%68":         "http://h.com/h",
		"http://h%20.com/x":        "",
	})
}

// normalizes checks NormalizeURL on each input against its wanted form.
func normalizes(t *testing.T, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A WHATWG parser (a browser, Node's fetch) removes ASCII tabs and
// newlines, reads a port as a number and writes an IP address host in one
// form before it connects; each spelling of one request is one
// destination (a fortieth review found each allowed after the other was
// sent). Hosts a parser refuses are left as they are.
func TestNormalizeURL_AddressesPortsAndTabs(t *testing.T) {
	normalizes(t, map[string]string{
		"https://h.com/ho\tok\n":          "https://h.com/hook",
		"https://h.\r\ncom/hook":          "https://h.com/hook",
		"https://h.com:0443/hook":         "https://h.com/hook",
		"https://h.com:00443/hook":        "https://h.com/hook",
		"http://h.com:08080/hook":         "http://h.com:8080/hook",
		"http://h.com:000/hook":           "http://h.com:0/hook",
		"http://h.com:0/hook":             "http://h.com:0/hook",
		"http://2130706433/hook":          "http://127.0.0.1/hook",
		"http://0x7f.1/hook":              "http://127.0.0.1/hook",
		"http://0177.0.0.01/hook":         "http://127.0.0.1/hook",
		"http://127.1/hook":               "http://127.0.0.1/hook",
		"http://0x7F000001./hook":         "http://127.0.0.1/hook",
		"http://1.2.65535/":               "http://1.2.255.255/",
		"http://[0:0::1]/hook":            "http://[::1]/hook",
		"http://[0000::0001]:80/hook":     "http://[::1]/hook",
		"http://[::FFFF:102:304]/hook":    "http://[::ffff:1.2.3.4]/hook",
		"http://1.2.3.256/hook":           "http://1.2.3.256/hook", // refused by a parser: left alone
		"http://1.2.3.4.5/hook":           "http://1.2.3.4.5/hook",
		"http://a.1/hook":                 "http://a.1/hook",
		"http://09/hook":                  "http://09/hook",
		"http://4294967296/hook":          "http://4294967296/hook",
		"http://example.com.123x/hook":    "http://example.com.123x/hook",
		"http://[fe80::1%25eth0]:80/hook": "http://[fe80::1%eth0]/hook", // a zone: left alone
	})
}

// A canonical URL is its own canonical form (a key read back is the key
// written), whatever separators, dot segments and escapes the path holds.
func TestNormalizeURL_Idempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"/", `\`, "a", "B", ".", "..", "%2e", "%2F", "%5c", "%40", "@", "!", " ", "%", "%zz", "é", "%C3%A9", "{", "?", "#", "?x\\y", ":8080", ":0443", "[", "]", "\t"}), 0, 14).Draw(t, "parts")
		u := rapid.SampledFrom([]string{"https://h.com", "http://0x7f.1", "http://[0:0::1]", "HTTPS://U@H.COM."}).Draw(t, "host") + strings.Join(parts, "")
		n := NormalizeURL(u)
		if n == "" {
			return
		}
		if again := NormalizeURL(n); again != n {
			t.Fatalf("NormalizeURL(%q) = %q, and of that %q", u, n, again)
		}
	})
}

// A path is written as its text gave it, with only what a path may not
// hold encoded (a backslash made url.URL write it anew, decoding %2F and
// %40), and keeps its dot segments when it holds %5C or %2F, for
// FoldedIdentities to read each way; a query is encoded as a WHATWG
// parser encodes it (a forty-first review).
func TestNormalizeURL_PathAndQueryAsWritten(t *testing.T) {
	normalizes(t, map[string]string{
		`https://h.com/s/a%40b\c`:   "https://h.com/s/a%40b%5Cc",
		`https://h.com/a!b\c`:       "https://h.com/a!b%5Cc",
		`https://h.com/x%2Fy\..\a`:  "https://h.com/x%2Fy%5C..%5Ca",
		`https://h.com/hook\x/../`:  "https://h.com/hook%5Cx/../",
		"https://h.com/a%2fb/../c":  "https://h.com/a%2Fb/../c",
		"https://h.com/a/b/../c":    "https://h.com/a/c",
		"https://h.com/a b/{c}":     "https://h.com/a%20b/%7Bc%7D",
		"https://h.com/q?x y":       "https://h.com/q?x%20y",
		"https://h.com/q?x%20y":     "https://h.com/q?x%20y",
		"https://h.com/q?'\"<>":     "https://h.com/q?%27%22%3C%3E",
		"https://h.com/q?a/../b\\c": "https://h.com/q?a/../b\\c",
		"https://h.com..:443/a":     "https://h.com/a",
		"https://./a":               "",
		// What no client sends goes, and a % that starts no escape is
		// one (the forty-second review).
		"https://h.com/hooks/a#100%":    "https://h.com/hooks/a",
		"https://h.com/hooks/a#%zz":     "https://h.com/hooks/a",
		"https://u^@h.com/hooks/a":      "https://h.com/hooks/a",
		"https://a b@h.com:443/hooks/a": "https://h.com/hooks/a",
		"https://h.com/a%zz?%":          "https://h.com/a%25zz?%25",
		`https://h.com\a@b/x`:           "", // a backslash ends the host: Canonical reads it so
		// A segment %2E makes a dot segment stays as written, and the
		// path keeps its dot segments: curl reads it as data.
		"https://h.com/x/%2e%2e/../a": "https://h.com/x/%2E%2E/../a",
		"https://h.com/x/.%2e/a":      "https://h.com/x/.%2E/a",
		"https://h.com/x/a%2eb/../c":  "https://h.com/x/c",
	})
}
