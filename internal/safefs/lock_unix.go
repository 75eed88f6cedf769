//go:build unix && !aix

package safefs

import "golang.org/x/sys/unix"

// tryLock takes an exclusive flock(2) on fd without waiting: EWOULDBLOCK
// when another open file holds it.
func tryLock(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}
