//go:build solaris || illumos

package safefs

import "golang.org/x/sys/unix"

// linkAt: golang.org/x/sys/unix has no linkat for Solaris and illumos.
func linkAt(int, string, string) error { return unix.ENOSYS }
