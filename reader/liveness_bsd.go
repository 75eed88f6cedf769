//go:build unix && !linux

package reader

import "time"

// checkPID asks kill(pid, 0). Without a portable start time, pid reuse is
// not detected here.
func checkPID(pid int, _ time.Time) Liveness { return killCheck(pid) }
