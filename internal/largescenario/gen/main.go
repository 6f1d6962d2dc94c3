// Command gen writes the large generated scenario into a folder, to look at
// it by hand: go run ./internal/largescenario/gen /tmp/large
package main

import (
	"fmt"
	"os"

	"github.com/effectlint/effectlint/internal/largescenario"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	if err := largescenario.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
