package effect

import "testing"

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
	for in, want := range map[string]string{
		"http://h.example":                 "http://h.example/",
		"http://h.example:80/a/":           "http://h.example/a/",
		"http://h.example:8080/a":          "http://h.example:8080/a",
		"https://h.example/a%2fb?q=%7e%2f": "https://h.example/a%2Fb?q=~%2F",
		"https://h.example/a/.":            "https://h.example/a/",
		"https://[::1]:443/x":              "https://[::1]/x",
		"ftp://h.example/x":                "",
		"report.pdf":                       "",
		"https:///x":                       "",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
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
