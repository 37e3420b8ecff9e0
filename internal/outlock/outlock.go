// Package outlock keeps two runs from writing one output. A command that
// writes PATH first takes the lock PATH.lock, a file beside it held with an
// exclusive flock(2) and holding the owner's process id and command line:
//
//	l, err := outlock.Acquire(out)
//	if err != nil {
//		return err // "OUT is being written by process 4711 (selfplay -out OUT); ..."
//	}
//	defer l.Release()
//
// The kernel drops the flock when its process ends, however it ends, so a
// lock file left behind by a killed run is taken over by the next one. The
// Python package (chessforge_data.outlock) takes the same lock, so the Go
// tools and the trainer refuse each other too. docs/datasets.md describes
// the convention.
package outlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Suffix is appended to an output's path to name its lock file.
const Suffix = ".lock"

// Lock is a held lock on one output.
type Lock struct {
	path string // the lock file
	file *os.File
}

// HeldError reports an output whose lock another live process holds.
type HeldError struct {
	Output   string // the output path as given
	LockFile string
	PID      int    // 0 when the holder's record could not be read
	Command  string // the holder's command line, when recorded
}

func (e *HeldError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
		if e.Command != "" {
			who += " (" + e.Command + ")"
		}
	}
	return fmt.Sprintf("%s is being written by %s; wait for it to finish or stop it (lock %s)", e.Output, who, e.LockFile)
}

// Path returns the lock file of output path.
func Path(output string) string {
	return filepath.Clean(output) + Suffix
}

// Acquire takes the lock of output, creating its lock file, and records
// this process in it. It fails at once, with a *HeldError naming the
// holder, when a live process holds the lock. The output's directory must
// exist.
func Acquire(output string) (*Lock, error) {
	path := Path(output)
	for range 16 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", output, err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", output, err)
		}
		if !held {
			pid, cmd := readOwner(f)
			f.Close()
			return nil, &HeldError{Output: output, LockFile: path, PID: pid, Command: cmd}
		}
		// The holder before us may have removed the file between our open
		// and our lock: then we hold a lock on a name no one else sees.
		same, err := stillNamed(f, path)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", output, err)
		}
		if !same {
			f.Close()
			continue
		}
		if err := writeOwner(f); err != nil {
			os.Remove(path)
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", output, err)
		}
		return &Lock{path: path, file: f}, nil
	}
	return nil, fmt.Errorf("locking %s: the lock file %s keeps being replaced", output, path)
}

// Release removes the lock file and drops the lock. It may be called more
// than once; calls after the first do nothing.
func (l *Lock) Release() error {
	if l == nil || l.file == nil {
		return nil
	}
	// Remove before unlocking, so that a process waiting on this name
	// finds it gone (stillNamed) rather than holding a removed file.
	rmErr := os.Remove(l.path)
	closeErr := l.file.Close()
	l.file = nil
	if rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		return fmt.Errorf("unlocking: %w", rmErr)
	}
	return closeErr
}

// stillNamed reports whether f is the file path names now.
func stillNamed(f *os.File, path string) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// writeOwner records this process in the lock file: "pid N" and
// "command ..." lines.
func writeOwner(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	text := fmt.Sprintf("pid %d\ncommand %s\n", os.Getpid(), commandLine())
	if _, err := f.WriteAt([]byte(text), 0); err != nil {
		return err
	}
	return f.Sync()
}

// readOwner reads a lock file's record; zero values when it has none.
func readOwner(f *os.File) (pid int, command string) {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	for line := range strings.SplitSeq(string(buf[:n]), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "pid":
			pid, _ = strconv.Atoi(value)
		case "command":
			command = value
		}
	}
	return pid, command
}

// commandLine is this process's command: the program's base name and its
// arguments, on one line.
func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	return strings.ReplaceAll(strings.Join(args, " "), "\n", " ")
}
