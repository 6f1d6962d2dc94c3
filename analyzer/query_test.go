package analyzer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/effectlint/effectlint/effect"
)

const hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")

func TestKey_ContentPathHashesBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	k, err := IntentSpec{Destination: effect.Destination{Provider: "slack", ID: "C1"}, File: p}.Compute()
	if err != nil || k.SHA256 != hello {
		t.Fatalf("key %+v err %v", k, err)
	}
	if _, err := (IntentSpec{Destination: effect.Destination{Provider: "slack", ID: "C1"}, File: p + ".missing"}).Compute(); err == nil {
		t.Fatal("missing content file accepted")
	}
}
