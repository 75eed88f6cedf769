package hooksession

import (
	"errors"
	"io/fs"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// maxAncestors bounds the walks up the process tree that bindAgent makes.
const maxAncestors = 64

// procs is what bindAgent may learn of the processes on this host.
type procs struct {
	stat func(pid int) (procfs.Stat, error)
	// exe is the path of a process's executable; an error when the
	// platform cannot tell, or the process is not ours.
	exe func(pid int) (string, error)
	// exists is kill(pid, 0), for a platform that cannot say more.
	exists func(pid int) bool
}

// hostProcs is what this host says of its processes.
var hostProcs = procs{stat: lookupProc, exe: exePath, exists: ProcessExists}

// The fate of a process, as far as the host can tell.
type fate int

const (
	unknown fate = iota // the platform cannot tell
	running
	gone // exited (a zombie too), or its pid taken by another process
)

// fateOf says whether pid, started at start (0: not known), still runs.
func (p procs) fateOf(pid int, start uint64) (fate, procfs.Stat) {
	info, err := p.stat(pid)
	switch {
	case err == nil:
		if info.Zombie || start != 0 && info.Start != start {
			return gone, info
		}
		return running, info
	case errors.Is(err, fs.ErrNotExist):
		return gone, info
	case !p.exists(pid):
		return gone, info
	}
	return unknown, info
}

// ancestor reports whether a is an ancestor of pid, as far as the host can
// tell.
func (p procs) ancestor(a, pid int) bool {
	for range maxAncestors {
		info, err := p.stat(pid)
		if err != nil || info.PPID <= 1 {
			return false
		}
		if info.PPID == a {
			return true
		}
		pid = info.PPID
	}
	return false
}

// bindAgent decides which process a session's record is bound to when a
// hook's search (agentPID) found found while the record is bound to bound,
// started at boundStart (0: not known). The agent's process is decided once
// per session and kept (SPEC.md H6): a hook may run under a helper of the
// agent (Qwen Code runs its StopFailure hook under a short-lived,
// detached node process), and a record bound to a helper would go when
// the helper exits (H4). It moves only to a real new agent process:
//
//   - bound no longer runs (exited, or its pid reused): found;
//   - found is bound's descendant (a helper), has exited already, or is
//     not known (an orphaned hook): bound;
//   - found is bound's ancestor: the record was bound to a helper of the
//     agent by an earlier hook: found;
//   - unrelated, both running: found only when it runs the same executable
//     as bound, started after it and is not an orphan (the session resumed
//     in a new process while the old one still runs); otherwise bound.
//
// Whatever the host cannot tell keeps bound.
func bindAgent(found, bound int, boundStart uint64, p procs) int {
	if bound <= 0 || found == bound {
		return found
	}
	if found <= 0 {
		return bound
	}
	bf, binfo := p.fateOf(bound, boundStart)
	switch bf {
	case gone:
		return found
	case unknown:
		return bound
	}
	ff, finfo := p.fateOf(found, 0)
	if ff != running || p.ancestor(bound, found) {
		return bound
	}
	if p.ancestor(found, bound) {
		return found
	}
	if finfo.PPID <= 1 {
		// An orphan: a helper whose parent has exited, not an agent
		// someone has just started.
		return bound
	}
	fexe, ferr := p.exe(found)
	bexe, berr := p.exe(bound)
	if ferr == nil && berr == nil && fexe == bexe && finfo.Start > binfo.Start {
		return found
	}
	return bound
}
