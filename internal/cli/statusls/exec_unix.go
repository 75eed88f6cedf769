//go:build unix

package statusls

import (
	"os/exec"
	"syscall"
)

// execSupported says whether watch --exec works here: it runs the command
// with /bin/sh -c.
const execSupported = true

// ownProcessGroup puts the command (sh and whatever it starts) in a process
// group of its own: a Ctrl-C meant for watch does not cut a notification
// short, and --exec-timeout kills the whole group.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
