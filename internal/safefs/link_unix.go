//go:build unix && !aix && !solaris && !illumos

package safefs

import "golang.org/x/sys/unix"

// linkAt links new to old's file, both in the directory dirfd.
func linkAt(dirfd int, old, new string) error {
	return unix.Linkat(dirfd, old, dirfd, new, 0)
}
