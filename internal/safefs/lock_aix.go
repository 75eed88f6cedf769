//go:build aix

package safefs

import (
	"io"

	"golang.org/x/sys/unix"
)

// Flock takes an exclusive lock on fd. AIX has no flock(2): a POSIX record
// lock stands in (without wait, EWOULDBLOCK when another process holds
// it). It belongs to the process rather than to the open file, which is
// enough here: a process takes a session's write lock once at a time.
func Flock(fd int, wait bool) error {
	cmd := unix.F_SETLK
	if wait {
		cmd = unix.F_SETLKW
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	for {
		switch err := unix.FcntlFlock(uintptr(fd), cmd, &lk); err {
		case unix.EINTR:
		case unix.EAGAIN, unix.EACCES:
			return unix.EWOULDBLOCK
		default:
			return err
		}
	}
}

// linkAt: golang.org/x/sys/unix has no linkat for AIX.
func linkAt(int, string, string) error { return unix.ENOSYS }
