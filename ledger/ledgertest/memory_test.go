package ledgertest

import (
	"testing"

	"github.com/effectlint/effectlint/ledger"
)

func TestMemory(t *testing.T) {
	Run(t, func(t *testing.T, cfg ledger.Config) ledger.Store { return NewMemory(cfg) })
}
