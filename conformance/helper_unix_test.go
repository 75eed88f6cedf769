//go:build unix

package conformance

import "syscall"

const (
	nonblock = syscall.O_NONBLOCK
	nofollow = syscall.O_NOFOLLOW
)
