//go:build unix

package hooksession

import (
	"encoding/json"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/statusfile"

	"golang.org/x/sys/unix"
)

// Updates of one session can be started close together (an agent firing
// two hooks at once) and then wait for the write lock in any order: the
// kernel does not queue lock waiters fairly. So that the update started
// last wins whatever order the lock is taken in (SPEC.md H12), each update
// is stamped when it starts, on a clock every process shares and that a
// step of the wall clock does not move (issueStamp), and the write lock
// file keeps, for each field, the stamp of the update that set it last.
// An update sets a field only if it started after the one that set it
// last; the fields it does not name are left as they are. Nothing is
// dropped: an older update still changes every field no newer update has
// set, as if it had been applied before them.

// fieldStamps is the content of the write lock file.
type fieldStamps struct {
	State int64 `json:"state,omitempty"`
	Title int64 `json:"title,omitempty"`
	Agent int64 `json:"agent,omitempty"`
	Cwd   int64 `json:"cwd,omitempty"`
	PID   int64 `json:"pid,omitempty"`
	// PIDStart is the start time of the record's process when it was
	// bound (procfs.Stat.Start), to tell it from a later process given
	// the same pid.
	PIDStart uint64 `json:"pidStart,omitempty"`
	// Cleared is the stamp of the last clear: an update started before
	// it does not bring the record back.
	Cleared int64 `json:"cleared,omitempty"`
	// Source is the file the agent keeps its own state in, which the
	// heartbeat owner follows (SPEC.md §13.3); set by the adapters.
	Source *agenthook.Source `json:"source,omitempty"`
	// Subagent is what a subagent's dialog holds back (subagentHold);
	// nil when nothing.
	Subagent *subagentHold `json:"subagent,omitempty"`
}

// holdSubagent applies the subagents' hold (subagentHold.hold) to ch, a
// change of the record cur, and keeps what it holds in st.
func (st *fieldStamps) holdSubagent(ch *Change, cur statusfile.Status, found bool) {
	var h subagentHold
	if st.Subagent != nil {
		h = *st.Subagent
	}
	h.hold(ch, cur, found)
	st.Subagent = nil
	if !h.empty() {
		st.Subagent = &h
	}
}

// orderAndHold orders ch, a hook's update issued at issued, after the
// updates applied before it (order), then after the dialog a subagent
// left open (holdSubagent). cur is the record on disk, found whether there
// is one.
func (st *fieldStamps) orderAndHold(ch *Change, issued int64, cur statusfile.Status, found bool) {
	subagentDialog := ch.Subagent && ch.State == statusfile.Blocked
	stateStamp := st.State
	st.order(ch, issued, cur.PID, found)
	if subagentDialog && ch.State == "" {
		// A subagent's dialog is on screen whatever the session's turn
		// did since its hook started (the session's Stop races it).
		ch.State = statusfile.Blocked
	}
	st.holdSubagent(ch, cur, found)
	if ch.Subagent && ch.State == "" {
		// A subagent's event that changes nothing says nothing of the
		// session's turn: a hook of the session's started before it (its
		// Stop) still counts as newer than what set the state.
		st.State = stateStamp
	}
}

// maxStamps bounds what is read of the lock file.
const maxStamps = 8192

// readStamps reads the stamps from the held write lock's file; an empty or
// unreadable file has none.
func readStamps(l *safefs.Lock) fieldStamps {
	var st fieldStamps
	buf := make([]byte, maxStamps)
	n, err := unix.Pread(l.Fd(), buf, 0)
	if err != nil || n <= 0 || json.Unmarshal(buf[:n], &st) != nil {
		return fieldStamps{}
	}
	return st
}

// writeStamps replaces the stamps in the held write lock's file.
func writeStamps(l *safefs.Lock, st fieldStamps) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if _, err := unix.Pwrite(l.Fd(), data, 0); err != nil {
		return err
	}
	return unix.Ftruncate(l.Fd(), int64(len(data)))
}

// order drops from ch the fields that an update started after it has
// already set, and records ch's stamp for the fields it keeps. cur is the
// record on disk, whose pid an older update keeps.
func (st *fieldStamps) order(ch *Change, issued int64, cur int, found bool) {
	newer := func(last *int64) bool {
		if issued < *last {
			return false
		}
		*last = issued
		return true
	}
	if ch.State != "" && !newer(&st.State) {
		ch.State = ""
	}
	if ch.Title != nil && !newer(&st.Title) {
		ch.Title = nil
	}
	if ch.Agent != "" && !newer(&st.Agent) {
		ch.Agent = ""
	}
	if ch.Cwd != "" && !newer(&st.Cwd) {
		ch.Cwd = ""
	}
	if !newer(&st.PID) && found {
		ch.PID = cur
	}
}
