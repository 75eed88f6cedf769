package acpbridge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is what [Run] needs.
type Config struct {
	// Command is the agent and its arguments: gemini --acp.
	Command []string
	// Stdin, Stdout and Stderr are the editor's side. The agent's
	// standard error is Stderr itself.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals are passed on to the agent (SIGINT, SIGTERM, SIGHUP).
	Signals <-chan os.Signal
	// Dir is the status directory.
	Dir string
	// Agent is the records' "agent"; "" means [AgentName] of the command.
	Agent string
	// Exe is the program started as each session's heartbeat owner
	// (statuspub, which runs `owner`); "" starts none (tests).
	Exe string
	// PID is the records' pid: the process whose end removes them; 0
	// means this process.
	PID int
	// NoDetail leaves the detail of waits and turn ends out.
	NoDetail bool
	// Report is called with each distinct failure to publish; publishing
	// failures never touch the stream.
	Report func(error)
	// Now stamps waits and turn ends; nil means the system clock.
	Now func() time.Time
}

// ErrStart wraps the error of an agent that could not be started.
var ErrStart = errors.New("acpbridge: cannot start the agent")

// closeWait bounds how long the proxy waits, when it ends, to remove its
// records; and how long, after the agent exits, for the rest of its
// output (a child of the agent may hold the pipe open).
const closeWait = 2 * time.Second

// AgentName is the "agent" of a command's records: the name its hook
// adapter writes (claude-code, codex, gemini, opencode, qwen), the name
// of the program otherwise.
func AgentName(command string) string {
	base := strings.TrimSuffix(filepath.Base(command), ".exe")
	switch {
	case base == "gemini":
		return "gemini"
	case base == "opencode":
		return "opencode"
	case base == "qwen":
		return "qwen"
	case strings.HasPrefix(base, "claude"): // claude-code-acp, claude-agent-acp
		return "claude-code"
	case strings.HasPrefix(base, "codex"): // codex-acp
		return "codex"
	}
	return base
}

// Worth reports whether the tracker can learn anything from line: all but
// the session/update notifications that stream chunks, tool calls, plans
// and usage, which are most of the traffic and say nothing of the state.
// A byte search, so that the stream's busiest lines cost no parse and no
// hand-over. A batch is always worth it: a streamed update in it says
// nothing of the other elements.
func Worth(line []byte) bool {
	if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && t[0] == '[' {
		return true
	}
	return !bytes.Contains(line, []byte(`"session/update"`)) ||
		bytes.Contains(line, []byte(`state_update`)) || bytes.Contains(line, []byte(`session_info_update`))
}

type line struct {
	d         Direction
	b         []byte
	truncated bool
}

// Run starts the agent and proxies between it and the editor until the
// agent exits, publishing as SPEC.md §13.5 says. It returns the agent's
// exit status (128 plus the signal's number when a signal ended it). When
// the agent cannot start, the error wraps [ErrStart] and the exec error.
func Run(c Config) (int, error) {
	if len(c.Command) == 0 {
		return 0, fmt.Errorf("%w: no command", ErrStart)
	}
	if c.Agent == "" {
		c.Agent = AgentName(c.Command[0])
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStart, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 0, fmt.Errorf("%w: %w", ErrStart, err)
	}
	cmd := exec.Command(c.Command[0], c.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.Stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return 0, fmt.Errorf("%w: %w", ErrStart, err)
	}

	pub := newPublisher(&c)
	pub.start()
	tr := NewTracker(c.Now)
	lines := make(chan line, 64)
	stopped := make(chan struct{}) // the tracker takes no more lines
	trackerDone := make(chan struct{})
	go func() {
		defer close(trackerDone)
		for {
			select {
			case l := <-lines:
				pub.update(tr.Observe(l.d, l.b, l.truncated)...)
			case <-stopped:
				return
			}
		}
	}()
	handTo := func(d Direction) func([]byte, bool) {
		return func(b []byte, truncated bool) {
			if !Worth(b) {
				return
			}
			select {
			case lines <- line{d, bytes.Clone(b), truncated}:
			case <-stopped:
			}
		}
	}
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			close(stopped)
			<-trackerDone
			pub.close(closeWait)
		})
	}

	// Editor to agent. At the end of the editor's output (it closed the
	// pipe), the agent's input ends too, and every record goes.
	go func() {
		Copy(inW, c.Stdin, handTo(FromEditor))
		inW.Close()
		stop()
	}()
	// Agent to editor. When the editor cannot be written to, the agent's
	// output is still read, so that it never blocks on a full pipe.
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		_, werr, _ := Copy(c.Stdout, outR, handTo(FromAgent))
		if werr {
			stop()
			io.Copy(io.Discard, outR)
		}
	}()
	stopSignals := ForwardSignals(cmd.Process, c.Signals)
	werr := cmd.Wait()
	stopSignals()
	select {
	case <-outDone:
	case <-time.After(closeWait):
	}
	stop()
	outR.Close()
	if cmd.ProcessState == nil {
		return 0, fmt.Errorf("%w: %w", ErrStart, werr)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}

// ForwardSignals passes every signal from sigs on to p until the returned
// stop is called, which the caller does once p has been waited for. The
// bridge and statuspub run pass their signals on to their child this way.
func ForwardSignals(p *os.Process, sigs <-chan os.Signal) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				p.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}
