//go:build !linux

package ddblocal

import "os/exec"

// setParentDeathSignal does nothing where the kernel offers no parent death
// signal; Stop still ends the server.
func setParentDeathSignal(cmd *exec.Cmd) {}

// listens cannot tell who listens on a port here: known is false.
func listens(pid, port int) (mine, known bool) { return false, false }
