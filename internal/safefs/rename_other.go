//go:build unix && !linux

package safefs

import "golang.org/x/sys/unix"

// renameat2NoReplace is Linux's: elsewhere the caller falls back to link.
func renameat2NoReplace(int, string, string) error { return unix.ENOSYS }
