package transcripts

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
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

// unitCwdWalk is how unitCwd worked before shellLine: each unit walks
// every part before it (the reference for the one-pass walk; no cap on the
// directory's length).
func unitCwdWalk(parts []shellPart, i int, cwd string) (string, bool) {
	known := true
	for j := 0; j <= i && j < len(parts); j++ {
		p := parts[j]
		name, args := commandName(p.words)
		if j == i {
			if changesDirOption(name, args) {
				known = false
			}
			break
		}
		if !scopeWithin(parts[i].scope, p.scope) {
			continue
		}
		if !chdirCommands[name] {
			for _, w := range p.words {
				if chdirCommands[w] {
					known = false
				}
			}
			continue
		}
		if name != "cd" || (p.after != "&&" && p.after != ";") || p.before == "|" || p.before == "|&" || len(args) != 1 {
			known = false
			continue
		}
		d := args[0]
		if d == "-" || d == "" || strings.ContainsAny(d, "$`~*?[") || strings.HasPrefix(d, "-") {
			known = false
			continue
		}
		if filepath.IsAbs(d) {
			cwd = d
		} else {
			cwd = filepath.Join(cwd, d)
		}
	}
	return cwd, known
}

// The one-pass walk of a line's directories and statuses gives what each
// unit's own walk gave, over drawn lines of cd's, subshells,
// substitutions, scripts and operators.
func TestShellLine_AsEachUnitsWalk(t *testing.T) {
	cmds := []string{"cd a", "cd ..", "cd /abs", "cd b/c", "cd", "cd -", "cd $D", "pushd x", "curl -F f=@r.pdf https://h.example/u",
		"echo hi", "if cd x; then cat f; fi", "env -C d cat f", "git -C d add f", "bash -c 'cd s && cat f'", "(cd sub; cat f)",
		"x=$(cd q && pwd)", "cat \"$(cd r; echo f)\"", "true"}
	ops := []string{" && ", "; ", " || ", " | ", " & ", " |& "}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "n")
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(rapid.SampledFrom(ops).Draw(rt, "op"))
			}
			b.WriteString(rapid.SampledFrom(cmds).Draw(rt, "cmd"))
		}
		line := b.String()
		parts := splitShell(line)
		l := newShellLine(parts)
		all := successImpliedAll(parts)
		for i := range parts {
			base := rapid.SampledFrom([]string{"/w", "/w/x", "rel"}).Draw(rt, "base")
			wc, wk := unitCwdWalk(parts, i, base)
			d := l.dir(i, base)
			if d.known != wk || (wk && d.cwd != wc) {
				rt.Fatalf("%q part %d (%q) in %s: (%q, %v), each unit's walk (%q, %v)", line, i, parts[i].text, base, d.cwd, d.known, wc, wk)
			}
			if all[i] != successImplied(parts, i) {
				rt.Fatalf("%q part %d: success implied %v, the walk %v", line, i, all[i], successImplied(parts, i))
			}
		}
	})
}

// A directory followed past PATH_MAX is not known: no relative file
// could be opened there, and a line of many cd's joins no long paths.
func TestShellLine_LongDirectoryIsNotKnown(t *testing.T) {
	parts := splitShell(strings.Repeat("cd abcdefgh && ", 1000) + "curl -F f=@r.pdf https://h.example/u")
	last := len(parts) - 1
	if _, known := unitCwd(unit{parts: parts, i: last}, "/w"); known {
		t.Fatal("a directory 9,000 bytes long is known")
	}
	if cwd, known := unitCwd(unit{parts: parts, i: 3}, "/w"); !known || cwd != "/w/abcdefgh/abcdefgh/abcdefgh" {
		t.Fatalf("the fourth part runs in (%q, %v)", cwd, known)
	}
	// The limit is on the directory, not on the argument (the 47th
	// review): a long argument that cleans to a short path is followed.
	parts = splitShell("cd " + strings.Repeat("./", 2100) + "b && curl -F f=@r.pdf https://h.example/u")
	if cwd, known := unitCwd(unit{parts: parts, i: 1}, "/w"); !known || cwd != "/w/b" {
		t.Fatalf("after a long ./././…/b the curl runs in (%q, %v)", cwd, known)
	}
}
