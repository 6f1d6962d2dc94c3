package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/effectlint/effectlint/ledger"
	"github.com/effectlint/effectlint/ledger/ledgertest"
	"github.com/effectlint/effectlint/ledger/sqlite"
)

func openTemp(t testing.TB, cfg ledger.Config) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T, cfg ledger.Config) ledger.Store { return openTemp(t, cfg) })
}
