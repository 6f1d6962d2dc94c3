package policy

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/analyzer"
	"github.com/effectlint/effectlint/internal/corpus"
	"github.com/effectlint/effectlint/internal/largescenario"
	"github.com/effectlint/effectlint/transcripts"
)

// analyze and check read without the facts' extra fields
// (transcripts.Options.SpecFieldsOnly): only users' rules read them. This
// holds that reading to the full one: the same facts but for the extra
// fields, the same states, findings and gate decisions.
func TestSpecFieldsOnly_SameVerdictsAsFullReading(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; runs without -short")
	}
	dirs, _ := filepath.Glob("../testdata/scenarios/*")
	large := t.TempDir()
	if err := largescenario.Write(large); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, large)
	for _, format := range []string{corpus.Native, corpus.ClaudeCode} {
		dir := t.TempDir()
		if _, err := corpus.Write(dir, corpus.Config{Tasks: 300, Events: 5000, Format: format, OutputBytes: 300, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	e := builtinEngine(t)
	extraSeen := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		read := func(lean bool) *analyzer.Facts {
			b := analyzer.New()
			opt := transcripts.Options{SpecFieldsOnly: lean}
			if strings.Contains(name, "profile") {
				p, err := transcripts.LoadProfile("../testdata/profiles/acme.yaml")
				if err != nil {
					t.Fatal(err)
				}
				opt.Profile = p
			}
			res, err := transcripts.Read([]string{dir}, opt, b.Add)
			if err != nil {
				t.Fatal(err)
			}
			return b.Build(res)
		}
		full, lean := read(false), read(true)
		// Lean facts hold spec fields only; with every fact's extra fields
		// taken away, both readings are the same document.
		strip := func(f *analyzer.Facts, lean bool) {
			each := func(x *analyzer.Fact) {
				for k := range x.Fields().Map() {
					if !transcripts.SpecField(k) {
						if lean {
							t.Errorf("%s: %s:%d keeps the extra field %q", name, x.At.File, x.At.Line, k)
						}
						extraSeen++
					}
				}
				if x.FactRare != nil { // a copy: facts may share their rare fields
					r := *x.FactRare
					r.Fields = ""
					x.FactRare = &r
				}
			}
			for _, s := range f.Scopes {
				for i := range s.Facts {
					each(&s.Facts[i])
				}
			}
			for i := range f.Unkeyed {
				each(&f.Unkeyed[i])
			}
		}
		strip(lean, true)
		leanAnalysis, err := e.Analyze(context.Background(), lean)
		if err != nil {
			t.Fatal(err)
		}
		fullAnalysis, err := e.Analyze(context.Background(), full)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(leanAnalysis, fullAnalysis) {
			t.Errorf("%s: analyze differs without extra fields", name)
		}
		ids := make([]string, 0, len(full.Tasks))
		for id := range full.Tasks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if len(ids) > 10 {
			ids = ids[:10]
		}
		for _, id := range ids {
			for _, cp := range []string{"resume", "send"} {
				full.Query, lean.Query = full.Ask(id, cp, analyzer.IntentSpec{}), lean.Ask(id, cp, analyzer.IntentSpec{})
				g1, err1 := e.Check(context.Background(), full)
				g2, err2 := e.Check(context.Background(), lean)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(g1, g2) {
					j1, _ := json.Marshal(g1)
					j2, _ := json.Marshal(g2)
					t.Errorf("%s: check --task %s --checkpoint %s: full %s (%v), lean %s (%v)", name, id, cp, j1, err1, j2, err2)
				}
			}
		}
		full.Query, lean.Query = nil, nil
		strip(full, false)
		a, _ := json.Marshal(full)
		b, _ := json.Marshal(lean)
		if string(a) != string(b) {
			t.Errorf("%s: the facts differ beyond their extra fields", name)
		}
	}
	if extraSeen == 0 {
		t.Error("no history had an extra field: the comparison proves nothing")
	}
}
