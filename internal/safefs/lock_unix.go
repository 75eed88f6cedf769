//go:build unix && !aix

package safefs

import "golang.org/x/sys/unix"

// Flock takes an exclusive flock(2) on fd, again when interrupted; without
// wait it fails with EWOULDBLOCK when another open file holds it.
func Flock(fd int, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}
