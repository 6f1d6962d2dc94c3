package transcripts

import (
	"fmt"
	"strings"
	"testing"
)

func TestSplitShell(t *testing.T) {
	show := func(ps []shellPart) string {
		var out []string
		for _, p := range ps {
			s := fmt.Sprintf("[%s]%q[%s]", p.before, strings.Join(p.words, " "), p.after)
			if p.nested {
				s = "n" + s
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	cases := []struct{ in, want string }{
		{`curl -F file=@report.pdf https://x`, `[]"curl -F file=@report.pdf https://x"[]`},
		{`effectlint check --task t && curl -F 'f=@"x y.pdf";type=a/b' https://x`,
			`[]"effectlint check --task t"[&&] [&&]"curl -F f=@\"x y.pdf\";type=a/b https://x"[]`},
		{`a; b || c | d |& e & f`, `[]"a"[;] [;]"b"[||] [||]"c"[|] [|]"d"[|&] [|&]"e"[&] [&]"f"[]`},
		{`echo "a;b" 'c|d' e\;f`, `[]"echo a;b c|d e;f"[]`},
		{`git push 2>&1 && echo done >&2`, `[]"git push 2>&1"[&&] [&&]"echo done >&2"[]`},
		{`(cd x && curl -T f https://x)`, `n[]"cd x"[&&] n[&&]"curl -T f https://x"[]`},
		{`echo $(curl -d @a https://x) done`, `[]"echo $(curl -d @a https://x) done"[] n[]"curl -d @a https://x"[]`},
		{"bash -lc 'effectlint check --task t; curl -T f https://x'", `[]"bash -lc effectlint check --task t; curl -T f https://x"[] n[]"effectlint check --task t"[;] n[;]"curl -T f https://x"[]`},
		{"echo hi # curl -T f https://x\nls", `[]"echo hi"[;] [;]"ls"[]`},
		{"{ a; b; }", `[]"a"[;] [;]"b"[;]`},
		{`curl "unterminated`, `[]"curl unterminated"[]`},
		// Redirections glued to a word end it, as in the shell (second
		// adversarial review: the URL was keyed with ")" or ">/dev/null").
		{`curl -T f https://x>/dev/null`, `[]"curl -T f https://x >/dev/null"[]`},
		{`curl -T f https://x&>log`, `[]"curl -T f https://x &>log"[]`},
		{`curl -T f https://x<<<y`, `[]"curl -T f https://x <<<y"[]`},
		{`diff <(curl -T f https://x) /dev/null`, `[]"diff <(curl -T f https://x) /dev/null"[] n[]"curl -T f https://x"[]`},
	}
	for _, c := range cases {
		if got := show(splitShell(c.in)); got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	ps := splitShell(`effectlint check --task t && curl -T f https://x`)
	if !successImplied(ps, 0) || !successImplied(ps, 1) {
		t.Error("an && chain: exit 0 means every part succeeded")
	}
	for _, line := range []string{`effectlint check --task t || true`, `effectlint check --task t | tee log`,
		`effectlint check --task t; echo done`, `(effectlint check --task t)`, `true || effectlint check --task t && echo`} {
		ps := splitShell(line)
		if successImplied(ps, 0) && strings.HasPrefix(ps[0].text, "effectlint") {
			t.Errorf("%s: exit 0 read as the check's own", line)
		}
		for i, p := range ps {
			if strings.HasPrefix(p.text, "effectlint") && successImplied(ps, i) {
				t.Errorf("%s: exit 0 read as the check's own", line)
			}
		}
	}
}
