package statusls

import (
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/watch"
)

// The events of statusls watch, as --json and TSV name them. The names are
// a stable interface.
const (
	evSnapshot  = "snapshot"  // a session shown at start; the snapshot ends with synced
	evSynced    = "synced"    // the snapshot is complete
	evAdded     = "added"     // a session entered the view
	evUpdated   = "updated"   // a field other than updatedAt changed
	evHeartbeat = "heartbeat" // only updatedAt moved (--heartbeats)
	evStale     = "stale"     // the session went stale
	evFresh     = "fresh"     // a stale session is fresh again
	evRemoved   = "removed"   // the session left the view; reason says why
	evError     = "error"     // something went wrong; the watch goes on
)

// reasonFiltered is the reason of a removed event for a session that is
// still there but no longer matches --state, --agent or --cwd.
const reasonFiltered = "filtered"

// view follows what statusls, with the same filters, would list: the
// sessions that match them, fresh ones only unless the filter takes stale
// ones too (--all). Invalid files are never in it. It turns the watcher's
// events, which describe the whole directory, into events of the view, so
// that a consumer who sets the session's record on every event, deletes it
// on removed and (unless --all) on stale, always holds the view.
type view struct {
	filter *render.Filter
	shown  map[string]*reader.Entry // by file name
}

func newView(f *render.Filter) *view {
	return &view{filter: f, shown: map[string]*reader.Entry{}}
}

// change is one event of the view.
type change struct {
	kind   string
	entry  *reader.Entry // the record now; for removed, the last one shown
	reason string        // removed: why
}

// apply takes in one event of the watcher and returns the view's event, if
// any.
func (v *view) apply(ev *watch.Event) (change, bool) {
	switch ev.Kind {
	case watch.Synced:
		return change{kind: evSynced}, true
	case watch.Error:
		return change{kind: evError}, true
	}
	before := v.shown[ev.Name]
	var after *reader.Entry
	if ev.After != nil && v.filter.Match(ev.After) { // Match leaves invalid files out
		after = ev.After
	}
	switch {
	case before == nil && after == nil:
		return change{}, false
	case before == nil:
		v.shown[ev.Name] = after
		kind := evAdded
		switch ev.Kind {
		case watch.Snapshot:
			kind = evSnapshot
		case watch.Fresh:
			kind = evFresh
		}
		return change{kind: kind, entry: after}, true
	case after == nil:
		delete(v.shown, ev.Name)
		if ev.After != nil && ev.After.Verdict == reader.Stale && !v.filter.All {
			return change{kind: evStale, entry: ev.After}, true
		}
		reason := reasonFiltered
		if ev.Kind == watch.Removed {
			reason = ev.Reason
		}
		return change{kind: evRemoved, entry: before, reason: reason}, true
	}
	v.shown[ev.Name] = after
	kind := evUpdated
	switch ev.Kind {
	case watch.Heartbeat:
		kind = evHeartbeat
	case watch.Stale:
		kind = evStale
	case watch.Fresh:
		kind = evFresh
	}
	return change{kind: kind, entry: after}, true
}
