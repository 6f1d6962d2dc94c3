package policy

import (
	"os"
	"testing"

	"github.com/effectlint/effectlint/internal/testsize"
)

// The property tests draw fewer random histories in the inner loop than
// in CI (internal/testsize).
func TestMain(m *testing.M) { os.Exit(testsize.Run(m)) }
