//go:build unix

package reader

import "golang.org/x/sys/unix"

// killCheck asks kill(pid, 0) whether pid exists: alive when it does (also
// when it belongs to another account), dead when it does not.
func killCheck(pid int) Liveness {
	switch err := unix.Kill(pid, 0); err {
	case nil, unix.EPERM:
		return Alive
	case unix.ESRCH:
		return Dead
	}
	return Unknown
}
