//go:build linux

package statuspub

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// lookupProc reads /proc/PID/stat: the parent, the command name, the start
// time (clock ticks since boot) and whether the process is a zombie.
func lookupProc(pid int) (procInfo, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	return parseProcStat(data)
}

// parseProcStat parses the content of /proc/PID/stat. The command name is
// in parentheses and may itself contain spaces and parentheses: everything
// up to the last ')' belongs to it.
func parseProcStat(data []byte) (procInfo, error) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return procInfo{}, errors.New("statuspub: malformed /proc stat")
	}
	info := procInfo{Comm: string(data[open+1 : end])}
	// Fields after the name: state(3) ppid(4) ... starttime(22).
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 20 {
		return procInfo{}, fmt.Errorf("statuspub: malformed /proc stat: %d fields", len(fields))
	}
	info.Zombie = fields[0][0] == 'Z' || fields[0][0] == 'X'
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return procInfo{}, fmt.Errorf("statuspub: malformed /proc stat: ppid %q", fields[1])
	}
	info.PPID = ppid
	start, err := strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return procInfo{}, fmt.Errorf("statuspub: malformed /proc stat: starttime %q", fields[19])
	}
	info.Start = start
	return info, nil
}
