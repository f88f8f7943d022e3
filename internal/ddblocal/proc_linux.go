package ddblocal

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal makes the kernel kill DynamoDB Local if the process
// that started it dies without calling Stop (a test binary killed by a
// timeout, say), so no server outlives its owner.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// listens reports whether the process pid holds the socket listening on
// the loopback port; known is false when /proc does not tell.
func listens(pid, port int) (mine, known bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// local_address is f[1] (hex address:port), st f[3] (0A:
			// LISTEN), inode f[9].
			if len(f) < 10 || f[3] != "0A" {
				continue
			}
			if i := strings.LastIndexByte(f[1], ':'); i >= 0 {
				if p, err := strconv.ParseInt(f[1][i+1:], 16, 32); err == nil && int(p) == port {
					inodes["socket:["+f[9]+"]"] = true
				}
			}
		}
	}
	if len(inodes) == 0 {
		return false, false
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return false, false
	}
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); err == nil && inodes[l] {
			return true, true
		}
	}
	return false, true
}
