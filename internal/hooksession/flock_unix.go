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
