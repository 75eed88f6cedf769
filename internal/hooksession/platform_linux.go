package hooksession

import (
	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// issueClock is CLOCK_BOOTTIME on Linux: it counts suspend too.
const issueClock = unix.CLOCK_BOOTTIME

// lookupProc reads /proc/PID/stat: the parent, the command name, the start
// time (clock ticks since boot) and whether the process is a zombie.
func lookupProc(pid int) (procfs.Stat, error) { return procfs.ReadStat(pid) }
