//go:build unix

package uciclient

import (
	"os"
	"path/filepath"
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

// A wrapper script that pipes the engine (sh: cat | engine) must end
// promptly: Close lets the pipe see the end of its input, and Kill ends
// every process of the engine's group, not the wrapper alone, whose
// children would keep its output open.
func TestCloseAndKillEndAWrappedEngine(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "engine.sh")
	if err := os.WriteFile(script, []byte(multiPVEngine), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{"sh", "-c", `cat | sh "$0"`, script}
	for _, end := range []string{"close", "kill"} {
		e, err := Start(argv, nil, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if end == "close" {
			e.Close()
		} else {
			e.Kill()
		}
		if d := time.Since(begin); d > 900*time.Millisecond {
			t.Errorf("%s took %v", end, d)
		}
	}
}
