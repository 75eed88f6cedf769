//go:build linux

package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func statusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func publish(t testing.TB, dir string, rec statusfile.Status) {
	t.Helper()
	if err := writeRecord(dir, rec); err != nil {
		t.Fatal(err)
	}
}

// writeRecord publishes rec atomically; updatedAt defaults to now and the
// state to working.
func writeRecord(dir string, rec statusfile.Status) error {
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = time.Now()
	}
	if rec.State == "" {
		rec.State = statusfile.Working
	}
	data, err := statusfile.Encode(rec)
	if err != nil {
		return err
	}
	return atomicWrite(dir, statusfile.FileName(rec.Session), data)
}

// start starts watching dir, with notifications from newSource if given.
func start(t *testing.T, dir string, o Options, newSource ...func() (source, error)) *Watcher {
	t.Helper()
	src := newFSSource
	if len(newSource) > 0 {
		src = newSource[0]
	}
	w, err := newWatcher(dir, o, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// recv returns the next event, failing the test after a generous wait.
func recv(t *testing.T, w *Watcher) Event {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		if !ok {
			t.Fatal("events closed")
		}
		return ev
	case <-time.After(waitEvent):
		t.Fatal("no event")
	}
	panic("unreachable")
}

// untilSynced returns the snapshot.
func untilSynced(t *testing.T, w *Watcher) []Event {
	t.Helper()
	var snap []Event
	for {
		ev := recv(t, w)
		switch ev.Kind {
		case Synced:
			return snap
		case Snapshot:
			snap = append(snap, ev)
		default:
			t.Fatalf("before synced: %s", formatEvent(&ev))
		}
	}
}

// TestBurst writes 2,000 records, 100 sessions rewritten 20 times each
// and concurrently, as fast as the file system takes them. Every session's
// last record must arrive, and each session's records in the order they
// were written. Intermediate records may be coalesced; if the kernel's
// queue overflows, the watcher's rescan must still get there. (100
// sessions keep the listing of a rescan on the reader's parallel path; 20
// writes each are enough for the watcher to coalesce some of them while
// writes to other sessions go on: the test logs how many. Overflow itself
// is made to happen in the overflow script test.)
func TestBurst(t *testing.T) {
	t.Parallel()
	const sessions, writes = 100, 20
	dir := statusDir(t)
	w := start(t, dir, Options{})
	untilSynced(t, w)

	var wg sync.WaitGroup
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			states := []statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle}
			for i := range writes {
				err := writeRecord(dir, statusfile.Status{
					Session: fmt.Sprintf("burst-%03d", s), State: states[i%3], Title: strconv.Itoa(i),
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}

	last := map[string]int{} // session → last title seen
	done := 0
	var overflows, events int
	deadline := time.After(60 * time.Second)
	for done < sessions {
		var ev Event
		select {
		case ev = <-w.Events():
		case <-deadline:
			t.Fatalf("after %d events, %d of %d sessions reached their last record", events, done, sessions)
		}
		events++
		switch ev.Kind {
		case Error:
			if !errors.Is(ev.Err, fsnotify.ErrEventOverflow) {
				t.Fatalf("error: %v", ev.Err)
			}
			overflows++
			continue
		case Added, Updated:
		default:
			t.Fatalf("unexpected %s", formatEvent(&ev))
		}
		n, err := strconv.Atoi(ev.After.Status.Title)
		if err != nil {
			t.Fatal(err)
		}
		prev, seen := last[ev.Session]
		if seen != (ev.Before != nil) {
			t.Fatalf("%s: Before is %v after %v", formatEvent(&ev), ev.Before, seen)
		}
		if seen && (n <= prev || ev.Before.Status.Title != strconv.Itoa(prev)) {
			t.Fatalf("%s: record %d after %d", ev.Session, n, prev)
		}
		last[ev.Session] = n
		if n == writes-1 {
			done++
		}
	}
	wg.Wait()
	t.Logf("%d writes made %d events (%d coalesced; %d overflows of the kernel queue)", sessions*writes, events, sessions*writes-events+overflows, overflows)
}

// TestDrainsWithoutConsumer: a consumer that does not read must not stop
// the watcher from taking in notifications (else the kernel queue fills
// and overflows). All of them must be taken while nobody reads, and the
// records arrive when the consumer comes back.
func TestDrainsWithoutConsumer(t *testing.T) {
	t.Parallel()
	// Every channel between fsnotify and the consumer is unbuffered, so a
	// watcher that stopped taking notifications while its consumer does not
	// read would take a handful, not hundreds.
	const n = 500
	dir := statusDir(t)
	var tap *tapSource
	w := start(t, dir, Options{}, func() (source, error) {
		var err error
		tap, err = newTapSource()
		return tap, err
	})
	// Not reading: not even the Synced event. Write once the directory is
	// watched, so that every record makes a notification.
	deadline := time.Now().Add(waitEvent)
	for !tap.watching(dir) {
		if time.Now().After(deadline) {
			t.Fatal("the directory is never watched")
		}
		time.Sleep(time.Millisecond) // polling for a condition, with a deadline
	}
	for i := range n {
		publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%04d", i)})
	}
	deadline = time.Now().Add(30 * time.Second)
	for tap.statusEvents.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher took %d of %d notifications while its consumer did not read", tap.statusEvents.Load(), n)
		}
		time.Sleep(10 * time.Millisecond) // polling for a condition, with a deadline
	}
	seen := map[string]bool{}
	for len(seen) < n {
		ev := recv(t, w)
		switch ev.Kind {
		case Synced:
		case Added, Snapshot:
			seen[ev.Session] = true
		default:
			t.Fatalf("unexpected %s", formatEvent(&ev))
		}
	}
}

// TestOneTimer: one timer serves all records. It is never later than the
// earliest freshness deadline, follows it at once when it moves earlier,
// and when it moves later is left to fire early and find nothing due.
func TestOneTimer(t *testing.T) {
	clock := clocktest.New(scriptT0)
	dir := statusDir(t)
	for i := range 50 {
		publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%02d", i), UpdatedAt: scriptT0.Add(-time.Duration(i) * 100 * time.Millisecond)})
	}
	w := start(t, dir, Options{Clock: clock, RescanInterval: -1})
	untilSynced(t, w)
	armedAt := func(want time.Time) {
		t.Helper()
		if !clock.WaitUntil(func(armed []time.Time) bool { return len(armed) == 1 && armed[0].Equal(want) }, waitEvent) {
			t.Fatalf("armed %v, want only %v", clock.Armed(), want)
		}
	}
	stale := func(u time.Time) time.Time { return u.Add(statusfile.StaleAfter + time.Nanosecond) }
	oldest := scriptT0.Add(-4900 * time.Millisecond)
	armedAt(stale(oldest))

	// An earlier deadline: the timer follows.
	older := scriptT0.Add(-10 * time.Second)
	publish(t, dir, statusfile.Status{Session: "older", UpdatedAt: older})
	recv(t, w)
	armedAt(stale(older))

	// A record from the future becomes fresh at updatedAt - 30 s, later
	// than the earliest deadline: nothing changes.
	future := scriptT0.Add(65 * time.Second)
	publish(t, dir, statusfile.Status{Session: "future", UpdatedAt: future})
	recv(t, w)
	armedAt(stale(older))

	// The earliest deadline moves later: the timer stays, fires early,
	// finds nothing due, and is armed for the deadline of the moment.
	if err := os.Remove(filepath.Join(dir, statusfile.FileName("older"))); err != nil {
		t.Fatal(err)
	}
	recv(t, w)
	armedAt(stale(older))
	clock.Advance(stale(older).Sub(clock.Now()))
	if n := w.Settle(); n != 0 {
		t.Fatalf("an early wake-up made %d events", n)
	}
	armedAt(stale(oldest))

	// All 50 go stale; the future record's boundary is the only one left.
	clock.Advance(stale(scriptT0).Sub(clock.Now()))
	if n := w.Settle(); n != 50 {
		t.Fatalf("%d events, want 50", n)
	}
	for range 50 {
		if ev := recv(t, w); ev.Kind != Stale {
			t.Fatalf("got %s", formatEvent(&ev))
		}
	}
	armedAt(future.Add(-statusfile.StaleAfter))
}

// TestOrder: a snapshot, and the events of a full rescan, come in
// file-name order.
func TestOrder(t *testing.T) {
	dir := statusDir(t)
	for i := range 30 {
		publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%02d", i)})
	}
	var tap *tapSource
	w := start(t, dir, Options{}, func() (source, error) {
		var err error
		tap, err = newTapSource()
		return tap, err
	})
	snap := untilSynced(t, w)
	names := func(evs []Event) []string {
		var out []string
		for _, ev := range evs {
			out = append(out, ev.Name)
		}
		return out
	}
	if got := names(snap); len(got) != 30 || !slices.IsSorted(got) {
		t.Fatalf("snapshot of %d, sorted %v", len(got), slices.IsSorted(got))
	}

	tap.mute()
	for i := range 30 {
		switch i % 3 {
		case 0:
			publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%02d", i), State: statusfile.Idle})
		case 1:
			if err := os.Remove(filepath.Join(dir, statusfile.FileName(fmt.Sprintf("s%02d", i)))); err != nil {
				t.Fatal(err)
			}
		}
		publish(t, dir, statusfile.Status{Session: fmt.Sprintf("new%02d", i)})
	}
	resumed := tap.resumeAfter(".marker")
	if err := os.WriteFile(filepath.Join(dir, ".marker"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	<-resumed
	tap.inject(fsnotify.ErrEventOverflow)
	if ev := recv(t, w); ev.Kind != Error {
		t.Fatalf("got %s", formatEvent(&ev))
	}
	var diff []Event
	for range 10 + 10 + 30 {
		diff = append(diff, recv(t, w))
	}
	if got := names(diff); !slices.IsSorted(got) {
		t.Fatal("rescan events not in file-name order")
	}
	kinds := map[Kind]int{}
	for _, ev := range diff {
		kinds[ev.Kind]++
	}
	if kinds[Updated] != 10 || kinds[Removed] != 10 || kinds[Added] != 30 {
		t.Fatalf("rescan made %v", kinds)
	}
}

// TestView: after a run of random changes, the view built from the events
// is what a listing shows.
func TestView(t *testing.T) {
	dir := statusDir(t)
	w := start(t, dir, Options{Invalid: true})
	untilSynced(t, w)
	view := map[string]*reader.Entry{}
	states := []statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle}
	for i := range 300 {
		id := fmt.Sprintf("s%d", i%17)
		name := filepath.Join(dir, statusfile.FileName(id))
		switch i % 5 {
		case 0, 1, 2:
			publish(t, dir, statusfile.Status{Session: id, State: states[i%3], Title: strconv.Itoa(i % 4)})
		case 3:
			os.Remove(name)
		case 4:
			atomicWrite(dir, statusfile.FileName(id), []byte("{"))
		}
	}
	publish(t, dir, statusfile.Status{Session: "last"})
	for {
		ev := recv(t, w)
		if ev.After != nil {
			view[ev.Name] = ev.After
		} else {
			delete(view, ev.Name)
		}
		if ev.Session == "last" {
			break
		}
	}
	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != len(view) {
		t.Fatalf("listing %d, view %d", len(l.Entries), len(view))
	}
	for _, e := range l.Entries {
		v := view[e.Name]
		if v == nil || v.Verdict != e.Verdict || v.Reason != e.Reason || !sameFields(&v.Status, &e.Status) {
			t.Fatalf("%s: view %+v, listing %+v", e.Name, v, e)
		}
	}
}
