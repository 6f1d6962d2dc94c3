// Command corpusgen writes a deterministic benchmark corpus (see package
// internal/corpus):
//
//	go run ./internal/corpusgen -tasks 1000 -events 50000 -format native -out /tmp/corpus
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/effectlint/effectlint/internal/corpus"
)

func main() {
	var c corpus.Config
	out := flag.String("out", "", "directory to write (required)")
	flag.IntVar(&c.Tasks, "tasks", 1000, "number of tasks (sessions for claude-code)")
	flag.IntVar(&c.Events, "events", 50000, "total events (native) or lines (claude-code)")
	flag.StringVar(&c.Format, "format", corpus.Native, "native or claude-code")
	flag.IntVar(&c.OutputBytes, "output-bytes", 2048, "mean length of one long tool output or screen text")
	flag.IntVar(&c.TasksPerFile, "tasks-per-file", 25, "consecutive tasks written to one file")
	flag.Uint64Var(&c.Seed, "seed", 1, "seed; the same flags write the same bytes")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: corpusgen -out DIR [-tasks N] [-events M] [-format native|claude-code] [-output-bytes B]")
		os.Exit(2)
	}
	st, err := corpus.Write(*out, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d files, %d tasks, %d events, %d keys, %d bytes\n", *out, st.Files, st.Tasks, st.Events, st.Keys, st.Bytes)
	names := make([]string, 0, len(st.Kinds))
	for k := range st.Kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("  %-28s %d\n", k, st.Kinds[k])
	}
}
