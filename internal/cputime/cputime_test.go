//go:build unix

package cputime

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// childEnv makes the test binary a child that spins until it has used
// spinFor of CPU time, then exits.
const childEnv = "CPUTIME_TEST_CHILD"

// spinFor is the CPU time each test burns.
const spinFor = 200 * time.Millisecond

// spinUntil works until Used has grown by d since before, or until a
// minute of wall time has passed; it reports whether it got there.
func spinUntil(before, d time.Duration) bool {
	x := 0
	for start := time.Now(); time.Since(start) < time.Minute; {
		for i := range 100000 {
			x += i * i
		}
		if Used()-before >= d {
			return x != 1
		}
	}
	return false
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if !spinUntil(Used(), spinFor) {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestUsedCountsThisProcess: work in this process shows in Used (a clock
// that did not advance would make spinUntil give up after a minute).
func TestUsedCountsThisProcess(t *testing.T) {
	before := Used()
	if !spinUntil(before, spinFor) {
		t.Fatalf("a minute of spinning added %v of CPU time, want %v", Used()-before, spinFor)
	}
}

// TestUsedCountsWaitedChildren: a child that has used 200 ms of CPU time,
// by its own clock, adds at least that to Used once it is waited for.
func TestUsedCountsWaitedChildren(t *testing.T) {
	before := Used()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if err := cmd.Run(); err != nil {
		t.Fatalf("the child: %v", err)
	}
	if got := Used() - before; got < spinFor {
		t.Errorf("a child that used %v of CPU time added %v to Used", spinFor, got)
	}
}
