// Package effect is the vocabulary every layer of effectlint shares: the
// identity of an effect (Key, Destination), the checkpoints a task asks
// at, the states of a key scope and the severities of findings (SPEC §2,
// §4–§6). It is a leaf: it imports nothing of effectlint.
package effect

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// KeyVersion prefixes every idempotency key. A change to the canonical form
// gets a new version, so stored keys are never silently reinterpreted.
const KeyVersion = "v1"

// Destination is where a delivery goes. A provider identity (Provider + ID)
// is stable; a Title alone is weak: two channels can share a title.
type Destination struct {
	Provider string `json:"provider,omitempty"`
	ID       string `json:"id,omitempty"`
	Title    string `json:"title,omitempty"`
}

// Weak reports whether the destination is known only by its display title.
// A provider or id of white space alone is none: the key trims them, and a
// key with an empty part could not be read back.
func (d Destination) Weak() bool {
	return strings.TrimSpace(d.Provider) == "" || strings.TrimSpace(d.ID) == ""
}

// FoldedIdentities are the identities under which the provider identity
// may be the same as another (SPEC §2): two strong destinations may be the
// same when they share one. The first is the provider identity with its
// letter case folded (FoldCase), provider and id trimmed; a URL has up to
// four. rules.rego's folded_identities calls this very function (the
// builtin effectlint.folded_identities), so the index that picks a check's
// scopes and the rules that weigh them cannot fold apart.
//
// The providers "http" and "https" name one kind of destination, a URL,
// and a URL's scheme is not part of what it folds to: a crossing recorded
// to https/https://h/hook must stop a check of http/https://h/hook (an
// adversarial review found the check allowed), and a server that
// redirects http://h/hook to https://h/hook receives one request under
// either. Either scheme's default port folds away too. Keys stay exact;
// only "may be the same" widens.
//
// A URL's path has four readings (pathReadings): a browser's (a
// backslash is a slash, %2E a dot, then dot segments go), a browser's of
// a %5C written so (data), curl's (dot segments go; a backslash and %2E
// are data) and a server's that decodes %2E, %2F and %5C before it
// resolves dot segments. Each is folded further as servers do: runs of
// slashes are one (nginx), a trailing slash is none (Express routes /hook/
// as /hook). Reviews 39–41 found a check of /hooks\a, /hooks/x\..\a and
// /x%2Fy\..\a allowed after /hooks/a was sent.
func (d Destination) FoldedIdentities() []string {
	p, id := FoldCase(strings.TrimSpace(d.Provider)), FoldCase(strings.TrimSpace(d.ID))
	if p != "http" && p != "https" {
		return []string{p + "/" + id}
	}
	switch rest, ok := strings.CutPrefix(id, "https://"); {
	case ok:
		id = "http://" + rest
	case !strings.HasPrefix(id, "http://"):
		id = "http://" + id // a URL written without its scheme
	}
	auth, path, rest := httpParts(id)
	var out []string
	add := func(auth, path string) {
		auth = withoutDefaultPort(auth)
		for _, p := range pathReadings(path) {
			if u := "http/http://" + auth + p + rest; !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	add(auth, path)
	if auth, path, ok := curlAuthority(path); ok {
		// The host curl reads is put in canonical form as the key puts
		// the browser's (an empty port, a trailing dot: the forty-fifth
		// review); once, not again for its own path.
		if u := NormalizeURL("http://" + auth + path); u != "" {
			auth, path, _ = httpParts(FoldCase(u))
		}
		add(auth, path)
	}
	return out
}

// curlAuthority is curl's reading of a URL whose authority a browser ends
// at a backslash: curl ends it at the first slash only, so in
// https://u\@h.com/hooks/a (which a key writes https://u/@h.com/hooks/a,
// as a browser reads it) u\ is the userinfo and h.com the host. Given
// the path a browser reads, it returns curl's host and path when the
// first segment holds an @ (a forty-fourth review found the check allowed
// after https://h.com/hooks/a was sent). A URL whose path really starts
// /x@… gets that reading too, on the fail-closed side.
func curlAuthority(path string) (auth, rest string, ok bool) {
	if path == "" || (path[0] != '/' && path[0] != '\\') {
		return "", "", false
	}
	first, rest := path[1:], ""
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first, rest = first[:i], first[i:]
	}
	at := strings.LastIndexByte(first, '@')
	if at < 0 {
		return "", "", false
	}
	return first[at+1:], rest, true
}

// httpParts splits an http:// URL into its authority (up to a slash, a
// backslash, ? or #), its path (up to ? or #) and its query; the fragment,
// never sent, is left out. Written out, not as a regular expression: Go's backtracking
// matcher cleared a bit set as long as the URL for each match, which made
// a check over a 1 MB id take seconds (the forty-first review).
func httpParts(u string) (auth, path, rest string) {
	u = strings.TrimPrefix(u, "http://")
	i := strings.IndexAny(u, `/\?#`)
	if i < 0 {
		return u, "", ""
	}
	auth, u = u[:i], u[i:]
	if j := strings.IndexByte(u, '#'); j >= 0 {
		u = u[:j] // the fragment is never sent
	}
	if j := strings.IndexByte(u, '?'); j >= 0 {
		return auth, u[:j], u[j:]
	}
	return auth, u, ""
}

// withoutDefaultPort drops either scheme's default port (80, 443, written
// with leading zeros or not) from an authority: with the scheme folded,
// https://h:443/ and http://h:80/ are both http://h/ (a key's canonical
// URL drops only its own scheme's default).
func withoutDefaultPort(auth string) string {
	i := strings.LastIndexByte(auth, ':')
	if i < 0 {
		return auth
	}
	if p := strings.TrimLeft(auth[i+1:], "0"); p == "80" || p == "443" {
		return auth[:i]
	}
	return auth
}

var (
	backslashes = strings.NewReplacer(`\`, "/", "%5c", "/")
	separators  = strings.NewReplacer(`\`, "/", "%5c", "/", "%2f", "/")
)

// pathReadings are a URL path's four readings for "may be the same", its letter
// case folded (%5c, %2f, %2e), each with its dot segments removed by
// removeDotSegments (the key's own), its slashes merged and no trailing
// slash:
//   - a WHATWG parser's (a browser, Node's fetch, Playwright): a backslash
//     is a slash (a key writes one as %5C: it is read as a slash here),
//     %2E is a dot, then dot segments go; the server then decodes %2F;
//   - the same where the key's %5C was written %5C, which a WHATWG parser
//     keeps as data: dot segments go where slashes part them, then the
//     server decodes %2F and %5C and resolves what that leaves;
//   - curl's: dot segments go where slashes part them (%2E is no dot to
//     curl), then the server decodes %2E, %2F and %5C and resolves the
//     dot segments that leaves;
//   - a server's that decodes %2F and %5C before it resolves dot segments.
//
// The key cannot tell a backslash from %5C (both are %5C): a path holding
// both beside dot segments may be read otherwise by a browser (a known
// limit). The readings differ only where the path holds %5C, %2F, %2E or
// a backslash next to a dot segment.
func pathReadings(path string) []string {
	dots := strings.ReplaceAll(path, "%2e", ".")
	whatwg := strings.ReplaceAll(removeDotSegments(backslashes.Replace(dots)), "%2f", "/")
	escaped := removeDotSegments(separators.Replace(removeDotSegments(dots)))
	curl := removeDotSegments(separators.Replace(strings.ReplaceAll(removeDotSegments(path), "%2e", ".")))
	server := removeDotSegments(separators.Replace(dots))
	out := []string{whatwg, escaped, curl, server}
	for i, p := range out {
		out[i] = strings.TrimRight(slashesMerged(p), "/")
	}
	return out
}

// slashesMerged writes each run of slashes in p as one.
func slashesMerged(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] != '/' || len(b) == 0 || b[len(b)-1] != '/' {
			b = append(b, p[i])
		}
	}
	return string(b)
}

// hostEndSlash reads a backslash that ends the host (h.com\x) as the
// slash it stands for; later backslashes stay part of the path, which a
// URL written in full keeps too (http://h.com/a\b is /a%5Cb: a
// thirty-eighth review found loose spellings read /a\b as /a/b, apart
// from the full one).
func hostEndSlash(rest string) string {
	if i := strings.IndexAny(rest, `/?#\`); i >= 0 && rest[i] == '\\' {
		return rest[:i] + "/" + rest[i+1:]
	}
	return rest
}

// schemeWritten is a URL's own scheme at the start of an id (ftp://…),
// which an http(s) id must not be read under. Only at the start: a "://"
// later (h.com/a#://, in the fragment) left the id as written, apart from
// h.com/a (a forty-third review).
var schemeWritten = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// looseScheme is an http(s) scheme written with other than "//" after it.
var looseScheme = regexp.MustCompile(`(?i)^(https?):[/\\]*(.*)$`)

// FoldCase folds letter case for "may be the same": two strings differ
// only in letter case when their folds are equal. It is lower(upper(s)),
// rune by rune, which Rego can say too: it equates every pair Unicode's
// simple case folding does (the long s and s, the final sigma and sigma,
// the Kelvin sign and k), which lower alone does not (a review: a send
// to "#ſales" was not weighed for a check of "#Sales"), and every pair
// lower does (TestFoldCase_SimpleFoldingAndLower checks each rune).
func FoldCase(s string) string {
	return strings.ToLower(strings.ToUpper(s))
}

// CanonicalTitle folds case and runs of white space, so "#Ops  Alerts" and
// "#ops alerts" name the same (weak) destination: the title a key gives.
// Keys keep lower case (KeyVersion v1); FoldedTitle is what
// "may be the same" compares.
func CanonicalTitle(t string) string {
	return strings.ToLower(strings.Join(strings.Fields(t), " "))
}

// FoldedTitle is a title as "may be the same" compares it: its words
// joined by one space, its letter case folded (FoldCase). It is
// rules.rego's folded_title.
func FoldedTitle(t string) string {
	return FoldCase(strings.Join(strings.Fields(t), " "))
}

// Identity is the destination part of a key: dest=PROVIDER/ID, or
// title=TITLE for a destination known by its title alone.
func (d Destination) Identity() string {
	if d.Weak() {
		return "title=" + url.PathEscape(CanonicalTitle(d.Title))
	}
	return "dest=" + url.PathEscape(strings.ToLower(strings.TrimSpace(d.Provider))) + "/" + url.PathEscape(strings.TrimSpace(d.ID))
}

// Key is the identity of an effect: a destination and the SHA-256 of the
// content bytes.
//
// Its canonical string (String) is
//
//	v1|dest=<provider>/<id>|sha256=<64 lowercase hex>
//	v1|title=<title>|sha256=<64 lowercase hex>
//
// where provider is lower-cased, id kept as is, title lower-cased with white
// space runs folded to one space, and every part percent-escaped as a URL
// path segment (so "/", "|", "%", spaces and non-ASCII bytes are escaped).
type Key struct {
	Destination Destination
	SHA256      string
}

func (k Key) String() string {
	return KeyVersion + "|" + k.Destination.Identity() + "|sha256=" + k.SHA256
}

// NormalizeSHA256 reads a content digest as SPEC §2 allows it: 64 hex
// digits in either case, optionally prefixed "sha256:". It returns the
// canonical form, 64 lowercase hex digits.
func NormalizeSHA256(sha string) (string, error) {
	sha = strings.TrimSpace(sha)
	if len(sha) > 7 && strings.EqualFold(sha[:7], "sha256:") {
		sha = sha[7:]
	}
	sha = strings.ToLower(sha)
	if len(sha) != 64 {
		return "", fmt.Errorf("sha256 must be 64 hex digits (optionally prefixed sha256:), got %d characters", len(sha))
	}
	if _, err := hex.DecodeString(sha); err != nil {
		return "", fmt.Errorf("sha256 is not hexadecimal")
	}
	return sha, nil
}

// NewKey checks the digest and builds a key.
func NewKey(d Destination, sha string) (Key, error) {
	sha, err := NormalizeSHA256(sha)
	if err != nil {
		return Key{}, err
	}
	if d.Weak() && strings.TrimSpace(d.Title) == "" {
		return Key{}, fmt.Errorf("destination needs provider and id, or a title")
	}
	if d.Weak() {
		d.Provider, d.ID = "", ""
	}
	return Key{Destination: d.Canonical(), SHA256: sha}, nil
}

// Canonical is the destination in the form a key gives it. One HTTP
// request has many spellings (default port, dot segments,
// percent-encoding, a fragment): an http(s) destination is its URL in the
// canonical form the conventions give it, so `check --destination
// http/URL` names the scope a recorded upload to that URL opened, and an
// intent without a key is weighed for it too.
//
// An id written without a scheme (http/example.com/hook) is read as an
// http:// URL and canonical too: left as written, its dot segments,
// percent-encodings and ports named another destination than the same URL
// with a scheme (a thirty-fifth review; keys of such ids changed on
// 7 December 2026).
func (d Destination) Canonical() Destination {
	if p := strings.ToLower(strings.TrimSpace(d.Provider)); p == "http" || p == "https" {
		id := strings.TrimSpace(d.ID)
		if u := NormalizeURL(id); u != "" {
			d.ID = u
		} else if m := looseScheme.FindStringSubmatch(id); m != nil {
			// http:/h/x, http:h/x, https:\\h\x: the scheme with other
			// than two slashes after it (a thirty-sixth review found
			// http:/ex.com/hook read as the host "http"); a backslash is
			// read as the slash browsers read it as (a thirty-seventh).
			if u := NormalizeURL(strings.ToLower(m[1]) + "://" + hostEndSlash(m[2])); u != "" {
				d.ID = u
			}
		} else if !schemeWritten.MatchString(id) {
			// No scheme; "//h/x" names the host h too.
			if u := NormalizeURL("http://" + hostEndSlash(strings.TrimLeft(id, `/\`))); u != "" {
				d.ID = u
			}
		}
	}
	return d
}

// ParseKey reads a canonical key string (as printed by `effectlint key`).
func ParseKey(s string) (Key, error) {
	k, err := ParseKeyLenient(s)
	if err != nil {
		return Key{}, err
	}
	if k.String() != s {
		return Key{}, fmt.Errorf("key %q is not canonical; the canonical form is %q", s, k.String())
	}
	return k, nil
}

// ParseKeyLenient reads a key string that may not be canonical (a digest
// in capitals, say) and returns the key it means.
func ParseKeyLenient(s string) (Key, error) {
	parts := strings.Split(s, "|")
	if len(parts) != 3 || parts[0] != KeyVersion || !strings.HasPrefix(parts[2], "sha256=") {
		return Key{}, fmt.Errorf("key %q is not of the form %s|dest=PROVIDER/ID|sha256=HEX or %s|title=TITLE|sha256=HEX", s, KeyVersion, KeyVersion)
	}
	var d Destination
	switch {
	case strings.HasPrefix(parts[1], "dest="):
		p, id, ok := strings.Cut(strings.TrimPrefix(parts[1], "dest="), "/")
		if !ok {
			return Key{}, fmt.Errorf("key %q: dest needs PROVIDER/ID", s)
		}
		var err1, err2 error
		d.Provider, err1 = url.PathUnescape(p)
		d.ID, err2 = url.PathUnescape(id)
		if err1 != nil || err2 != nil || d.Provider == "" || d.ID == "" {
			return Key{}, fmt.Errorf("key %q: bad dest escape or empty part", s)
		}
	case strings.HasPrefix(parts[1], "title="):
		t, err := url.PathUnescape(strings.TrimPrefix(parts[1], "title="))
		if err != nil || t == "" {
			return Key{}, fmt.Errorf("key %q: bad title", s)
		}
		d.Title = t
	default:
		return Key{}, fmt.Errorf("key %q: destination part must start with dest= or title=", s)
	}
	k, err := NewKey(d, strings.TrimPrefix(parts[2], "sha256="))
	if err != nil {
		return Key{}, fmt.Errorf("key %q: %v", s, err)
	}
	return k, nil
}

// ParseDestination reads PROVIDER/ID as given on the command line.
func ParseDestination(s string) (Destination, error) {
	p, id, ok := strings.Cut(s, "/")
	if !ok || strings.TrimSpace(p) == "" || strings.TrimSpace(id) == "" {
		return Destination{}, fmt.Errorf("destination %q must be PROVIDER/ID", s)
	}
	return Destination{Provider: p, ID: id}, nil
}

// HashRegularFile is HashFile for a path a history names: only a regular
// file is hashed. A device never ends (/dev/zero) and a FIFO blocks its
// reader until a writer comes, so a history naming one hung a check (the
// 51st review: a trace's localPaths of ../../dev/zero, a native intent's
// content path /dev/zero). Refused, the content has no key, and a crossing
// of it stops a check (fail closed). The file is looked at before it is
// opened (opening a FIFO blocks) and again once open (it may have been
// replaced in between).
func HashRegularFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // as HashFile says it (key errors are in reports)
		}
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %s, not a regular file: its content is not hashed", path, fileKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file once opened: its content is not hashed", path)
	}
	return hashReader(f)
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "something else"
}

// HashFile returns the hex SHA-256 of a file's bytes, read as a stream:
// the file a user names on the command line (a pipe is fine there).
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return hashReader(f)
}

func hashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// MayBeSame reports whether two destinations may be the same (SPEC §2):
// they share a folded provider identity (FoldedIdentities: letter case,
// and an http(s) URL's provider, scheme, default port and readings of its
// path), or one is known
// by its title alone and the other carries that title. The gate treats
// "may be the same" as the same; keys stay exact. (rules.rego's
// may_be_same is the same relation, for the gate's own decisions.)
func MayBeSame(a, b Destination) bool {
	switch {
	case !a.Weak() && !b.Weak():
		bs := b.FoldedIdentities()
		return slices.ContainsFunc(a.FoldedIdentities(), func(x string) bool { return slices.Contains(bs, x) })
	case a.Weak() && FoldedTitle(a.Title) != "":
		return FoldedTitle(a.Title) == FoldedTitle(b.Title)
	case b.Weak() && FoldedTitle(b.Title) != "":
		return FoldedTitle(a.Title) == FoldedTitle(b.Title)
	}
	return false
}
