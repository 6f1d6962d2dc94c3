package effect

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NormalizeURL returns the canonical form of an http(s) URL as a
// destination identity, so that URLs for which a client sends the same
// request are one destination (RFC 3986 §6.2.2): scheme and host in lower
// case, the default port (and an empty one) dropped, userinfo dropped (it
// only adds an Authorization header), the fragment dropped (never sent),
// percent-encoded unreserved characters decoded and other
// percent-encodings in upper case, "." and ".." path segments removed
// (unless the path holds %5C, %2F or a dot segment written with %2E), an
// empty path as "/". It returns "" for what is not an absolute http or
// https URL. The built-in conventions' $url destinations use it; a
// destination given on the command line (check --destination http/URL)
// should be passed through it too.
func NormalizeURL(s string) string {
	// A WHATWG parser removes every ASCII tab and newline first (a
	// fortieth review: https://h/ho<TAB>ok was kept apart from /hook).
	s = tabsAndNewlines.Replace(strings.TrimSpace(s))
	u, err := url.Parse(unreservedInAuthority(whatIsSent(s)))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return ""
	}
	host := strings.ToLower(u.Host)
	port := ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host, port = host[:i], host[i:]
		// The port is a number: :0443 is :443 (the fortieth review).
		p := port[1:]
		if p != "" {
			if p = strings.TrimLeft(p, "0"); p == "" {
				p = "0"
			}
		}
		port = ":" + p
		if p == "" || (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
			port = ""
		}
	}
	// A fully qualified name (a trailing dot) is the same host; all
	// trailing dots go, so that the canonical form is its own (h.com..
	// became h.com., which became h.com: a key that could not be read
	// back).
	host = strings.TrimRight(host, ".")
	if host == "" {
		return ""
	}
	host = addressHost(host) + port
	p, encodedDots := dotsKept(pathAsWritten(u))
	if !encodedDots && !strings.Contains(p, "%5C") && !strings.Contains(p, "%2F") {
		// A path holding %5C (a backslash is written so) or %2F keeps
		// its dot segments: a browser reads a backslash as a slash
		// before it removes them, curl after, and a server may decode
		// %2F first. FoldedIdentities reads the path each way, which a
		// path resolved here one way would not allow (a forty-first
		// review: /hooks/a\b/../..\a, which a browser sends as
		// /hooks/a, became /hooks/..%5Ca).
		p = removeDotSegments(p)
	}
	if p == "" {
		p = "/"
	}
	out := scheme + "://" + host + p
	if u.RawQuery != "" { // an empty query ("?") sends the same request line
		out += "?" + normalPercent(queryAsWritten(u.RawQuery))
	}
	return out
}

// addressHost writes an IP address host in one form, as a WHATWG parser
// does before it connects: an IPv6 address compressed ([0:0::1] is [::1])
// and an IPv4 address in dotted decimal, however its parts were written
// (2130706433, 0x7f.1 and 0177.0.0.1 are 127.0.0.1). Any other host is
// returned as it is. The fortieth review found each spelling allowed
// after the other was sent.
func addressHost(host string) string {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && !strings.Contains(host, "%") {
		if a, err := netip.ParseAddr(host[1 : len(host)-1]); err == nil && a.Is6() {
			return "[" + a.String() + "]"
		}
		return host
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 || !numericPart(parts[len(parts)-1]) {
		return host
	}
	var ip uint64
	for i, part := range parts {
		n, ok := ipv4Number(part)
		last := i == len(parts)-1
		if !ok || (!last && n > 255) || (last && n >= 1<<(8*(5-len(parts)))) {
			return host // not an address a parser accepts
		}
		if last {
			ip = ip<<(8*(5-len(parts))) | n
		} else {
			ip = ip<<8 | n
		}
	}
	return fmt.Sprintf("%d.%d.%d.%d", ip>>24&255, ip>>16&255, ip>>8&255, ip&255)
}

// numericPart reports whether a host's last label makes it an IPv4
// address for a WHATWG parser: digits, or 0x and hex digits.
func numericPart(s string) bool {
	if s == "" {
		return false
	}
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return strings.Trim(s, "0123456789") == ""
}

// ipv4Number reads one part of an IPv4 host as a WHATWG parser does:
// hex after 0x, octal after a leading 0, decimal otherwise.
func ipv4Number(s string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	case s == "":
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil && n <= 1<<32
}

// whatIsSent leaves out of a URL what no client sends and url.Parse may
// refuse: the fragment, and the userinfo (it only adds a header; WHATWG
// ends the authority at a backslash too); and it writes a % that starts no
// escape as %25. A forty-second review found https://h/hooks/a#100% and
// https://u^@h/hooks/a allowed after https://h/hooks/a was sent: url.Parse
// refused them, and the id was kept as written.
func whatIsSent(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		auth := s[i+3:]
		if j := strings.IndexAny(auth, `/?\`); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			s = s[:i+3] + s[i+3+at+1:]
		}
	}
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			b.WriteString("25")
		}
	}
	return b.String()
}

// dotsKept is normalPercent for a path, but for a segment that a %2E
// makes a dot segment (%2E, .%2E, %2e%2e …): curl does not read it as one
// (a forty-second review: curl sends /x/%2e%2e/../a as /x/a, a browser as
// /a), so it stays as written, %2E in capitals, and the path keeps its dot
// segments (encodedDots) for FoldedIdentities to read both ways.
func dotsKept(p string) (out string, encodedDots bool) {
	if !strings.Contains(p, "%") {
		return p, false
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if d := strings.ReplaceAll(strings.ReplaceAll(seg, "%2e", "."), "%2E", "."); d != seg && (d == "." || d == "..") {
			segs[i], encodedDots = strings.ReplaceAll(seg, "%2e", "%2E"), true
		} else {
			segs[i] = normalPercent(seg)
		}
	}
	return strings.Join(segs, "/"), encodedDots
}

// pathAsWritten is the URL's path as its text gave it, with only the
// bytes a path may not hold percent-encoded (a backslash as %5C, a space
// as %20, a byte beyond ASCII as %XX, which normalPercent writes back as
// its character). url.URL.EscapedPath is that only while the text is a
// valid encoding: one backslash made it encode the decoded path anew,
// so %2F became a slash and ! became %21 (a forty-first review: the key
// of /x%2Fy\..\a lost the %2F). Keys of such URLs changed on 7 December
// 2026.
func pathAsWritten(u *url.URL) string {
	raw := u.RawPath
	if raw == "" { // the text is the path's own encoding
		return u.EscapedPath()
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c == '%' || pathByte(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// pathByte reports whether a path may hold c as it is: an unreserved
// character, a sub-delimiter, ':', '@', '/', and '[' and ']' (which
// url.URL keeps in a path too).
func pathByte(c byte) bool {
	return unreserved(c) || strings.IndexByte("!$&'()*+,;=:@/[]", c) >= 0
}

// queryAsWritten percent-encodes in a query what a WHATWG parser encodes
// there (white space, controls, ", <, > and '), so that ?x y and ?x%20y,
// one request, are one destination (a forty-first review), and a
// query's white space does not end the canonical form (?x  was ?x ,
// read back as ?x).
func queryAsWritten(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; c <= ' ' || c == 0x7F || strings.IndexByte(`"<>'`, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

var tabsAndNewlines = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// unreservedInAuthority writes a URL's authority as normalPercent writes a
// path: it decodes the %XX of unreserved characters (http://%68.com/ is http://h.com/, RFC 3986 §6.2.2.2),
// which url.Parse refuses there (a thirty-seventh review found such a
// spelling kept apart from its URL).
func unreservedInAuthority(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	end := len(s)
	if j := strings.IndexAny(s[i+3:], "/?#"); j >= 0 {
		end = i + 3 + j
	}
	return s[:i+3] + normalPercent(s[i+3:end]) + s[end:]
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// normalPercent decodes %XX of unreserved characters (ALPHA, DIGIT, -, .,
// _, ~) and of whole UTF-8 encoded characters beyond ASCII, and writes
// the hex digits of every other %XX in upper case. A letter beyond ASCII
// is written as itself so that "may be the same" can fold its case: in
// %XX form, /café and /CAFÉ differed in bytes no case folding equates (a
// thirty-sixth review; keys of such URLs changed on 7 December 2026).
func normalPercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if c >= utf8.RuneSelf {
				if r, n := percentRune(s[i:]); n > 0 {
					b.WriteRune(r)
					i += n - 1
					continue
				}
			}
			if unreserved(c) {
				b.WriteByte(c)
			} else {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeDotSegments is RFC 3986 §5.2.4 for an absolute path: "." and ".."
// segments go (an empty segment counts as one: /a//.. is /a/, and ".."
// at the root is dropped), a trailing slash stays. What is not an absolute
// path is returned as it is. The key's canonical URL and each of
// FoldedIdentities' readings of a path use it.
func removeDotSegments(p string) string {
	if !strings.HasPrefix(p, "/") || !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	var out []string
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// percentRune reads one UTF-8 encoded character written as %XX bytes at
// the start of s: the character and the length of its %XX text, or n = 0
// when the bytes are not one valid character (an overlong form, a lone
// continuation byte, a surrogate: those stay in %XX form).
func percentRune(s string) (r rune, n int) {
	var buf [utf8.UTFMax]byte
	k := 0
	for k < utf8.UTFMax && 3*k+2 < len(s) && s[3*k] == '%' && isHex(s[3*k+1]) && isHex(s[3*k+2]) {
		buf[k] = unhex(s[3*k+1])<<4 | unhex(s[3*k+2])
		k++
		if utf8.FullRune(buf[:k]) {
			break
		}
	}
	r, size := utf8.DecodeRune(buf[:k])
	if r == utf8.RuneError || size != k || r < utf8.RuneSelf {
		return 0, 0
	}
	return r, 3 * k
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
