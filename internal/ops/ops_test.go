package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/internal/ops"
	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
)

func TestRefusalIsNeverGranted(t *testing.T) {
	key := ledgertest.Key(1)
	a := ops.Refusal("claim", key, "", "postgres://bob:secret@db/x", ops.LedgerError, "down")
	if a.Granted || a.Scope != ledger.OriginalScope || a.ProviderToken != ledger.ProviderToken(key, ledger.OriginalScope) ||
		strings.Contains(a.Ledger, "secret") || len(a.Reasons) != 1 || a.Reasons[0].Rule != ops.LedgerError || a.Reasons[0].Evidence == nil {
		t.Fatalf("%+v", a)
	}
	if a := ops.Refusal("cross", "", "", "", ops.NoLedger, "none"); a.Granted || a.ProviderToken != "" || a.Ledger != "" {
		t.Fatalf("%+v", a)
	}
}

func TestFailureMessageAndRule(t *testing.T) {
	inv := ledger.ErrInvalid
	if ops.FailureRule(inv) != ops.InvalidRequest || ops.FailureRule(errors.New("eof")) != ops.LedgerError {
		t.Fatal("rules")
	}
	if m := ops.FailureMessage("postgres://bob:secret@db/x", "cross", errors.New("eof")); strings.Contains(m, "secret") || !strings.Contains(m, "treat it as refused") {
		t.Fatal(m)
	}
}

func TestIntent(t *testing.T) {
	if _, err := (ops.Intent{}).ComputeKey(); !errors.Is(err, ops.ErrNoIntent) {
		t.Fatalf("empty intent: %v", err)
	}
	if _, err := (ops.Intent{Destination: "no-slash", SHA256: strings.Repeat("a", 64)}).ComputeKey(); err == nil {
		t.Fatal("a destination that is not PROVIDER/ID")
	}
	k, err := ops.Intent{Destination: "Slack/C1", Title: "#ops", SHA256: strings.Repeat("A", 64)}.ComputeKey()
	if err != nil || k != "v1|dest=slack/C1|sha256="+strings.Repeat("a", 64) {
		t.Fatalf("%q %v", k, err)
	}
	s, err := ops.Intent{Destination: "slack/C1", Title: "#ops", Authorization: "a1"}.Spec()
	if err != nil || s.Destination.Title != "#ops" || s.Destination.ID != "C1" || s.Authorization != "a1" {
		t.Fatalf("%+v %v", s, err)
	}
}

// A claim asks the gate first when there are histories: its stop is a
// refusal with the gate's reasons; its failure is GateFailed; the ledger
// is not asked in either case.
func TestClaimAsksTheGateFirst(t *testing.T) {
	ctx := context.Background()
	s := ledgertest.NewMemory(ledger.Config{})
	g, err := gate.New(ctx, gate.WithLedger(s))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := ledgertest.Key(1)
	sha := key[strings.LastIndex(key, "=")+1:]
	dest := strings.TrimPrefix(strings.Split(key, "|")[1], "dest=")
	p, id, _ := strings.Cut(dest, "/")
	hist := `{"ts":"2026-11-29T17:00:00Z","task":"t1","type":"task_started","relation":"root"}
{"ts":"2026-11-29T17:00:01Z","task":"t1","type":"intent","destination":{"provider":"` + p + `","id":"` + id + `"},"content":{"sha256":"` + sha + `"}}
{"ts":"2026-11-29T17:00:02Z","task":"t1","type":"send_fired"}
`
	if err := os.WriteFile(filepath.Join(dir, "t1.jsonl"), []byte(hist), 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := ledger.NormalizeClaim(ledger.ClaimRequest{Task: "w1", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ops.Claim(ctx, s, g, req, ops.Intent{}, []string{dir})
	if err != nil || a.Granted || a.Gate == nil || a.Gate.Decision != "stop" || a.Reasons[0].Rule != "KEY_CONSUMED" || a.State != string(ledger.Free) {
		t.Fatalf("%+v %v", a, err)
	}
	_, err = ops.Claim(ctx, s, g, req, ops.Intent{}, []string{filepath.Join(dir, "none")})
	var gf *ops.GateFailed
	if !errors.As(err, &gf) || gf.Decision.Allowed() {
		t.Fatalf("a gate that failed: %v", err)
	}
	if rec, ok, _ := s.Get(ctx, key, ledger.OriginalScope); ok {
		t.Fatalf("the ledger was asked: %+v", rec)
	}
	// Without histories the ledger answers.
	a, err = ops.Claim(ctx, s, nil, req, ops.Intent{}, nil)
	if err != nil || !a.Granted || a.Token != 1 || a.Gate != nil {
		t.Fatalf("%+v %v", a, err)
	}
}
