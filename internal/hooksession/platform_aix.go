package hooksession

// issueStamp is 0 on AIX, whose golang.org/x/sys/unix has no
// clock_gettime: updates are then applied in the order they take the lock,
// as where no heartbeat owner keeps the stamps (SPEC.md H12).
func issueStamp() int64 { return 0 }
