// Package procfs reads what the toolkit needs of Linux's /proc: the parent,
// command name, state and start time of a process, from /proc/<pid>/stat
// (proc(5)). It is the one parser of that file, shared by the reader's
// liveness check and the hook publisher's agent search.
//
// Start times are kept in clock ticks since boot, as the kernel gives
// them: they do not move when the wall clock is set, so two start times
// read at different moments can be compared safely. Converting one to a
// wall-clock time (through /proc/stat's btime) is not safe: btime moves
// with every step of the clock.
package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Stat is what the toolkit reads of /proc/<pid>/stat.
type Stat struct {
	PID    int
	Comm   string // the command name (truncated by the kernel to 15 bytes)
	State  byte   // R, S, D, Z, X, ...
	PPID   int
	Start  uint64 // start time, clock ticks since boot (field 22)
	Zombie bool   // exited, not yet reaped (state Z or X)
}

// ErrMalformed is returned for content that is not a /proc/<pid>/stat line.
var ErrMalformed = errors.New("procfs: malformed /proc/<pid>/stat")

// ParseStat parses the content of /proc/<pid>/stat. The command name is in
// parentheses and may itself contain spaces and parentheses: everything
// between the first '(' and the last ')' belongs to it. It never panics on
// any input.
func ParseStat(data []byte) (Stat, error) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 1 || end < open {
		return Stat{}, ErrMalformed
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil || pid <= 0 {
		return Stat{}, fmt.Errorf("%w: pid %q", ErrMalformed, bytes.TrimSpace(data[:open]))
	}
	st := Stat{PID: pid, Comm: string(data[open+1 : end])}
	// Fields after the name: state(3) ppid(4) ... starttime(22).
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 20 {
		return Stat{}, fmt.Errorf("%w: %d fields after the name", ErrMalformed, len(fields))
	}
	if len(fields[0]) != 1 {
		return Stat{}, fmt.Errorf("%w: state %q", ErrMalformed, fields[0])
	}
	st.State = fields[0][0]
	st.Zombie = st.State == 'Z' || st.State == 'X'
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil || ppid < 0 {
		return Stat{}, fmt.Errorf("%w: ppid %q", ErrMalformed, fields[1])
	}
	st.PPID = ppid
	start, err := strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return Stat{}, fmt.Errorf("%w: starttime %q", ErrMalformed, fields[19])
	}
	st.Start = start
	return st, nil
}
