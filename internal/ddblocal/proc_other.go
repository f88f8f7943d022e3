//go:build !linux

package ddblocal

import "os/exec"

// setParentDeathSignal does nothing where the kernel offers no parent death
// signal; Stop still ends the server.
func setParentDeathSignal(cmd *exec.Cmd) {}
