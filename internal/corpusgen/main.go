// Command corpusgen writes a deterministic benchmark corpus (see package
// internal/corpus):
//
//	go run ./internal/corpusgen -tasks 1000 -events 50000 -format native -out /tmp/corpus
//	go run ./internal/corpusgen -shape families -tasks 1000 -events 50000 -out /tmp/corpus
//
// -shape starts from one of corpus.Shapes; the knob flags given after it
// (-family, -destinations, ...) change it.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

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
	shape := flag.String("shape", "friendly", "a named shape: "+shapeNames())
	knobs := map[string]*int{}
	for _, k := range []struct{ name, usage string }{
		{"family", "a parent and up to N-1 more sibling children per key (0/1: none)"},
		{"delegated", "‰ of a family's children that are delegated workers"},
		{"resumes", "‰ of key groups with a task resuming the last one"},
		{"redeliveries", "‰ of key groups with an authorized redelivery"},
		{"destinations", "distinct destinations the keys share (0: one per key)"},
		{"titles", "distinct titles the destinations share (0: one per destination)"},
		{"interruptions", "‰ of tasks interrupted mid-work"},
		{"incidents", "‰ of key groups that are not a clean send (0: default mix)"},
		{"problems", "‰ of tasks with an unreadable line"},
		{"foreign", "‰ of tasks written as Claude Code sessions"},
	} {
		knobs[k.name] = flag.Int(k.name, -1, k.usage)
	}
	flag.Parse()
	sh, ok := corpus.Shapes[*shape]
	if !ok {
		fmt.Fprintf(os.Stderr, "corpusgen: no shape %q (%s)\n", *shape, shapeNames())
		os.Exit(2)
	}
	for name, p := range map[string]*int{"family": &sh.Family, "delegated": &sh.Delegated, "resumes": &sh.Resumes, "redeliveries": &sh.Redeliveries,
		"destinations": &sh.Destinations, "titles": &sh.Titles, "interruptions": &sh.Interruptions,
		"incidents": &sh.Incidents, "problems": &sh.Problems, "foreign": &sh.Foreign} {
		if v := *knobs[name]; v >= 0 {
			*p = v
		}
	}
	c.Shape = sh
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: corpusgen -out DIR [-tasks N] [-events M] [-format native|claude-code] [-output-bytes B]")
		os.Exit(2)
	}
	st, err := corpus.Write(*out, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (shape %s %+v): %d files, %d tasks, %d events, %d keys, %d bytes\n", *out, *shape, c.Shape, st.Files, st.Tasks, st.Events, st.Keys, st.Bytes)
	names := make([]string, 0, len(st.Kinds))
	for k := range st.Kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("  %-28s %d\n", k, st.Kinds[k])
	}
}

func shapeNames() string {
	names := make([]string, 0, len(corpus.Shapes))
	for n := range corpus.Shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
