//go:build unix

package policy

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
