//go:build unix

package search

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time the process has used, so
// that benchmarks on a shared machine can report nodes per CPU-second.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
