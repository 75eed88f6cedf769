package watch

import (
	"container/heap"
	"maps"
	"slices"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// tracked is what the watcher knows of one status file name: its last
// entry (valid or not) and, for records, the next time its verdict
// changes by the clock alone.
type tracked struct {
	e    reader.Entry
	next time.Time // next freshness boundary; zero when there is none
	idx  int       // index in the deadline heap; -1 when not in it
}

// nextBoundary returns the first instant after now at which a record
// updated at u changes verdict by the passing of time alone, or the zero
// time if it never does. Fresh is [u-30s, u+30s] inclusive (SPEC.md FR1,
// FR2), so a record in the future becomes fresh at u-30s, and a fresh one
// becomes stale one nanosecond after u+30s.
func nextBoundary(u, now time.Time) time.Time {
	lo, hi := u.Add(-statusfile.StaleAfter), u.Add(statusfile.StaleAfter)
	switch {
	case now.Before(lo):
		return lo
	case !now.After(hi):
		return hi.Add(time.Nanosecond)
	}
	return time.Time{}
}

// deadlines is a min-heap of tracked records by next boundary: one timer,
// armed for the earliest, serves them all.
type deadlines []*tracked

func (d deadlines) Len() int           { return len(d) }
func (d deadlines) Less(i, j int) bool { return d[i].next.Before(d[j].next) }
func (d deadlines) Swap(i, j int) {
	d[i], d[j] = d[j], d[i]
	d[i].idx, d[j].idx = i, j
}
func (d *deadlines) Push(x any) {
	t := x.(*tracked)
	t.idx = len(*d)
	*d = append(*d, t)
}
func (d *deadlines) Pop() any {
	old := *d
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*d = old[:len(old)-1]
	t.idx = -1
	return t
}

// record reports whether e is a record (fresh or stale), as opposed to an
// invalid file.
func record(e *reader.Entry) bool { return e.Verdict == reader.Fresh || e.Verdict == reader.Stale }

// inView is e when it is in the consumer's view, else nil.
func (w *Watcher) inView(e *reader.Entry) *reader.Entry {
	if e == nil || !record(e) && !(w.cfg.Invalid && e.Verdict == reader.Invalid) {
		return nil
	}
	return e
}

// clone is a copy of e, or nil: an event's entries are the consumer's.
func clone(e *reader.Entry) *reader.Entry {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

// sameFields reports whether two records agree on everything but
// updatedAt. Decoded times are all UTC, so == compares them as Equal does.
func sameFields(a, b *statusfile.Status) bool {
	x, y := *a, *b
	x.UpdatedAt, y.UpdatedAt = time.Time{}, time.Time{}
	return x == y
}

// classify decides which event, if any, takes the view from b to a (nil:
// not in the view). gone is the reason when a is nil.
func (w *Watcher) classify(b, a *reader.Entry, gone string) (Kind, string, bool) {
	switch {
	case b == nil && a == nil:
		return "", "", false
	case b == nil && !w.synced:
		return Snapshot, "", true
	case b == nil && a.Verdict == reader.Invalid:
		return Invalid, "", true
	case b == nil:
		return Added, "", true
	case a == nil:
		return Removed, gone, true
	case a.Verdict == reader.Invalid:
		if b.Verdict != reader.Invalid || a.Reason != b.Reason || !sameFields(&a.Status, &b.Status) {
			return Invalid, "", true
		}
		return "", "", false
	case b.Verdict == reader.Invalid:
		return Added, "", true
	case !sameFields(&a.Status, &b.Status):
		return Updated, "", true
	case a.Verdict != b.Verdict:
		if a.Verdict == reader.Fresh {
			return Fresh, "", true
		}
		return Stale, "", true
	case !a.Status.UpdatedAt.Equal(b.Status.UpdatedAt) && w.cfg.Heartbeats:
		return Heartbeat, "", true
	}
	return "", "", false
}

// update moves what the watcher knows of name from its current entry to
// new (nil: the file is gone, for the reason gone) and queues the event
// that change makes, if any.
func (w *Watcher) update(name string, new *reader.Entry, gone string, now time.Time) {
	t := w.known[name]
	var old *reader.Entry
	if t != nil {
		old = &t.e
	}
	if new != nil {
		gone = new.Reason // an entry that leaves the view leaves for its own reason
	}
	before, after := w.inView(old), w.inView(new)
	if kind, reason, ok := w.classify(before, after, gone); ok {
		ev := Event{Kind: kind, At: now, Name: name, Reason: reason, Before: clone(before), After: clone(after)}
		switch {
		case ev.After != nil:
			ev.Session = ev.After.Status.Session
		case ev.Before != nil:
			ev.Session = ev.Before.Status.Session
		}
		w.emit(ev)
	}
	if new == nil {
		if t != nil {
			if t.idx >= 0 {
				heap.Remove(&w.deadlines, t.idx)
			}
			delete(w.known, name)
		}
		return
	}
	if t == nil {
		t = &tracked{idx: -1}
		w.known[name] = t
	}
	t.e = *new
	w.schedule(t, now)
}

// schedule files t under its next freshness boundary.
func (w *Watcher) schedule(t *tracked, now time.Time) {
	t.next = time.Time{}
	if record(&t.e) {
		t.next = nextBoundary(t.e.Status.UpdatedAt, now)
	}
	switch {
	case t.next.IsZero() && t.idx >= 0:
		heap.Remove(&w.deadlines, t.idx)
	case t.next.IsZero():
	case t.idx >= 0:
		heap.Fix(&w.deadlines, t.idx)
	default:
		heap.Push(&w.deadlines, t)
	}
}

// expire judges again, at now, every record whose boundary has come.
func (w *Watcher) expire(now time.Time) {
	for len(w.deadlines) > 0 && !w.deadlines[0].next.After(now) {
		t := w.deadlines[0]
		e := t.e
		e.Age = now.Sub(e.Status.UpdatedAt)
		if e.Status.Fresh(now) {
			e.Verdict = reader.Fresh
		} else {
			e.Verdict = reader.Stale
		}
		w.update(e.Name, &e, "", now) // reschedules t
	}
}

// diff brings what the watcher knows in line with a complete listing of
// entries: every name in either, in file-name order, gets the event its
// change makes; names the watcher knew and the listing lacks are gone, for
// the reason gone. With no entries, it empties the view.
func (w *Watcher) diff(entries []reader.Entry, gone string, now time.Time) {
	listed := make(map[string]*reader.Entry, len(entries))
	for i := range entries {
		listed[entries[i].Name] = &entries[i]
	}
	names := slices.AppendSeq(slices.Collect(maps.Keys(listed)), maps.Keys(w.known))
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		w.update(name, listed[name], gone, now)
	}
}
