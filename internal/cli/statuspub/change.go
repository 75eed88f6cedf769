package statuspub

import (
	"errors"

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
}

// apply returns the record that change makes of cur, the record on disk
// (found reports whether there was one). Without a record on disk the
// defaults are state idle, no title, agent statuspub, and the working
// directory wd.
func (c change) apply(cur statusfile.Status, found bool, wd string) statusfile.Status {
	rec := statusfile.Status{State: statusfile.Idle, Agent: defaultSetAgent, Cwd: wd}
	if found {
		rec = cur
		rec.UpdatedAt = rec.UpdatedAt.UTC()
		if !rec.State.Known() {
			// A publisher writes only the v1 vocabulary (SPEC.md S2).
			rec.State = statusfile.Idle
		}
	}
	if c.state != "" {
		rec.State = c.state
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

func ptr[T any](v T) *T { return &v }
