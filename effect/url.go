package effect

import (
	"net/url"
	"strings"
)

// NormalizeURL returns the canonical form of an http(s) URL as a
// destination identity, so that URLs for which a client sends the same
// request are one destination (RFC 3986 §6.2.2): scheme and host in lower
// case, the default port (and an empty one) dropped, userinfo dropped (it
// only adds an Authorization header), the fragment dropped (never sent),
// percent-encoded unreserved characters decoded and other
// percent-encodings in upper case, "." and ".." path segments removed,
// an empty path as "/". It returns "" for what is not an absolute http or
// https URL. The built-in conventions' $url destinations use it; a
// destination given on the command line (check --destination http/URL)
// should be passed through it too.
func NormalizeURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
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
		if p := port[1:]; p == "" || (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
			port = ""
		}
	}
	// A fully qualified name (a trailing dot) is the same host.
	host = strings.TrimSuffix(host, ".") + port
	p := removeDotSegments(normalPercent(u.EscapedPath()))
	if p == "" {
		p = "/"
	}
	out := scheme + "://" + host + p
	if u.RawQuery != "" { // an empty query ("?") sends the same request line
		out += "?" + normalPercent(u.RawQuery)
	}
	return out
}

// normalPercent decodes %XX of unreserved characters (ALPHA, DIGIT, -, .,
// _, ~) and writes the hex digits of every other %XX in upper case.
func normalPercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
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
// segments go, a trailing slash stays.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
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
