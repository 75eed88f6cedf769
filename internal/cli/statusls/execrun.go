package statusls

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Limits of watch --exec: a command that fails, hangs or floods never
// holds the watch back.
const (
	execMaxRunning = 4                // commands running at once
	execMaxWaiting = 64               // commands waiting for one of those; more are dropped
	execTimeout    = 60 * time.Second // --exec-timeout's default
)

// execGrace is how long watch, stopping, waits for running commands,
// unless cmdEnv.execGrace says otherwise.
const execGrace = time.Second

// execRunner runs watch's --exec command in the background: at most
// execMaxRunning at once, the next execMaxWaiting in order after them.
type execRunner struct {
	command string
	// The environment. A job's STATUS_* variables come after it: os/exec
	// keeps the last value of a name, so inherited ones never reach the
	// command.
	environ []string
	timeout time.Duration // 0: none
	clock   clock.Clock   // times the timeout
	out     io.Writer     // the commands' stdout and stderr; nil discards
	report  func(string)  // says what went wrong, without the "statusls: " prefix

	mu      sync.Mutex
	closed  bool
	running int
	queue   []execJob
	wg      sync.WaitGroup
}

type execJob struct {
	who   string // the session and state, for messages
	env   []string
	stdin []byte
}

// start runs the command for e, whose watch --json line is line, in the
// background; extra adds variables to its environment.
func (r *execRunner) start(e *reader.Entry, line []byte, extra ...string) {
	s := &e.Status
	pid := ""
	if s.PID > 0 {
		pid = strconv.Itoa(s.PID)
	}
	// What the session waits for, or how its turn ended: only with the
	// state they belong to, as everywhere else.
	var w statusfile.Waiting
	var ended statusfile.Ended
	switch s.State {
	case statusfile.Blocked:
		w = s.WaitingFor
	case statusfile.Idle:
		ended = s.Ended
	}
	env := append(r.environ[:len(r.environ):len(r.environ)],
		"STATUS_SESSION="+statusfile.SanitizeText(s.Session),
		"STATUS_AGENT="+statusfile.SanitizeText(s.Agent),
		"STATUS_STATE="+statusfile.SanitizeText(string(s.State)),
		"STATUS_TITLE="+statusfile.SanitizeTitle(s.Title),
		"STATUS_CWD="+statusfile.SanitizeText(s.Cwd),
		"STATUS_PID="+pid,
		"STATUS_WAITING_KIND="+statusfile.SanitizeTitle(w.Kind),
		"STATUS_WAITING_TOOL="+statusfile.SanitizeTitle(w.Tool),
		"STATUS_WAITING_DETAIL="+statusfile.SanitizeTitle(w.Detail),
		"STATUS_ENDED_REASON="+statusfile.SanitizeTitle(ended.Reason),
		"STATUS_WHY="+statusfile.SanitizeTitle(s.Why()),
	)
	env = append(env, extra...)
	j := execJob{
		who:   fmt.Sprintf("session %s (%s)", quotePath(statusfile.SanitizeText(s.Session)), statusfile.SanitizeText(string(s.State))),
		env:   env,
		stdin: append(line[:len(line):len(line)], '\n'),
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
	case r.running < execMaxRunning:
		r.running++
		r.wg.Add(1)
		go r.work(j)
	case len(r.queue) < execMaxWaiting:
		r.queue = append(r.queue, j)
	default:
		r.report(fmt.Sprintf("--exec: %d commands running and %d waiting; not running it for %s", execMaxRunning, execMaxWaiting, j.who))
	}
}

// work runs j, then the commands waiting, until none is left.
func (r *execRunner) work(j execJob) {
	defer r.wg.Done()
	for {
		r.run(j)
		r.mu.Lock()
		if r.closed || len(r.queue) == 0 {
			r.running--
			r.mu.Unlock()
			return
		}
		j = r.queue[0]
		r.queue[0] = execJob{}
		r.queue = r.queue[1:]
		r.mu.Unlock()
	}
}

func (r *execRunner) run(j execJob) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The timeout runs on the watch's clock, so that tests advance it
	// once the command has started, however slowly.
	killed := make(chan struct{})
	if r.timeout > 0 {
		timer := r.clock.NewTimer(r.timeout)
		defer timer.Stop()
		go func() {
			select {
			case <-timer.C():
				close(killed)
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", r.command)
	cmd.Env = j.env
	cmd.Stdin = bytes.NewReader(j.stdin)
	cmd.Stdout, cmd.Stderr = r.out, r.out
	cmd.WaitDelay = time.Second // a background child holding the output open
	ownProcessGroup(cmd)
	err := cmd.Run()
	switch {
	case err == nil:
	case isClosed(killed):
		r.report(fmt.Sprintf("--exec: %s: killed after %v", j.who, r.timeout))
	default:
		r.report(fmt.Sprintf("--exec: %s: %v", j.who, err))
	}
}

// close drops the commands waiting and waits at most grace for the running
// ones, which are left to finish on their own after that.
func (r *execRunner) close(grace time.Duration) {
	r.mu.Lock()
	r.closed = true
	r.queue = nil
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
}

// isClosed reports whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
