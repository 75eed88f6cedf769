package reader

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's start time. Linux
// fixes it at 100 on every architecture Go supports.
const clockTicks = 100

// bootTime returns /proc/stat's btime: the wall-clock time of boot as the
// kernel computes it now, which moves whenever the wall clock is set. A
// variable for tests.
var bootTime = func() (time.Time, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			sec, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
			if err != nil {
				return time.Time{}, err
			}
			return time.Unix(sec, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
}

func checkPID(pid int, updatedAt time.Time) Liveness {
	st, err := procfs.ReadStat(pid)
	if errors.Is(err, fs.ErrNotExist) {
		return Dead
	}
	if err != nil {
		return killCheck(pid)
	}
	if st.Zombie {
		return Dead // a zombie is not a publisher
	}
	boot, err := bootTime()
	if err != nil {
		return Alive
	}
	// A wall-clock estimate only: see Reused.
	started := boot.Add(time.Duration(st.Start) * (time.Second / clockTicks))
	if started.After(updatedAt.Add(startSlack)) {
		return Reused
	}
	return Alive
}
