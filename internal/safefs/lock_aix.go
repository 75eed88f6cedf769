//go:build aix

package safefs

import (
	"io"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive lock on fd without waiting. AIX has no
// flock(2): a POSIX record lock stands in, as statuspub's own locks use
// there (EWOULDBLOCK when another process holds it).
func tryLock(fd int) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	err := unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &lk)
	if err == unix.EAGAIN || err == unix.EACCES {
		return unix.EWOULDBLOCK
	}
	return err
}

// linkAt: golang.org/x/sys/unix has no linkat for AIX.
func linkAt(int, string, string) error { return unix.ENOSYS }
