package hooksession

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// issueClock is CLOCK_BOOTTIME on Linux: it counts suspend too.
const issueClock = unix.CLOCK_BOOTTIME

// lookupProc reads /proc/PID/stat: the parent, the command name, the start
// time (clock ticks since boot) and whether the process is a zombie.
func lookupProc(pid int) (procfs.Stat, error) { return procfs.ReadStat(pid) }

// exePath is the executable of pid, the link /proc/PID/exe (readable for
// the processes of this account only).
func exePath(pid int) (string, error) { return os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe") }
