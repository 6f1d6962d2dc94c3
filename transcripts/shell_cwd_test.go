package transcripts

import (
	"strings"
	"testing"
)

// A relative file a command sends resolves against the directory the
// line moved to with a plain cd; where that cannot be followed, the
// delivery has no key (fail closed), never the key of another file.
func TestShell_DirectoryChangesBeforeAnUpload(t *testing.T) {
	const up = "curl -sS -F file=@report.pdf https://h.example/u"
	for _, c := range []struct{ cmd, want string }{
		{up, "path=/w/report.pdf"},
		{"cd sub && " + up, "path=/w/sub/report.pdf"},
		{"cd sub; cd deeper && " + up, "path=/w/sub/deeper/report.pdf"},
		{"cd /abs && " + up, "path=/abs/report.pdf"},
		{"cd sub && curl -F file=@/abs/r.pdf https://h.example/u", "path=/abs/r.pdf"},
		{"(cd sub; " + up + ")", "path=/w/sub/report.pdf"},
		{"(cd sub) && " + up, "path=/w/report.pdf"}, // a subshell's cd ends with it
		{"cd sub && (" + up + ")", "path=/w/sub/report.pdf"},
		{"cd sub && echo $(" + up + ")", "path=/w/sub/report.pdf"},
		{"cd - && " + up, "unkeyed"},
		{"cd && " + up, "unkeyed"},
		{"cd ~/x && " + up, "unkeyed"},
		{"cd $DIR && " + up, "unkeyed"},
		{"pushd sub && " + up, "unkeyed"},
		{"cd sub | cat; " + up, "unkeyed"},
		{"env -C sub " + up, "unkeyed"},
		{"env --chdir=sub " + up, "unkeyed"},
		{"bash -c 'cd sub && " + up + "'", "path=/w/sub/report.pdf"},
		{"cd sub & " + up, "unkeyed"},
		{"cd a b && " + up, "unkeyed"},
		{"cd sub || exit 1; " + up, "unkeyed"},
		// A fifth review: a cd behind a keyword or in a pipeline.
		{"if cd sub; then " + up + "; fi", "unkeyed"},
		{"while cd sub; do " + up + "; break; done", "unkeyed"},
		{"true | cd sub && " + up, "unkeyed"},
		{"case x in x) cd sub;; esac; " + up, "unkeyed"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, "ok", "{}"}))
			got := summary(evs)
			if c.want == "unkeyed" {
				if len(ofType(evs, "intent")) != 0 || !strings.Contains(got, "request_sent intent=unkeyed-call:b1") {
					t.Errorf("want an unkeyed crossing, got\n%s", got)
				}
				return
			}
			if !strings.Contains(got, "intent intent=call:b1 dest=http/https://h.example/u "+c.want) {
				t.Errorf("want %s, got\n%s", c.want, got)
			}
		})
	}
}

// Command names are matched after shell quote removal; a name that is a
// substitution or a variable with delivery-shaped arguments is a delivery.
func TestShell_CommandNamesAfterQuoteRemoval(t *testing.T) {
	keyed := "intent intent=call:b1 dest=http/https://h.example/u path=/w/report.pdf"
	for _, c := range []struct{ cmd, want string }{
		{`cu''rl -F file=@report.pdf https://h.example/u`, keyed},
		{`c\url -F file=@report.pdf https://h.example/u`, keyed},
		{`"curl" -F file=@report.pdf https://h.example/u`, keyed},
		{`'/usr/bin/curl' -F file=@report.pdf https://h.example/u`, keyed},
		{`$(command -v curl) -F file=@report.pdf https://h.example/u`, keyed},
		{"`which curl` -F file=@report.pdf https://h.example/u", keyed},
		{`$CURL -sS -T report.pdf https://h.example/u`, keyed},
		{`"$CURL" --data-binary @report.pdf https://h.example/u`, keyed},
		{`$CURL -X POST https://h.example/u`, "request_sent"},
		{`$CURL -F file=@report.pdf`, "request_sent intent=unkeyed-call:b1"},
		{`$EDITOR notes.txt`, ""},
		{`$(git rev-parse --show-toplevel)/run.sh --verbose`, ""},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			_, evs := readSession(t, bashSession("/w", [3]string{c.cmd, "", ""}))
			got := summary(evs)
			if c.want == "" {
				if got != "" {
					t.Errorf("want no evidence, got\n%s", got)
				}
				return
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("want %q, got\n%s", c.want, got)
			}
		})
	}
}
