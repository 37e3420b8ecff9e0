//go:build unix

package cputime

import (
	"os/exec"
	"testing"
	"time"
)

// spin burns about d of CPU time in this process.
func spin(d time.Duration) int {
	x := 0
	for start := time.Now(); time.Since(start) < d; {
		for i := range 1000 {
			x += i * i
		}
	}
	return x
}

func TestUsedCountsThisProcess(t *testing.T) {
	before := Used()
	spin(200 * time.Millisecond)
	if got := Used() - before; got < 100*time.Millisecond {
		t.Errorf("200 ms of spinning added %v of CPU time, want at least 100 ms", got)
	}
}

func TestUsedCountsWaitedChildren(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	before := Used()
	// The child spins for about 300 ms of its own CPU time.
	cmd := exec.Command(sh, "-c", `end=$(( $(date +%s%N) + 300000000 )); while [ "$(date +%s%N)" -lt "$end" ]; do :; done`)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := Used() - before; got < 100*time.Millisecond {
		t.Errorf("a child that spun for 300 ms added %v of CPU time, want at least 100 ms", got)
	}
}
