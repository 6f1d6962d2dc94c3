package doctest

import (
	"strings"
	"testing"
)

func TestRunnableBlocksParse(t *testing.T) {
	page := strings.Join([]string{
		"text",
		"<!-- run: exit=1,0 -->",
		"```console",
		"$ effectlint check --task t \\",
		"    testdata",
		"STOP task t",
		"...",
		"",
		"$ effectlint key --sha256 x",
		"```",
		"```sh",
		"$ not marked",
		"```",
	}, "\n")
	bs, err := RunnableBlocks("p.md", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || len(bs[0].Commands) != 2 {
		t.Fatalf("blocks %+v", bs)
	}
	c := bs[0].Commands
	if c[0].Text != "effectlint check --task t  testdata" || c[0].Exit != 1 || !c[0].HasShown || len(c[0].Output) != 2 {
		t.Errorf("first command %+v", c[0])
	}
	if c[1].Exit != 0 || c[1].HasShown || c[1].Line != 9 {
		t.Errorf("second command %+v", c[1])
	}
	for _, bad := range []string{
		"<!-- run: exit=x -->\n```sh\n$ a\n```",
		"<!-- run: exit=1,2 -->\n```sh\n$ a\n```",
		"<!-- run -->\ntext\n```sh\n$ a\n```",
		"<!-- run -->\n```sh\nno dollar\n```",
		"<!-- run -->\n```sh\n$ a\n",
		"<!-- run: timeout=3 -->\n```sh\n$ a\n```",
	} {
		if _, err := RunnableBlocks("p.md", bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestMatchOutput(t *testing.T) {
	for _, c := range []struct {
		shown, got string
		ok         bool
	}{
		{"a\nb", "a\nb\n", true},
		{"a\nb", "a  \nb", true},
		{"a\n...\nz", "a\nb\nc\nz", true},
		{"a\n...\nz", "a\nz", true},
		{"...\nz", "a\nb", false},
		{"a\nb", "a\nc", false},
		{"a", "a\nb", false},
		{"a\nb", "a", false},
		{"166 passed", "166 passed", true},
		{"... passed, 0 failed", "166 passed, 0 failed", true},
		{"... passed, 0 failed", "166 passed, 1 failed", false},
		{"a (x...)", "a (x.y)", true},
	} {
		if d := MatchOutput(strings.Split(c.shown, "\n"), strings.Split(c.got, "\n")); (d == "") != c.ok {
			t.Errorf("MatchOutput(%q, %q) = %q", c.shown, c.got, d)
		}
	}
}

func TestLinksAndAnchors(t *testing.T) {
	page := "# Top\n## The key (`v1`)\n## Top\n[a](x.md#the-key-v1) `[b](no.md)` [c](#top-1)\n```\n[d](in-code.md)\n```\n"
	var got []string
	for _, l := range Links("p.md", page) {
		got = append(got, l.Target)
	}
	if strings.Join(got, " ") != "x.md#the-key-v1 #top-1" {
		t.Errorf("links %q", got)
	}
	a := Anchors(page)
	for _, want := range []string{"top", "the-key-v1", "top-1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if Slug("Gate (`check`)") != "gate-check" || Slug("Choices, made") != "choices-made" {
		t.Errorf("slugs %q %q", Slug("Gate (`check`)"), Slug("Choices, made"))
	}
}
