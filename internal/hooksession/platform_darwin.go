package hooksession

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentstatus/agentstatus/internal/procfs"
	"golang.org/x/sys/unix"
)

// sZomb is the p_stat of a zombie (<sys/proc.h>).
const sZomb = 5

// lookupProc asks the kernel (sysctl kern.proc.pid) for the parent, the
// command name, the start time and whether the process is a zombie.
func lookupProc(pid int) (procfs.Stat, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return procfs.Stat{}, err
	}
	if int(kp.Proc.P_pid) != pid {
		return procfs.Stat{}, fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	}
	comm := kp.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	tv := kp.Proc.P_starttime
	return procfs.Stat{
		PPID:   int(kp.Eproc.Ppid),
		Comm:   string(comm),
		Start:  uint64(tv.Sec)*1e6 + uint64(tv.Usec),
		Zombie: kp.Proc.P_stat == sZomb,
	}, nil
}

// exePath is not known here: an agent is never rebound to an unrelated
// process (see bindAgent).
func exePath(int) (string, error) { return "", errors.ErrUnsupported }
