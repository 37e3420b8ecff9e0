//go:build !unix

package uciclient

import "os/exec"

// ownProcessGroup does nothing where there are no Unix process groups.
func ownProcessGroup(*exec.Cmd) {}

// kill ends the process.
func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
