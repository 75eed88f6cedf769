//go:build unix

// Package measure holds what the benchmark commands under bench/ share:
// running a command once for its wall time, CPU time and peak memory, the
// median of repeated figures, and the status directories they are run
// over: their work directory and the records generated into it.
package measure

import (
	"cmp"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Run is one run of a command.
type Run struct {
	Wall   time.Duration // from start to exit, fork and exec included
	CPU    time.Duration // user and system time: on a loaded machine the steadier figure
	MaxRSS int64         // peak resident memory in KiB (wait4's ru_maxrss)
}

// Once runs cmd once and measures it. Its output goes to a drained pipe
// (as in "statusls | ...") unless cmd.Stdout is set; its standard error,
// unless cmd.Stderr is set, is kept for the error a failed run returns.
func Once(cmd *exec.Cmd) (Run, error) {
	if cmd.Stdout == nil {
		cmd.Stdout = io.Discard
	}
	var errb strings.Builder
	if cmd.Stderr == nil {
		cmd.Stderr = &errb
	}
	start := time.Now()
	err := cmd.Run()
	r := Run{Wall: time.Since(start)}
	if err != nil {
		return r, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(errb.String()))
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = int64(ru.Maxrss)
	}
	return r, nil
}

// Median is the middle of xs (the upper one of an even count); xs is left
// as it is.
func Median[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
