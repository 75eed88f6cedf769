//go:build unix && !aix

package hooksession

import "golang.org/x/sys/unix"

// issueStamp is the time an update starts, in nanoseconds of issueClock:
// shared by every process and never set.
func issueStamp() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(issueClock, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
