//go:build aix

package safefs

import "golang.org/x/sys/unix"

// Flock takes an exclusive lock on fd. AIX has no flock(2): a POSIX record
// lock stands in (see [RecordLock]). It belongs to the process rather than
// to the open file, which is enough here: a process takes a session's
// write lock once at a time.
func Flock(fd int, wait bool) error { return RecordLock(fd, wait) }

// linkAt: golang.org/x/sys/unix has no linkat for AIX.
func linkAt(int, string, string) error { return unix.ENOSYS }
