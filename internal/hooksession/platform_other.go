//go:build unix && !linux && !netbsd && !aix

package hooksession

import "golang.org/x/sys/unix"

// issueClock is the clock issueStamp reads.
const issueClock = unix.CLOCK_MONOTONIC
