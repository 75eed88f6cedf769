package watch

import (
	"time"

	"github.com/agentstatus/agentstatus/reader"
)

// Kind says what an [Event] reports.
type Kind string

// Event kinds. The strings are stable: statusls watch --json prints them.
const (
	// Snapshot reports one entry present when the watcher started; the
	// snapshot ends with Synced.
	Snapshot Kind = "snapshot"
	// Synced ends the initial snapshot: from here on the consumer holds
	// what a listing would show, and every later event is a change. It is
	// sent once, also when the directory does not exist (Missing) or is
	// refused (an Error event comes first).
	Synced Kind = "synced"
	// Added: a record appeared (a new file, a file that was invalid, or
	// the directory came back).
	Added Kind = "added"
	// Updated: a field other than updatedAt changed: state, title, agent,
	// pid, cwd, waitingFor, ended. The verdict may have changed too; see After.Verdict.
	Updated Kind = "updated"
	// Heartbeat: only updatedAt moved, and the verdict did not change.
	// Sent only with [Options.Heartbeats].
	Heartbeat Kind = "heartbeat"
	// Stale: the record crossed the 30 s line (SPEC.md FR1, FR2), found by
	// a timer or by a rewrite with an old timestamp; nothing else changed.
	Stale Kind = "stale"
	// Fresh: a stale record is fresh again (it was rewritten, or a record
	// from the future came within 30 s); nothing but updatedAt changed.
	Fresh Kind = "fresh"
	// Removed: the entry left the view. Reason says why.
	Removed Kind = "removed"
	// Invalid: a file became invalid, or its reason changed. Sent only
	// with [Options.Invalid]; without it, a record that becomes invalid is
	// Removed with the reason.
	Invalid Kind = "invalid"
	// Error: something the consumer may want to show; the watcher keeps
	// going. See Err.
	Error Kind = "error"
)

// Reasons of Removed events that are not a file's own (those are the
// reasons of SPEC.md §10, for a record that became invalid).
const (
	// reasonDeleted, "deleted": the file was removed or renamed away.
	reasonDeleted string = "deleted"
	// reasonDirGone, "dir-gone": the status directory was removed or renamed away.
	reasonDirGone string = "dir-gone"
	// reasonDirReplaced, "dir-replaced": another directory now has the status directory's
	// path; its sessions follow as Added.
	reasonDirReplaced string = "dir-replaced"
	// reasonDirRefused, "dir-refused": the status directory may no longer be read
	// (SPEC.md R2: a symbolic link, another owner, writable by others); an
	// Error event says which rule.
	reasonDirRefused string = "dir-refused"
)

// Event is one change seen by a [Watcher].
//
// Before and After are the entry as the consumer knew it and as it is now;
// nil means "not in the view". A consumer that keeps a map from Name to
// After (deleting on nil) always holds what a listing made at At would
// show. The entries are copies: a consumer may keep or change them.
type Event struct {
	Kind Kind
	// Seq numbers the events of one watcher: 1, 2, 3, ..., without gaps.
	Seq uint64
	// At is when the watcher saw the change, on its clock.
	At time.Time
	// Name is the status file's name: the key of a session. Empty for
	// Synced and Error.
	Name string
	// Session is the session id of After, else of Before; empty when
	// neither has a record.
	Session string
	// Before and After are the entry before and after the change.
	Before, After *reader.Entry
	// Reason says why an entry was Removed: "deleted", "dir-gone",
	// "dir-replaced", "dir-refused", or the SPEC.md §10 reason of a file
	// that became invalid.
	Reason string
	// Missing is set on Synced when the status directory does not exist
	// (yet): the watcher waits for it.
	Missing bool
	// Err is the error of an Error event.
	Err error
}

// Live reports whether the session is fresh after the event: what most
// consumers show.
func (e *Event) Live() bool { return e.After != nil && e.After.Verdict == reader.Fresh }
