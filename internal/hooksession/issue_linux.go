package hooksession

import "golang.org/x/sys/unix"

// issueStamp is the time an update starts, in nanoseconds of
// CLOCK_BOOTTIME: shared by every process, never set, counting suspend.
func issueStamp() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
