package analyzer

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/effectlint/effectlint/effect"
)

// FuzzKey: the key builder. Whatever the destination and digest, a key
// NewKey builds is canonical: ParseKey reads its string back to the same
// key, the string splits on "|" into exactly three parts, and a weak key is
// one with a title only. Whatever string ParseKey accepts is canonical (it
// prints back unchanged). IntentSpec.Compute hashes the content file's
// bytes. Seeds are the keys of the scenarios' expectations.
func FuzzKey(f *testing.F) {
	f.Add("slack", "C024BE91L", "#finance-reports", hello, "v1|dest=slack/C024BE91L|sha256="+hello, []byte("hello"))
	f.Add(" Slack ", "a/b|c%d", "", strings.ToUpper(hello), "v1|title=finance%20reports|sha256="+hello, []byte{})
	f.Add("", "", "  Finance \t Reports ", hello, "v1|dest=a%2Fb/c|sha256="+hello, []byte{0, 0xff})
	f.Add("  ", "x", "t", hello, "v1|dest=/x|sha256="+hello, []byte("x"))
	for _, k := range scenarioKeys(f) {
		f.Add("p", "i", "", hello, k, []byte("k"))
	}
	f.Fuzz(func(t *testing.T, provider, id, title, sha, keyText string, content []byte) {
		defer within(t, time.Second)()
		d := Destination{Provider: provider, ID: id, Title: title}
		if k, err := effect.NewKey(d, sha); err == nil {
			s := k.String()
			if parts := strings.Split(s, "|"); len(parts) != 3 || parts[0] != effect.KeyVersion {
				t.Fatalf("key %q does not split into three parts", s)
			}
			back, err := effect.ParseKey(s)
			if err != nil || back.String() != s {
				t.Fatalf("effect.NewKey(%+v, %q) = %q, which ParseKey reads as %q, %v", d, sha, s, back.String(), err)
			}
			if back.Destination.Weak() != k.Destination.Weak() || strings.HasPrefix(s, effect.KeyVersion+"|title=") != k.Destination.Weak() {
				t.Fatalf("key %q: weak %v", s, k.Destination.Weak())
			}
			if len(k.SHA256) != 64 || strings.ToLower(k.SHA256) != k.SHA256 {
				t.Fatalf("digest %q", k.SHA256)
			}
		}
		if k, err := effect.ParseKey(keyText); err == nil {
			if k.String() != keyText {
				t.Fatalf("ParseKey accepted %q but prints %q", keyText, k.String())
			}
			again, err := effect.NewKey(k.Destination, k.SHA256)
			if err != nil || again.String() != keyText {
				t.Fatalf("rebuilding %q gave %q, %v", keyText, again.String(), err)
			}
		} else if !utf8.ValidString(err.Error()) && utf8.ValidString(keyText) {
			t.Fatalf("error message is not UTF-8: %q", err.Error())
		}
		p := filepath.Join(t.TempDir(), "content")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		spec := IntentSpec{Destination: d, File: p}
		k, err := spec.Compute()
		sum := sha256.Sum256(content)
		if _, werr := effect.NewKey(d, hex.EncodeToString(sum[:])); (err == nil) != (werr == nil) {
			t.Fatalf("Compute %v, NewKey %v", err, werr)
		}
		if err == nil && k.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("Compute hashed %q to %s", content, k.SHA256)
		}
	})
}

// scenarioKeys are the keys written in the scenarios' logs.
func scenarioKeys(f *testing.F) []string {
	var keys []string
	files, _ := filepath.Glob("../testdata/expect/*.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '"' }) {
			if strings.HasPrefix(w, effect.KeyVersion+"|") {
				keys = append(keys, w)
			}
		}
	}
	return keys
}

// within fails t when the execution that called it, deferred, took more
// than d (issue 15: every fuzz target fails on an input slower than its
// bound; an execution takes microseconds): defer within(t, d)().
func within(t *testing.T, d time.Duration) func() {
	start := time.Now()
	return func() {
		if took := time.Since(start); took > d {
			t.Fatalf("one execution took %v, over its budget of %v", took, d)
		}
	}
}
