package hooksession

import (
	"io"

	"golang.org/x/sys/unix"
)

// flockFD takes an exclusive lock on fd. AIX has no flock(2): a POSIX record
// lock stands in. It belongs to the process rather than to the open file,
// which is enough here: a process takes a session's write lock once at a
// time.
func flockFD(fd int, wait bool) error {
	cmd := unix.F_SETLK
	if wait {
		cmd = unix.F_SETLKW
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	err := unix.FcntlFlock(uintptr(fd), cmd, &lk)
	if err == unix.EAGAIN || err == unix.EACCES {
		return unix.EWOULDBLOCK
	}
	return err
}

// issueStamp is 0 on AIX, whose golang.org/x/sys/unix has no
// clock_gettime: updates are then applied in the order they take the lock,
// as where no heartbeat owner keeps the stamps (SPEC.md H12).
func issueStamp() int64 { return 0 }
