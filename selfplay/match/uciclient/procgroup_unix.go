//go:build unix

package uciclient

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own. A terminal's
// interrupt (Ctrl-C) goes to every process of the foreground group; were
// the engines in it, they would die at once and the games they were
// playing would be recorded as lost by a crash before the runner had
// stopped them. Outside that group only the runner hears it, and it ends
// its engines itself.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// kill ends the process and every other process of its group (a wrapper
// script's children, which would keep the engine's output open).
func kill(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
