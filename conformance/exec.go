package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := max(0, b.max-b.buf.Len()); room < n {
		b.truncated, p = true, p[:room]
	}
	b.buf.Write(p)
	return n, nil
}

func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if b.truncated {
		s += "\n[... truncated]"
	}
	return s
}

// substitute replaces {key} in every argument (not in the command itself).
func substitute(argv []string, vars map[string]string) []string {
	out := slices.Clone(argv)
	for i := 1; i < len(out); i++ {
		for k, v := range vars {
			out[i] = strings.ReplaceAll(out[i], "{"+k+"}", v)
		}
	}
	return out
}

// environ is the harness's environment with vars set over it: exec.Cmd
// keeps the last value of a key.
func environ(vars map[string]string) []string {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// run is the outcome of running a command to its end.
type run struct {
	stdout, stderr *limitedBuffer
	exit           exitInfo
}

// exitInfo says how a process ended.
type exitInfo struct {
	code     int    // exit status, when it exited by itself
	signal   string // the signal that killed it, if any
	timedOut bool   // the harness killed it at the timeout
	err      error  // it could not be started or waited for
}

func (e exitInfo) String() string {
	switch {
	case e.err != nil:
		return "could not run: " + e.err.Error()
	case e.timedOut:
		return "killed by the harness at the timeout"
	case e.signal != "":
		return "killed by signal " + e.signal
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// ok reports whether the process exited by itself with status 0.
func (e exitInfo) ok() bool { return e.exitedByItself() && e.code == 0 }

// exitedByItself reports whether the process ended on its own, with any
// status, rather than by a signal, a timeout or a failure to start.
func (e exitInfo) exitedByItself() bool {
	return e.err == nil && !e.timedOut && e.signal == ""
}

// runCommand runs argv to its end (not through a shell), with stdin on its
// standard input, in its own process group, killing the whole group at the
// timeout.
func runCommand(ctx context.Context, argv []string, env []string, stdin []byte, timeout time.Duration) run {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := run{stdout: &limitedBuffer{max: 4 << 20}, stderr: &limitedBuffer{max: 64 << 10}}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), r.stdout, r.stderr
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	err := startCommand(cmd, -1)
	if err != nil {
		// A deadline that passed before the start (a loaded machine
		// and a short timeout) is a timeout, not an error of the
		// command: Start then reports the context's error.
		if ctx.Err() == context.DeadlineExceeded {
			r.exit.timedOut = true
		} else {
			r.exit.err = err
		}
		return r
	}
	err = cmd.Wait()
	killGroup(cmd) // leftovers of the process's own children
	r.exit = exitOf(cmd, err)
	if ctx.Err() == context.DeadlineExceeded {
		r.exit.timedOut = true
	}
	return r
}

// exitOf describes how cmd ended, given the error of Wait.
func exitOf(cmd *exec.Cmd, err error) exitInfo {
	var e exitInfo
	var ee *exec.ExitError
	if ps := cmd.ProcessState; ps == nil {
		e.err = err
	} else if e.signal = signalOf(ps); e.signal == "" {
		e.code = ps.ExitCode()
	}
	if err != nil && !errors.As(err, &ee) && e.err == nil && !errors.Is(err, exec.ErrWaitDelay) {
		e.err = err
	}
	return e
}
