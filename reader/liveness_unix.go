//go:build unix && !linux

package reader

import (
	"time"

	"golang.org/x/sys/unix"
)

// checkPID asks kill(pid, 0). Without a portable start time, pid reuse is
// not detected here.
func checkPID(pid int, _ time.Time) Liveness {
	switch err := unix.Kill(pid, 0); err {
	case nil, unix.EPERM:
		return Alive
	case unix.ESRCH:
		return Dead
	}
	return Unknown
}
