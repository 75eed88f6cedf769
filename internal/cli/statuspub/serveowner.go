package statuspub

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/statusfile"
)

// serve --heartbeat-owner: the record is kept as the hook adapters keep
// theirs (SPEC.md H2-H5), through the session's write lock and a detached
// heartbeat owner, rather than by serve's own heartbeat. The owner is not
// serve's child: a `statuspub set` started once, and waited for, starts it
// and exits, so the owner belongs to no process tree of the program that
// started serve. When every process of that tree is killed at once (a
// crash of the terminal, systemd-oomd killing its scope), serve dies with
// them, and the owner still removes the record within a second of the end
// of --pid's process (H4). OpenCode's plugin runs serve this way.

// servePublisher is what serve needs of a publisher: *statusfile.Publisher,
// or an ownedPublisher.
type servePublisher interface {
	Status() statusfile.Status
	Set(state statusfile.State, title string)
	SetWaiting(w statusfile.Waiting)
	SetEnded(e statusfile.Ended)
	SetTitle(title string)
	Flush(ctx context.Context) error
	Close() error
}

// ownedPublisher publishes through hooksession, each change under the
// write lock, leaving the heartbeat to the session's owner.
type ownedPublisher struct {
	dir, session, exe, wd string
	base                  hooksession.Change // agent, cwd, pid, no-detail
	stderr                interface{ Write([]byte) (int, error) }

	mu      sync.Mutex // held by Flush, which may be abandoned by a timeout
	cur     statusfile.Status
	pending *hooksession.Change
	started bool // the first write, through `statuspub set`, has run
}

// newOwnedPublisher starts an ownedPublisher of session in dir with the
// initial state and title; nothing is written before the first Flush.
func newOwnedPublisher(env *runner, dir, session string, opts statusfile.Options) *ownedPublisher {
	wd, _ := os.Getwd()
	p := &ownedPublisher{dir: dir, session: session, exe: env.Executable, wd: wd, stderr: env.Stderr,
		base: hooksession.Change{Agent: opts.Agent, Cwd: opts.Cwd, PID: opts.PID, NoDetail: opts.NoDetail}}
	p.Set(opts.State, opts.Title)
	return p
}

func (p *ownedPublisher) Status() statusfile.Status { return p.cur }

// change adds ch to what the next Flush writes.
func (p *ownedPublisher) change(ch hooksession.Change) {
	if p.pending == nil {
		p.pending = &hooksession.Change{}
	}
	if ch.State != "" {
		p.pending.State, p.pending.Wait, p.pending.Ended = ch.State, ch.Wait, ch.Ended
	}
	if ch.Title != nil {
		p.pending.Title = ch.Title
	}
}

func (p *ownedPublisher) Set(state statusfile.State, title string) {
	p.cur.State, p.cur.Title = state, title
	p.change(hooksession.Change{State: state, Title: &title})
}

func (p *ownedPublisher) SetWaiting(w statusfile.Waiting) {
	p.cur.State, p.cur.WaitingFor = statusfile.Blocked, w
	p.change(hooksession.Change{State: statusfile.Blocked, Wait: w})
}

func (p *ownedPublisher) SetEnded(e statusfile.Ended) {
	p.cur.State, p.cur.Ended = statusfile.Idle, e
	p.change(hooksession.Change{State: statusfile.Idle, Ended: e})
}

func (p *ownedPublisher) SetTitle(title string) {
	p.cur.Title = title
	p.change(hooksession.Change{Title: &title})
}

// Flush writes what changed since the last Flush. The first write is a
// `statuspub set` of its own, which starts the detached owner.
func (p *ownedPublisher) Flush(ctx context.Context) error {
	ch := p.pending
	p.pending = nil
	if ch == nil {
		return nil
	}
	full := p.base
	full.State, full.Title, full.Wait, full.Ended = ch.State, ch.Title, ch.Wait, ch.Ended
	done := make(chan error, 1)
	go func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.started {
			p.started = true
			if p.setCommand(full) == nil {
				// Its owner runs, or is about to take its lock: none is
				// started here, not even in that instant.
				p.exe = ""
				done <- nil
				return
			}
			// Written in this process instead: its owner, if it starts
			// one, is serve's child.
		}
		done <- hooksession.Set(p.dir, p.session, full, p.wd, p.exe)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setCommand applies ch with `statuspub set --strict`, whose heartbeat
// owner is then no child of serve.
func (p *ownedPublisher) setCommand(ch hooksession.Change) error {
	if p.exe == "" {
		return fmt.Errorf("no statuspub program to start")
	}
	args := []string{"set", "--strict", "--dir", p.dir, "--session", p.session, "--pid", strconv.Itoa(ch.PID), "--state", string(ch.State)}
	if ch.Agent != "" {
		args = append(args, "--agent", ch.Agent)
	}
	if ch.Cwd != "" {
		args = append(args, "--cwd", ch.Cwd)
	}
	if ch.Title != nil && *ch.Title != "" {
		args = append(args, "--title", *ch.Title)
	} else if ch.Title != nil {
		args = append(args, "--no-title")
	}
	if ch.NoDetail {
		args = append(args, "--no-detail")
	}
	switch {
	case ch.State == statusfile.Blocked && ch.Wait.Kind != "":
		args = append(args, "--waiting-for", ch.Wait.Kind, "--tool", ch.Wait.Tool, "--detail", ch.Wait.Detail)
	case ch.State == statusfile.Idle && ch.Ended.Reason != "":
		args = append(args, "--ended", ch.Ended.Reason, "--detail", ch.Ended.Detail)
	}
	cmd := exec.Command(p.exe, args...)
	cmd.Stderr = p.stderr
	return cmd.Run()
}

// Close removes the record and ends the owner (hooksession.Clear).
func (p *ownedPublisher) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return hooksession.Clear(p.dir, p.session)
}
