package statusls

import (
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/watch"
)

// reasonFiltered is the reason of a removed event for a session that is
// still there but no longer matches --state, --agent or --cwd.
const reasonFiltered = "filtered"

// view follows what statusls, with the same filter, would list: the
// sessions that match it, fresh ones only unless the filter takes stale
// ones too (--all), by file name. Invalid files are never in it. It turns
// the watcher's events, which describe the whole directory, into events of
// the view, so that a consumer who sets the session's record on every
// event, deletes it on removed and (unless --all) on stale, always holds
// the view.
type view map[string]*reader.Entry

// apply takes in one event of the watcher about a session and returns the
// view's event, if any. Its kinds are the watcher's, and named as it names
// them, a stable interface: snapshot, added, updated, heartbeat
// (--heartbeats), stale, fresh and removed (Reason says why); never
// invalid, which is removed. Entry is the record now; for removed, the
// last one shown.
func (v view) apply(filter *render.Filter, ev *watch.Event) (*render.Event, bool) {
	before := v[ev.Name]
	var after *reader.Entry
	if ev.After != nil && filter.Match(ev.After) { // Match leaves invalid files out
		after = ev.After
	}
	c := &render.Event{Kind: string(watch.Updated), At: ev.At, Entry: after}
	switch {
	case before == nil && after == nil:
		return nil, false
	case before == nil:
		v[ev.Name] = after
		c.Kind = string(watch.Added)
		if ev.Kind == watch.Snapshot || ev.Kind == watch.Fresh {
			c.Kind = string(ev.Kind)
		}
	case after == nil:
		delete(v, ev.Name)
		if ev.After != nil && ev.After.Verdict == reader.Stale && !filter.All {
			c.Kind, c.Entry = string(watch.Stale), ev.After
			break
		}
		c.Kind, c.Entry, c.Reason = string(watch.Removed), before, reasonFiltered
		if ev.Kind == watch.Removed {
			c.Reason = ev.Reason
		}
	default:
		v[ev.Name] = after
		if ev.Kind == watch.Heartbeat || ev.Kind == watch.Stale || ev.Kind == watch.Fresh {
			c.Kind = string(ev.Kind)
		}
	}
	return c, true
}
