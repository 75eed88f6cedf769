//go:build unix && !linux && !netbsd && !aix

package hooksession

import "golang.org/x/sys/unix"

// clockMonotonic is the clock issueStamp reads.
const clockMonotonic = unix.CLOCK_MONOTONIC
