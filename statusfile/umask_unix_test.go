//go:build unix

package statusfile_test

import "syscall"

// setUmask sets the process umask and returns a function restoring it.
func setUmask(mask int) func() {
	old := syscall.Umask(mask)
	return func() { syscall.Umask(old) }
}
