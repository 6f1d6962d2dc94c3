// Command effectlint is a transcript forensics analyzer and policy linter
// for automation that performs external side effects. See README.md.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/effectlint/effectlint/cmd"
	"github.com/effectlint/effectlint/internal/memlimit"
)

func main() {
	os.Exit(run())
}

// memoryLimit is the base of the Go heap's soft limit unless GOMEMLIMIT
// says otherwise. A history's facts are a few hundred bytes each and the
// rest is garbage of reading; by default Go lets the heap grow to twice
// what is live, which for a month of logs is twice several hundred
// megabytes. With this limit the collector runs more often instead once
// the heap nears it. Once what is live outgrows it, the limit follows at
// 1.25× the live heap (internal/memlimit): a fixed limit below the live heap
// would keep the collector running back to back for the rest of the run.
const memoryLimit = 384 << 20

func run() int {
	if os.Getenv("GOMEMLIMIT") == "" {
		memlimit.Start(memoryLimit)
	}
	// EFFECTLINT_CPUPROFILE and EFFECTLINT_MEMPROFILE write pprof profiles
	// of the whole run (README "Performance").
	if p := os.Getenv("EFFECTLINT_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "effectlint:", err)
			return cmd.ExitError
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "effectlint:", err)
			return cmd.ExitError
		}
		defer pprof.StopCPUProfile()
	}
	if p := os.Getenv("EFFECTLINT_MEMPROFILE"); p != "" {
		defer func() {
			f, err := os.Create(p)
			if err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	return cmd.Main(os.Args[1:], cmd.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}
