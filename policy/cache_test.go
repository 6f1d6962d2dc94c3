package policy

import (
	"context"
	"testing"
)

// One configuration compiles once per process; another (a changed source,
// other data) compiles anew; a failed compile is not kept.
func TestCompileCached_OncePerConfiguration(t *testing.T) {
	ctx := context.Background()
	src := "package effectlint\n\nscopes := []\n\nfindings := []\n\ngate := {}\n\nscope_fact_types := set()\n"
	cfg := Config{Builtin: []Module{{Name: "r.rego", Source: src}}}
	a, err := CompileCached(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CompileCached(ctx, cfg)
	if a != b {
		t.Error("the same configuration compiled twice")
	}
	c, _ := CompileCached(ctx, Config{Builtin: cfg.Builtin, Data: map[string]any{"x": 1}})
	if c == a {
		t.Error("other data, same engine")
	}
	d, _ := CompileCached(ctx, Config{Builtin: []Module{{Name: "r.rego", Source: src + "\nextra := 1\n"}}})
	if d == a {
		t.Error("another source, same engine")
	}
	bad := Config{Builtin: []Module{{Name: "r.rego", Source: "package effectlint\n\nx := \n"}}}
	if _, err := CompileCached(ctx, bad); err == nil {
		t.Error("a broken module compiled")
	}
	if _, err := CompileCached(ctx, bad); err == nil {
		t.Error("a broken module's failure was not kept as a failure")
	}
}
