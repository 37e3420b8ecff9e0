//go:build unix

package uciclient

import (
	"syscall"
	"testing"
	"time"
)

// An engine must not share the runner's process group, where a terminal's
// Ctrl-C would kill it in the middle of a game (see ownProcessGroup).
func TestEngineRunsInAProcessGroupOfItsOwn(t *testing.T) {
	e, err := StartText([]string{"sh", "-c", textEngine}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pgid, err := syscall.Getpgid(e.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid == syscall.Getpgrp() {
		t.Errorf("the engine is in the runner's process group %d", pgid)
	}
}
