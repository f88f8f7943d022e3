package ddblocal

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill DynamoDB Local if the process
// that started it dies without calling Stop (a test binary killed by a
// timeout, say), so no server outlives its owner.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
