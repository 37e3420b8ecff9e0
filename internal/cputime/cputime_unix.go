//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Used returns the CPU time, user and system, that this process and the
// children it has waited for have used. It returns 0 if the system does
// not say.
func Used() time.Duration {
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return 0
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		children = syscall.Rusage{}
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
