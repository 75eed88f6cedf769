package hooksession

import (
	"errors"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"

	"github.com/agentstatus/agentstatus/statusfile"
)

// ErrNotSupported is what set, clear and the hook adapters report on
// platforms without the file locks they rely on (Windows).
var ErrNotSupported = errors.New("set, clear and the hook adapters are not supported on this platform")

// defaultSetAgent is the "agent" of a record made by 'statuspub set' without
// --agent and without a record on disk to keep.
const defaultSetAgent = "statuspub"

// Change is what one short-lived command (set, or a hook adapter) does to a
// session's record. Empty and nil fields keep what is on disk.
type Change struct {
	State statusfile.State  // "" keeps the state
	Title *string           // nil keeps the title; "" means no title
	Agent string            // "" keeps the agent
	Cwd   string            // "" keeps the cwd
	PID   int               // the agent's process; always written
	Task  *agenthook.TaskOp // a change to the session's task list
	// PIDFound says PID is what the search of SPEC.md H6 found, not a
	// --pid: it yields to the process the record is bound to unless that
	// one is gone or PID is a new process of the same agent (bindAgent).
	PIDFound bool
	// Source is the file the agent keeps its state in (nil: unchanged).
	Source *agenthook.Source
	// Wait says what a change to blocked waits for, Ended how a change
	// to idle ended a turn (zero: nothing new is known; SPEC.md §4.4).
	// Each applies only with its state, and goes with it.
	Wait  statusfile.Waiting
	Ended statusfile.Ended
	// NoDetail leaves their detail out (--no-detail, AGENTSTATUS_NO_DETAIL).
	NoDetail bool
	// Background, when not nil, replaces the count of work that runs
	// outside the agent's turn (SPEC.md §4.4), with State; nil keeps it.
	Background *statusfile.Background
	// TasksKept says that Background counts the agents alone
	// (agenthook.Action.TasksKept): the record's tasks stay, and keep a
	// turn's end working while they run.
	TasksKept bool
	// Subagent: the change is a subagent's, which says nothing of the
	// session's turn but its dialog (subagentHold).
	Subagent bool
	// BackgroundIdle: the background work the record counts does not
	// wake the agent (agenthook.Action.BackgroundIdle), so the end of a
	// turn stays idle while it runs (keepsBackground).
	BackgroundIdle bool
	// DeniedInBackground: a change to blocked that no dialog shows while
	// background agents run (agenthook.Action.DeniedInBackground).
	DeniedInBackground bool
}

// apply returns the record that c makes of cur, the record on disk
// (found reports whether there was one). Without a record on disk the
// defaults are state idle, no title, agent statuspub, and the working
// directory wd. now stamps a wait or a turn's end that begins.
func (c Change) apply(cur statusfile.Status, found bool, wd string, now time.Time) statusfile.Status {
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
	c = c.withTasks(prev)
	if c.deniedInBackground(prev) {
		c.State = ""
	}
	if c.keepsBackground(prev) {
		c.State, c.Ended = statusfile.Working, statusfile.Ended{}
	}
	if c.State != "" && !c.keepsWait(prev) {
		rec.State = c.State
	}
	if c.State == statusfile.Blocked && c.Wait.Kind != "" {
		rec.WaitingFor = mergeWait(prev, c.Wait, now)
	}
	if c.State == statusfile.Idle && c.Ended.Reason != "" {
		rec.Ended = c.Ended
		if rec.Ended.At.IsZero() {
			rec.Ended.At = now
		}
	}
	if c.NoDetail {
		rec.WaitingFor.Detail, rec.Ended.Detail = "", ""
	}
	if c.Background != nil && c.State != "" {
		// It goes with the state it came with (H12 may drop both).
		rec.Background = *c.Background
	}
	if c.Title != nil {
		rec.Title = *c.Title
	}
	if c.Agent != "" {
		rec.Agent = c.Agent
	}
	if c.Cwd != "" {
		rec.Cwd = c.Cwd
	}
	rec.PID = c.PID
	rec.Title = statusfile.SanitizeTitle(rec.Title)
	rec.UpdatedAt = rec.UpdatedAt.UTC()
	return rec
}

// withTasks returns c with the tasks of prev counted in, when c counts the
// agents alone (TasksKept): the heartbeat owner counts them from the
// agent's own files, and no hook says them. A turn's end while they run
// is no end: their end wakes the agent (SPEC.md Y8), so it is working.
func (c Change) withTasks(prev statusfile.Status) Change {
	if !c.TasksKept || c.Background == nil {
		return c
	}
	bg := *c.Background
	bg.Tasks = prev.Background.Tasks
	c.Background = &bg
	if bg.Tasks > 0 && c.State == statusfile.Idle && c.Ended.Reason == "done" {
		c.State, c.Ended = statusfile.Working, statusfile.Ended{}
	}
	return c
}

// keepsWait reports whether c, a change to working because the agent gave
// its turn up to background work (SPEC.md Y8), leaves the wait of prev on:
// a subagent's permission dialog outlasts the turn that started it, and
// blocked takes precedence (S1).
func (c Change) keepsWait(prev statusfile.Status) bool {
	return c.State == statusfile.Working && c.Background != nil && *c.Background != (statusfile.Background{}) &&
		prev.State == statusfile.Blocked
}

// keepsBackground reports whether c, an idle that says neither what runs
// nor how a turn ended, but for the user's interrupt, makes prev, which
// is not idle and counts background work, working: that work will wake
// the agent (SPEC.md Y8). Qwen Code sends its idle_prompt each time it is
// back at its prompt, also right after such a turn's Stop, and after a
// denial in a turn of the user's while the work runs; Esc in that turn's
// tool (PostToolUseFailure is_interrupt, cancelled) ends the turn, not the
// work.
func (c Change) keepsBackground(prev statusfile.Status) bool {
	return !c.BackgroundIdle && c.State == statusfile.Idle && (c.Ended.Reason == "" || c.Ended.Reason == "cancelled") && c.Background == nil &&
		prev.State != statusfile.Idle && prev.Background != (statusfile.Background{})
}

// deniedInBackground reports whether c, a permission request that may be
// a background agent's, leaves prev, working while background agents run,
// as it is: Qwen Code denies a background agent's tool that asks at once,
// without a dialog (its PermissionRequest hook runs first), and the agent
// goes on.
func (c Change) deniedInBackground(prev statusfile.Status) bool {
	return c.DeniedInBackground && c.State == statusfile.Blocked &&
		prev.State == statusfile.Working && prev.Background.Agents > 0
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
