package statusls

import (
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/watch"
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

// change is one event of the view. Its kinds are the watcher's, and
// named as it names them, a stable interface: snapshot, synced, added,
// updated, heartbeat (--heartbeats), stale, fresh, removed (reason says
// why) and error (the watch goes on); never invalid, which is removed.
type change struct {
	kind   watch.Kind
	entry  *reader.Entry // the record now; for removed, the last one shown
	reason string        // removed: why
}

// apply takes in one event of the watcher and returns the view's event, if
// any.
func (v *view) apply(ev *watch.Event) (change, bool) {
	if ev.Kind == watch.Synced || ev.Kind == watch.Error {
		return change{kind: ev.Kind}, true
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
		kind := watch.Added
		if ev.Kind == watch.Snapshot || ev.Kind == watch.Fresh {
			kind = ev.Kind
		}
		return change{kind: kind, entry: after}, true
	case after == nil:
		delete(v.shown, ev.Name)
		if ev.After != nil && ev.After.Verdict == reader.Stale && !v.filter.All {
			return change{kind: watch.Stale, entry: ev.After}, true
		}
		reason := reasonFiltered
		if ev.Kind == watch.Removed {
			reason = ev.Reason
		}
		return change{kind: watch.Removed, entry: before, reason: reason}, true
	}
	v.shown[ev.Name] = after
	kind := watch.Updated
	if ev.Kind == watch.Heartbeat || ev.Kind == watch.Stale || ev.Kind == watch.Fresh {
		kind = ev.Kind
	}
	return change{kind: kind, entry: after}, true
}
