//go:build unix && !linux

package statusls

import "syscall"

// dead reports whether process pid has exited and been reaped (an exited
// process not yet reaped still counts as alive here).
func dead(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }
