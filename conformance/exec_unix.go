//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group of a started command.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}

func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}

// The umask is a property of the whole process: a child inherits the one
// in force when it is forked. Every command the harness starts goes through
// startCommand, which holds umaskMu, so a check that sets a umask for its
// child never leaks it into another check's child. The harness's own files
// are created with explicit modes and do not depend on it.
var umaskMu sync.Mutex

// startCommand starts cmd with the given umask (or the current one when
// umask is negative).
func startCommand(cmd *exec.Cmd, umask int) error {
	umaskMu.Lock()
	defer umaskMu.Unlock()
	if umask >= 0 {
		old := syscall.Umask(umask)
		defer syscall.Umask(old)
	}
	return cmd.Start()
}
