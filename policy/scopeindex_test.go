package policy

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"pgregory.net/rapid"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/effect"
)

// The gate is given only the scopes scopeIndex keeps. That is safe only if
// it keeps every scope the rules may weigh: this asks rules.rego's own
// weighed_scope of every scope of a random set (destinations differing in
// letter case, white space, titles, with no identity at all; several
// contents and scope names) and holds the index to a superset of its
// answer. Equality is not asked: the index keeps every scope whose
// destination is not strong and leaves the rest to the rules.
func TestScopeIndex_KeepsEveryScopeTheRulesMayWeigh(t *testing.T) {
	e := builtinEngine(t)
	pq, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store),
		rego.Query(`x := [i | some i, s in input.scopes; data.effectlint.weighed_scope(s)]`)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	providers := []string{"slack", "Slack", " slack ", "SLACK\t", "", " ", "teams", "http", "HTTPS"}
	// URLs whose paths read apart (a browser's, curl's, a server's reading)
	// have several identities, shared in part.
	ids := []string{"C1", "c1", " C1", "C2", "", "İ", "i̇", "ǅ", "ǆ", "https://h/a/x%5C..%5Cb", "https://h/a/b", "https://h/b", "h/a%2Fx/../b", "h/x%2Fa/../b"}
	titles := []string{"", "#x", "#X", " #x  ", "#y", "# x", "#  X", "#\u00a0x", "# \u00a0x", "#\vx", "# x\t", " ", "İ", "i̇"}
	dest := func(rt *rapid.T, label string) analyzer.Destination {
		return analyzer.Destination{Provider: rapid.SampledFrom(providers).Draw(rt, label+"-provider"),
			ID: rapid.SampledFrom(ids).Draw(rt, label+"-id"), Title: rapid.SampledFrom(titles).Draw(rt, label+"-title")}
	}
	contents := []string{strings.Repeat("ab", 32), strings.Repeat("cd", 32)}
	scopeNames := []string{"original", "a1"}
	left, kept := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "scopes")
		f := &analyzer.Facts{Version: "1", Tasks: map[string]*analyzer.Task{}}
		for i := 0; i < n; i++ {
			d := dest(rt, "scope")
			c := rapid.SampledFrom(contents).Draw(rt, "content")
			name := rapid.SampledFrom(scopeNames).Draw(rt, "scope-name")
			key := "v1|" + d.Provider + "/" + d.ID + "|sha256=" + c
			f.Scopes = append(f.Scopes, &analyzer.Scope{ID: key + "#" + name, Key: key, Scope: name,
				Destination: d, ContentSHA256: c, Tasks: []string{}, Facts: []analyzer.Fact{}})
		}
		q := &analyzer.Query{Task: "t1", Checkpoint: "send", Destination: dest(rt, "asked"),
			ContentSHA256: rapid.SampledFrom(contents).Draw(rt, "asked-content"),
			Scope:         rapid.SampledFrom(scopeNames).Draw(rt, "asked-scope"), Titles: []string{}, Identities: []string{}}
		q.Key = "v1|" + q.Destination.Provider + "/" + q.Destination.ID + "|sha256=" + q.ContentSHA256
		if rapid.Bool().Draw(rt, "no-key") {
			q.Key = ""
		}
		q.ScopeID = q.Key + "#" + q.Scope
		if rapid.Bool().Draw(rt, "asks-a-scope") {
			q.ScopeID = rapid.SampledFrom(f.Scopes).Draw(rt, "asked-id").ID
		}
		for _, s := range f.Scopes {
			if rapid.IntRange(0, 3).Draw(rt, "identity-given") == 0 {
				q.Identities = append(q.Identities, s.Destination.FoldedIdentities()...)
			}
		}
		for _, s := range f.Scopes {
			if rapid.IntRange(0, 3).Draw(rt, "title-given") == 0 {
				q.Titles = append(q.Titles, effect.CanonicalTitle(s.Destination.Title))
			}
		}
		f.Query = q
		in := part{facts: f, scopes: f.Scopes, global: true, authorizations: []analyzer.Authorization{}}.value()
		rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(in))
		if err != nil || len(rs) != 1 {
			rt.Fatalf("%v %v", rs, err)
		}
		weighed := rs[0].Bindings["x"].([]any)
		got := newScopeIndex(f.Scopes).weighable(q)
		for _, w := range weighed {
			i, _ := w.(json.Number).Int64()
			if !slices.Contains(got, int(i)) {
				rt.Fatalf("the rules weigh scope %d (%+v) for %+v; the index left it out (kept %v)", i, f.Scopes[i], q, got)
			}
		}
		left += n - len(got)
		kept += len(got)
	})
	if left == 0 || kept == 0 {
		t.Errorf("the index left out %d scopes and kept %d: the comparison proves little", left, kept)
	}
}

// A scope the index keeps is given to the rules whole: its place in the
// input's order is kept too (q_tasks takes each task from the first
// weighed scope that lists it).
func TestScopeIndex_KeepsTheScopesOrder(t *testing.T) {
	var scopes []*analyzer.Scope
	for i, p := range []string{"", "slack", "Slack", "slack", ""} {
		scopes = append(scopes, &analyzer.Scope{ID: string(rune('a' + i)), ContentSHA256: "c",
			Destination: analyzer.Destination{Provider: p, ID: "C1", Title: "#x"}})
	}
	q := &analyzer.Query{Key: "k", ScopeID: "e", ContentSHA256: "c", Destination: analyzer.Destination{Provider: "SLACK", ID: "c1", Title: "#X"}}
	if got := newScopeIndex(scopes).weighable(q); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("weighable: %v, want every scope once, in order", got)
	}
}

// The rules fold a title as the analyzer does (effect.CanonicalTitle: its
// keys, and the titles it gives a question): in lower case, words parted
// by any Unicode white space. The rules parted words at ASCII white space
// only: a crossing known by "#a<no-break space>b" was not weighed for a
// channel the history titles "#a b", and a check allowed (testdata/
// adversarial/title-nbsp). Every rune up to U+3100 between two letters,
// and at the ends, is asked of the rules in one evaluation.
func TestFoldedTitle_IsTheAnalyzers(t *testing.T) {
	e := builtinEngine(t)
	pq, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store),
		rego.Query(`x := [data.effectlint.folded_title({"title": s}) | some s in input]`)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, r := range caseRunes() {
		titles = append(titles, "A"+string(r)+"B", string(r)+"#x"+string(r), "#  Ab "+string(r)+string(r)+" c")
	}
	titles = append(titles, "", " ", "\u3000#X\u3000", "İ", "ǅ", "Σ", "#ſales", "ς")
	in := make([]any, len(titles))
	for i, s := range titles {
		in[i] = s
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(in))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %v", rs, err)
	}
	got := rs[0].Bindings["x"].([]any)
	for i, s := range titles {
		if want := effect.FoldedTitle(s); got[i] != want {
			t.Errorf("folded_title(%+q) = %+q, the analyzer's %+q", s, got[i], want)
		}
	}
}

// The rules fold a provider identity as the scope index does
// (effect.Destination.FoldedIdentities and Weak: OPA's lower and trim_space
// are Go's ToLower and TrimSpace today; this holds it if OPA changes
// them). Every rune below
// U+3100, inside and around a provider and an id, in one evaluation.
func TestFoldedIdentity_IsTheIndexs(t *testing.T) {
	e := builtinEngine(t)
	pq, err := rego.New(rego.Compiler(e.compiler), rego.Store(e.store),
		rego.Query(`x := [[data.effectlint.folded_identities(d), s] | some d in input; s := count([1 | data.effectlint.strong_destination(d)]) > 0]`)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ds []analyzer.Destination
	for _, r := range caseRunes() {
		c := string(r)
		ds = append(ds, analyzer.Destination{Provider: "Sl" + c + "ack", ID: c + "C1"}, analyzer.Destination{Provider: c, ID: "İd" + c})
	}
	for _, p := range []string{"http", "HTTPS", " https ", "Http", "httpss", "http s", "ftp"} {
		for _, id := range []string{"https://h/x", "HTTPS://H/x", "http://h/x", " https://h/x", "https:/h/x", "httpS://İ/x", "https://", "h/x", "xhttps://h",
			"https://h:443/x", "http://h:443/x", "HTTP://H:80", "http://[::1]:443/x", "h:80/x", "http://h:8080/x", "http://h:443?x", "https://h:80#f", "http://h:4430/x", "http://[::443]/x", "",
			`http://h/a\b`, `h.com\a\\b\`, "http://h/a%5Cb", "http://h/a%2fb", "http://h//a///b/", "http://h/a/b?c\\d//e/", "https://h:443\\x", "http://h/", "http://h?x#y/", "http://h/a\nb//", "http://h\n/x/",
			`https://h/hooks\.\a`, `https://h/hooks/x\..\a`, "https://h/a%5C.", "http://h/x/%2e%2E%5ca", "http://h/..", "http://h/a//..", "http://h/../../a/./b/c/../", "http://h/a/.b/..c/...", "http://h/x?/../a"} {
			ds = append(ds, analyzer.Destination{Provider: p, ID: id})
		}
	}
	in := make([]any, len(ds))
	for i, d := range ds {
		in[i] = map[string]any{"provider": d.Provider, "id": d.ID}
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(in))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %v", rs, err)
	}
	got := rs[0].Bindings["x"].([]any)
	if len(got) != len(ds) {
		t.Fatalf("%d answers for %d destinations", len(got), len(ds))
	}
	for i, d := range ds {
		pair := got[i].([]any)
		ids := []string{}
		for _, x := range pair[0].([]any) {
			ids = append(ids, x.(string))
		}
		if !slices.Equal(ids, d.FoldedIdentities()) || pair[1] != !d.Weak() {
			t.Errorf("%+q: the rules fold %+q (strong %v), the index %+q (strong %v)", d, ids, pair[1], d.FoldedIdentities(), !d.Weak())
		}
	}
}

// caseRunes are the runes the fold tests try: the first blocks up to
// CJK, and the later ones that have letter case (Latin, Cyrillic and
// Greek extensions, full-width forms, Cherokee's small letters, Deseret,
// Adlam).
func caseRunes() []rune {
	var rs []rune
	for _, b := range [][2]rune{{0, 0x3100}, {0xA640, 0xA800}, {0xAB30, 0xABC0}, {0xFB00, 0xFB10}, {0xFF00, 0xFF60}, {0x10400, 0x10450}, {0x1E900, 0x1E950}} {
		for r := b[0]; r < b[1]; r++ {
			rs = append(rs, r)
		}
	}
	return rs
}
