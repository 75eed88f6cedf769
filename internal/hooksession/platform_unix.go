//go:build unix && !aix

package hooksession

import "golang.org/x/sys/unix"

// flockFD takes an exclusive flock(2) on fd; without wait it fails with
// EWOULDBLOCK when another open file holds it.
func flockFD(fd int, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	return unix.Flock(fd, how)
}

// issueStamp is the time an update starts, in nanoseconds of issueClock:
// shared by every process and never set.
func issueStamp() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(issueClock, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
