//go:build unix && !linux && !aix

package hooksession

import "golang.org/x/sys/unix"

// issueStamp is the time an update starts, in nanoseconds of
// CLOCK_MONOTONIC: shared by every process and never set.
func issueStamp() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(clockMonotonic, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
