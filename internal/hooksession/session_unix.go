//go:build unix

package hooksession

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/internal/testhook"
	"github.com/agentstatus/agentstatus/perm"
	"golang.org/x/sys/unix"
)

// LockWait is how long a short-lived command (set, clear, a hook)
// waits for the session's write lock before it gives up and says so
// (SPEC.md H10). Holders keep it for one read and one write, well under a
// millisecond, but hundreds of updates of one session queue behind each
// other on a loaded machine: waiting long is what keeps them from being
// lost. It stays under the hook timeouts of the agents (Claude Code: 60 s
// by default). A variable for tests.
var LockWait = 30 * time.Second

// ownerLockWait is how long the heartbeat owner waits for the write lock;
// it tries again at its next heartbeat.
const ownerLockWait = 2 * time.Second

// Set applies ch to the session's record in dir under the write
// lock, and starts a heartbeat owner (the program exe) when none runs and
// the record names a process. exe "" starts none.
func Set(dir, session string, ch Change, wd, exe string) error {
	issued := issueStamp()
	testhook.At(testhook.UpdateIssued, session)
	s, l, err := lockSession(dir, session, true)
	if err != nil {
		return err
	}
	defer s.Close()
	defer l.Release() // released early below, before an owner starts
	stamps := readStamps(l)
	if issued < stamps.Cleared {
		// Started before a clear that has run: the session has ended.
		return nil
	}
	cur, exists, rerr := s.read()
	if ch.Task != nil {
		tasks := s.readTasks()
		if title := tasks.apply(*ch.Task); title != nil {
			ch.Title = title
		}
		if err := s.writeTasks(tasks); err != nil {
			return err
		}
	}
	found := exists && rerr == nil
	stamps.orderAndHold(&ch, issued, cur, found)
	if ch.PIDFound && found {
		if pid := bindAgent(ch.PID, cur.PID, stamps.PIDStart, hostProcs); pid != ch.PID {
			// The source was found for a process that is not the
			// agent's: keep the one on record.
			ch.PID, ch.Source = pid, nil
		}
	}
	if !found || cur.PID != ch.PID || stamps.PIDStart == 0 {
		// Bound now: what a later hook tells a reused pid by.
		stamps.PIDStart = 0
		if info, err := lookupProc(ch.PID); ch.PID > 0 && err == nil {
			stamps.PIDStart = info.Start
		}
	}
	newSource := ch.Source != nil && (stamps.Source == nil || *stamps.Source != *ch.Source)
	if newSource {
		stamps.Source = ch.Source
	}
	// A file that is there but unreadable is refused by the write below if
	// it is unsafe; a corrupt record of ours is replaced.
	rec := ch.apply(cur, found, wd, time.Now())
	rec.Session = session
	rec.UpdatedAt = time.Time{}
	if err := s.write(rec); err != nil {
		return err
	}
	// After the record: a failure here costs only the ordering of a
	// later, concurrent update.
	writeStamps(l, stamps)
	owner, err := s.RecordLockHolder(s.ownerName)
	if err != nil {
		return err
	}
	if owner == 0 && (rec.PID <= 0 || exe == "") {
		// No owner runs and none will: nobody keeps the write lock file
		// for later, so remove it while holding it (SPEC.md H5).
		l.ReleaseAndRemove()
		return nil
	}
	l.Release()
	if owner > 0 && newSource {
		unix.Kill(owner, unix.SIGUSR1) // follow the new source now
	}
	if owner == 0 {
		if err := spawnOwner(exe, s.Path(), session); err != nil {
			return fmt.Errorf("starting the heartbeat owner: %w", err)
		}
	}
	return nil
}

// lockSession opens the session's files in dir and takes its write lock,
// waiting up to LockWait. With create, a missing status directory is
// created; without, it returns no session and no error.
func lockSession(dir, session string, create bool) (*sessionDir, *safefs.Lock, error) {
	s, err := openSession(dir, session, create)
	if !create && errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	l, err := s.lockLive(LockWait)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, l, nil
}

// Clear removes the session's record and tells its heartbeat owner,
// if one runs, to look and exit.
func Clear(dir, session string) error {
	issued := issueStamp()
	s, l, err := lockSession(dir, session, false)
	if err != nil || s == nil {
		return err
	}
	defer s.Close()
	defer l.Release()
	if err := s.removeRecord(); err != nil {
		return err
	}
	s.removeTasks()
	// Holding the owner lock is the only proof that no owner runs (and
	// the right to remove its file, SPEC.md H5).
	ol, err := s.TryRecordLock(s.ownerName)
	switch {
	case err != nil:
		return err
	case ol != nil:
		// Nobody will need the lock files: remove them while holding
		// both locks.
		ol.ReleaseAndRemove()
		l.ReleaseAndRemove()
	default:
		// The owner re-reads the record under the write lock and,
		// finding none, exits. A set that runs in between keeps it.
		if owner, err := s.RecordLockHolder(s.ownerName); err == nil && owner > 0 {
			unix.Kill(owner, unix.SIGUSR1)
		}
		// An update started before this clear, still waiting for the
		// lock, must not bring the record back (H12).
		writeStamps(l, fieldStamps{Cleared: issued})
	}
	return nil
}

// spawnOwner starts `exe owner` for the session, detached: in a session of
// its own (setsid), with standard input and output on /dev/null, in "/".
// It inherits no other descriptor, so an agent waiting for its hook's
// output to close does not wait for the owner.
func spawnOwner(exe, dir, session string) error {
	cmd := exec.Command(exe, "owner", "--dir", dir, "--session", session)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// A watched process: the agent whose life bounds the owner's.
type watched struct {
	pid   int
	start uint64 // start time when known, to tell a reused pid
}

func watch(pid int) watched {
	w := watched{pid: pid}
	if info, err := lookupProc(pid); err == nil {
		w.start = info.Start
	}
	return w
}

// alive reports whether the watched process still runs: not gone, not a
// zombie, and not replaced by another process with the same pid.
func (w watched) alive() bool {
	if w.pid <= 0 {
		return false
	}
	info, err := lookupProc(w.pid)
	switch {
	case err == nil:
		return !info.Zombie && (w.start == 0 || info.Start == w.start)
	case errors.Is(err, fs.ErrNotExist):
		return false
	}
	return ProcessExists(w.pid) // the platform cannot tell: ask the kernel
}

// owner is a running heartbeat owner.
type owner struct {
	s         *sessionDir
	lock      *safefs.Lock // the owner lock, held for life
	agent     watched
	heartbeat time.Duration
	src       *agenthook.Source // the source followed, if any
	f         *follower
}

// RunOwner is the heartbeat owner of session in dir. It takes the owner
// lock (and exits at once, successfully, when another process holds it),
// then until it exits:
//
//   - every heartbeat, under the write lock, it re-reads the record and
//     rewrites it with a fresh updatedAt, changing nothing else, so a set
//     that ran meanwhile is never undone;
//   - every quarter heartbeat (at most 1 s) it checks that the agent process,
//     the record's pid, still lives;
//   - when the agent is gone, or on SIGTERM, SIGINT or SIGHUP, it removes
//     the record and exits;
//   - when the record is gone (a clear ran; clear also sends SIGUSR1 so that
//     this happens at once) it exits.
//
// A record whose pid changes (the agent restarted under the same session)
// binds the owner to the new process.
func RunOwner(dir, session string, heartbeat time.Duration, term <-chan os.Signal) error {
	nudge := make(chan os.Signal, 1)
	// Before the lock is held: clear signals whoever holds it.
	signal.Notify(nudge, unix.SIGUSR1)
	defer signal.Stop(nudge)
	s, err := openSession(dir, session, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // cleared already
	}
	if err != nil {
		return err
	}
	defer s.Close()
	lock, err := s.TryRecordLock(s.ownerName)
	if err != nil || lock == nil {
		return err // nil: another owner runs
	}
	o := &owner{s: s, lock: lock, heartbeat: heartbeat}
	defer func() { o.f.stop() }()
	if done, err := o.step(false); done || err != nil {
		return err
	}
	// The new owner is the session's next publisher: what a killed
	// writer of the session left is removed (SPEC.md P8).
	safefs.RemoveStaleTemps(s.PubDir, s.name)
	// The agent is checked every quarter heartbeat, at most every second.
	check := time.NewTicker(min(max(heartbeat/4, time.Millisecond), time.Second))
	defer check.Stop()
	beat := time.NewTimer(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-check.C:
			if o.src != nil && o.f == nil {
				// The source's directory did not exist yet (a new
				// HOME): the agent makes it when it starts.
				o.followSource(o.src)
			}
			// When the process dies, look again under the lock: a set may
			// have bound the record to another process meanwhile.
			if !o.agent.alive() {
				if done, err := o.step(false); done {
					return err
				}
			}
		case <-beat.C:
			if done, err := o.step(true); done {
				return err
			}
			beat.Reset(heartbeat)
		case <-nudge:
			if done, err := o.step(false); done {
				return err
			}
		case ob := <-o.f.states():
			o.applyObserved(ob)
		case <-term:
			l, err := o.s.lockWrite(ownerLockWait)
			if err != nil {
				// Exit anyway; the record, no longer refreshed, goes stale.
				o.lock.Release()
				return err
			}
			return o.exitLocked(l, true)
		}
	}
}

// step looks at the record under the write lock and, with refresh,
// rewrites it with a fresh updatedAt. It reports whether the owner is done
// (and has exited, removing the record when the agent is gone).
func (o *owner) step(refresh bool) (bool, error) {
	l, err := o.s.lockLive(ownerLockWait)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, perm.ErrChanged):
		// The status directory is gone (the lock file cannot even be
		// created: nothing is left to keep fresh), or renamed or
		// replaced (what the path leads to now is not this owner's to
		// refresh or remove).
		o.lock.Release()
		return true, nil
	case err != nil:
		return false, nil // try again at the next heartbeat
	}
	defer l.Release()
	rec, exists, err := o.s.read()
	switch {
	case !exists:
		return true, o.exitLocked(l, false)
	case err != nil:
		// Not a record we can refresh; a set will replace it. But an
		// owner whose agent is gone, or that never learnt its agent,
		// has nothing left to wait for (a set that writes a good record
		// starts a new owner).
		if o.agent.pid <= 0 || !o.agent.alive() {
			return true, o.exitLocked(l, false)
		}
		return false, nil
	}
	if rec.PID != o.agent.pid {
		// Bound to the record's process, whichever it is now; pid 0
		// (none) makes the owner leave below.
		o.agent = watch(rec.PID)
	}
	if o.agent.pid <= 0 {
		// No process to bind to: leave the record to go stale.
		return true, o.exitLocked(l, false)
	}
	if !o.agent.alive() {
		return true, o.exitLocked(l, true)
	}
	o.followSource(readStamps(l).Source)
	if refresh {
		rec.UpdatedAt = time.Time{} // now
		// A failure is retried at the next heartbeat.
		o.s.write(rec)
	}
	return false, nil
}

// followSource follows src (nil: none) for the current agent process,
// unless it already does.
func (o *owner) followSource(src *agenthook.Source) {
	if src == nil {
		if o.f != nil {
			o.f.stop()
			o.f, o.src = nil, nil
		}
		return
	}
	if o.src != nil && *o.src == *src && o.f != nil && o.f.pid == o.agent.pid {
		return
	}
	o.f.stop()
	o.src = src
	o.f = follow(*src, o.s.session, o.agent.pid)
}

// exitLocked removes the record (with remove), then both lock files, and
// releases both locks. l is the write lock.
func (o *owner) exitLocked(l *safefs.Lock, remove bool) error {
	var err error
	if remove {
		err = o.s.removeRecord()
	}
	o.s.removeTasks()
	o.lock.ReleaseAndRemove()
	l.ReleaseAndRemove()
	return err
}

// ProcessExists reports whether a process has pid on this host: kill(pid,
// 0) succeeds or is refused for permission.
func ProcessExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}
