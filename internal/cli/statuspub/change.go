package statuspub

import (
	"errors"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"

	"github.com/agentstatus/agentstatus/statusfile"
)

// ErrNotSupported is what set, clear and the hook adapters report on
// platforms without the file locks they rely on (Windows).
var ErrNotSupported = errors.New("statuspub: set, clear and the hook adapters are not supported on this platform")

// ErrLockTimeout is returned when a session's lock file stays locked for
// longer than a short-lived command may wait.
var ErrLockTimeout = errors.New("statuspub: timed out waiting for the session's lock")

// defaultSetAgent is the "agent" of a record made by 'statuspub set' without
// --agent and without a record on disk to keep.
const defaultSetAgent = "statuspub"

// change is what one short-lived command (set, or a hook adapter) does to a
// session's record. Empty and nil fields keep what is on disk.
type change struct {
	state statusfile.State // "" keeps the state
	title *string          // nil keeps the title; "" means no title
	agent string           // "" keeps the agent
	cwd   string           // "" keeps the cwd
	pid   int              // the agent's process; always written
	task  *taskOp          // a change to the session's task list
	// source is the file the agent keeps its state in (nil: unchanged).
	source *agenthook.Source
	// wait says what a change to blocked waits for, ended how a change
	// to idle ended a turn (nil: nothing new is known; SPEC.md §4.4).
	// Each applies only with its state, and goes with it.
	wait  *statusfile.Waiting
	ended *statusfile.Ended
	// noDetail leaves their detail out (--no-detail, AGENTSTATUS_NO_DETAIL).
	noDetail bool
}

// apply returns the record that change makes of cur, the record on disk
// (found reports whether there was one). Without a record on disk the
// defaults are state idle, no title, agent statuspub, and the working
// directory wd. now stamps a wait or a turn's end that begins.
func (c change) apply(cur statusfile.Status, found bool, wd string, now time.Time) statusfile.Status {
	rec := statusfile.Status{State: statusfile.Idle, Agent: defaultSetAgent, Cwd: wd}
	if found {
		rec = cur
		rec.UpdatedAt = rec.UpdatedAt.UTC()
		if !rec.State.Known() {
			// A publisher writes only the v1 vocabulary (SPEC.md S2).
			rec.State = statusfile.Idle
		}
	}
	prev := rec
	if c.state != "" {
		rec.State = c.state
	}
	if c.state == statusfile.Blocked && c.wait != nil {
		rec.WaitingFor = mergeWait(prev, *c.wait, now)
	}
	if c.state == statusfile.Idle && c.ended != nil {
		rec.Ended = *c.ended
		if rec.Ended.At.IsZero() {
			rec.Ended.At = now
		}
	}
	if c.noDetail {
		rec.WaitingFor.Detail, rec.Ended.Detail = "", ""
	}
	if c.title != nil {
		rec.Title = *c.title
	}
	if c.agent != "" {
		rec.Agent = c.agent
	}
	if c.cwd != "" {
		rec.Cwd = c.cwd
	}
	rec.PID = c.pid
	rec.Title = statusfile.SanitizeTitle(rec.Title)
	rec.UpdatedAt = rec.UpdatedAt.UTC()
	return rec
}

// mergeWait returns the wait w, begun at now, that follows the record prev.
// While the session stays blocked, a wait that says no more than its kind
// (Claude Code's permission Notification, seconds after the
// PermissionRequest that named the tool) keeps the one already on, and a
// wait of the same kind keeps its start.
func mergeWait(prev statusfile.Status, w statusfile.Waiting, now time.Time) statusfile.Waiting {
	old := prev.WaitingFor
	if prev.State == statusfile.Blocked && old.Kind != "" {
		if w.Tool == "" && w.Detail == "" {
			return old
		}
		if old.Kind == w.Kind && w.Since.IsZero() {
			w.Since = old.Since
		}
	}
	if w.Since.IsZero() {
		w.Since = now
	}
	return w
}

func ptr[T any](v T) *T { return &v }
