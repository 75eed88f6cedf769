package reader

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's start time. Linux
// fixes it at 100 on every architecture Go supports.
const clockTicks = 100

var bootTime = sync.OnceValues(func() (time.Time, error) {
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
	return time.Time{}, errors.New("reader: no btime in /proc/stat")
})

func checkPID(pid int, updatedAt time.Time) Liveness {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return Dead
	}
	if err != nil {
		return killCheck(pid)
	}
	// The command name (field 2) is in parentheses and may contain
	// anything: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return killCheck(pid)
	}
	fields := bytes.Fields(data[i+1:])
	// fields[0] is field 3 (state); field 22 (starttime) is fields[19].
	if len(fields) < 20 {
		return killCheck(pid)
	}
	if fields[0][0] == 'Z' || fields[0][0] == 'X' {
		return Dead // a zombie is not a publisher
	}
	ticks, err := strconv.ParseUint(string(fields[19]), 10, 64)
	boot, berr := bootTime()
	if err != nil || berr != nil {
		return Alive
	}
	started := boot.Add(time.Duration(ticks) * (time.Second / clockTicks))
	if started.After(updatedAt.Add(startSlack)) {
		return Reused
	}
	return Alive
}
