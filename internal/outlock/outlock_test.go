//go:build unix

package outlock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestASecondWriterIsRefusedWithTheHoldersPID(t *testing.T) {
	out := filepath.Join(t.TempDir(), "data.parquet")
	l, err := Acquire(out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(out)
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second Acquire: %v, want a HeldError", err)
	}
	if held.PID != os.Getpid() {
		t.Errorf("holder PID %d, want this process's %d", held.PID, os.Getpid())
	}
	for _, want := range []string{out, "process " + strconv.Itoa(os.Getpid()), Path(out)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Path(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Release: %v, want it removed", err)
	}
	l2, err := Acquire(out)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
	if err := l2.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}

func TestALockFileNoProcessHoldsIsTakenOver(t *testing.T) {
	out := filepath.Join(t.TempDir(), "npy")
	// What a killed run leaves: the file and its record, but no flock.
	if err := os.WriteFile(Path(out), []byte("pid 999999\ncommand selfplay -out npy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(out)
	if err != nil {
		t.Fatalf("Acquire over a stale lock file: %v", err)
	}
	defer l.Release()
	text, err := os.ReadFile(Path(out))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "pid "+strconv.Itoa(os.Getpid())+"\n") {
		t.Errorf("lock file holds %q, want this process's record", text)
	}
}

// TestHelperHolder is not a test: run as a child by
// TestALockOfAKilledProcessIsTakenOver, it takes the lock, says so and waits.
func TestHelperHolder(t *testing.T) {
	out := os.Getenv("OUTLOCK_HOLD")
	if out == "" {
		t.Skip("only a child process of TestALockOfAKilledProcessIsTakenOver")
	}
	if _, err := Acquire(out); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

func TestALockOfAKilledProcessIsTakenOver(t *testing.T) {
	out := filepath.Join(t.TempDir(), "games.pgn")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$")
	cmd.Env = append(os.Environ(), "OUTLOCK_HOLD="+out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "held\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q, %v", line, err)
	}
	var held *HeldError
	if _, err := Acquire(out); !errors.As(err, &held) || held.PID != cmd.Process.Pid {
		t.Errorf("Acquire while the child holds the lock: %v, want a HeldError naming PID %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill() // SIGKILL: no chance to release
	cmd.Wait()
	l, err := Acquire(out)
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	l.Release()
}

func TestAcquireInAMissingDirectoryNamesTheOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "no", "such", "out")
	_, err := Acquire(out)
	if err == nil || !strings.Contains(err.Error(), out) {
		t.Errorf("Acquire in a missing directory: %v, want an error naming %s", err, out)
	}
}
