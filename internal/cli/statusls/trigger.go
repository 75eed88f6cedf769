package statusls

import (
	"maps"
	"slices"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// trigger decides when watch runs its --exec command: when a session
// enters one of the --on states (appears in it, changes to it, or comes
// back fresh in it), once per stay, and with
//
//   - --after D: only once it has stayed there D, counted from when its
//     record says the state began (waitingFor.since while blocked,
//     ended.at while idle) or else from when watch saw it enter;
//   - --after-working D: for idle, only when the turn that just ended
//     had the session working (or blocked within it) for at least D, from
//     when watch saw it start working after being idle or new;
//   - --cooldown D: at most one run per session per D; a run that comes
//     sooner is skipped.
//
// A session that leaves the state, goes stale or is removed before its run
// is due cancels the run. Times come from the watch's clock.
type trigger struct {
	o     *watchOptions // --on, --after, --after-working, --cooldown
	clock clock.Clock
	run   func(e *reader.Entry, line []byte, extra []string)

	sessions map[string]*triggered // by key: the file name, with its host
	lastRun  map[string]time.Time  // by key, kept for --cooldown
	timer    clock.Timer           // for the earliest pending run
	timerAt  time.Time
	timerC   <-chan time.Time
}

// triggered is what the trigger knows of one session.
type triggered struct {
	state     string    // its state when last seen
	turnStart time.Time // when watch saw its turn begin; zero: none seen
	due       time.Time // when its pending run is due; zero: none

	// The pending run's session, --json line and extra variables: the
	// latest seen.
	entry reader.Entry
	line  []byte
	extra []string
}

func newTrigger(o *watchOptions, clock clock.Clock, run func(e *reader.Entry, line []byte, extra []string)) *trigger {
	return &trigger{
		o: o, clock: clock, run: run,
		sessions: map[string]*triggered{}, lastRun: map[string]time.Time{},
	}
}

// see takes in one event of the view about a session: ev, whose --json
// line is line, under key; extra are variables its command gets besides
// the record's.
func (t *trigger) see(key string, ev *render.Event, line []byte, extra ...string) {
	e := ev.Entry
	if ev.Kind == string(watch.Removed) || e.Verdict != reader.Fresh {
		if s := t.sessions[key]; s != nil {
			delete(t.sessions, key)
			if !s.due.IsZero() {
				t.arm()
			}
		}
		return
	}
	now := t.clock.Now()
	state := string(e.Status.State)
	s := t.sessions[key]
	if s == nil {
		s = &triggered{}
		t.sessions[key] = s
	}
	if state == s.state {
		// Still there: a pending run takes the latest record, and a
		// new wait (a later waitingFor.since) counts from its start.
		if !s.due.IsZero() {
			s.hold(e, line, extra)
			if due := t.dueTime(e, now); due.After(s.due) {
				s.due = due
				t.arm()
			}
		}
		return
	}
	// A change of state: what was pending is cancelled.
	wasPending := !s.due.IsZero()
	s.due = time.Time{}
	worked := time.Duration(-1) // unknown
	switch statusfile.State(state) {
	case statusfile.Idle:
		if !s.turnStart.IsZero() {
			worked = now.Sub(s.turnStart)
		}
		s.turnStart = time.Time{}
	case statusfile.Working, statusfile.Blocked:
		if s.turnStart.IsZero() {
			s.turnStart = now
		}
	}
	s.state = state
	switch {
	case !slices.Contains(t.o.onStates, state):
	case t.o.afterWorking > 0 && state == string(statusfile.Idle) && worked < t.o.afterWorking:
	default:
		if due := t.dueTime(e, now); due.After(now) {
			s.due = due
			s.hold(e, line, extra)
			t.arm()
			return
		}
		t.start(key, e, line, extra, now)
	}
	if wasPending {
		t.arm()
	}
}

// dueTime is when a run for e, seen now, is due: --after past the start of
// its state.
func (t *trigger) dueTime(e *reader.Entry, now time.Time) time.Time {
	if t.o.after <= 0 {
		return now
	}
	since := now
	var began time.Time
	switch e.Status.State {
	case statusfile.Blocked:
		began = e.Status.WaitingFor.Since
	case statusfile.Idle:
		began = e.Status.Ended.At
	}
	// A time ahead of this clock (a publisher's skew) counts as now.
	if !began.IsZero() && began.Before(now) {
		since = began
	}
	return since.Add(t.o.after)
}

func (s *triggered) hold(e *reader.Entry, line []byte, extra []string) {
	s.entry = *e
	s.line = append(s.line[:0], line...)
	s.extra = slices.Clone(extra)
}

// start runs the command for the session under key, unless --cooldown
// says it ran too recently.
func (t *trigger) start(key string, e *reader.Entry, line []byte, extra []string, now time.Time) {
	if t.o.cooldown > 0 {
		if last, ok := t.lastRun[key]; ok && now.Sub(last) < t.o.cooldown {
			return
		}
		for k, last := range t.lastRun {
			if now.Sub(last) >= t.o.cooldown {
				delete(t.lastRun, k)
			}
		}
		t.lastRun[key] = now
	}
	t.run(e, line, extra)
}

// C is the channel of the timer of the earliest pending run; nil when
// none is pending, or t is nil (no --exec).
func (t *trigger) C() <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.timerC
}

// fire runs the commands that are due, and arms the timer for the next.
func (t *trigger) fire() {
	t.timer, t.timerC, t.timerAt = nil, nil, time.Time{}
	now := t.clock.Now()
	for _, k := range slices.Sorted(maps.Keys(t.sessions)) { // the same order every time
		s := t.sessions[k]
		if s.due.IsZero() || s.due.After(now) {
			continue
		}
		s.due = time.Time{}
		t.start(k, &s.entry, s.line, s.extra, now)
		s.line, s.extra = nil, nil
	}
	t.arm()
}

// arm keeps one timer, for the earliest pending run.
func (t *trigger) arm() {
	var next time.Time
	for _, s := range t.sessions {
		if !s.due.IsZero() && (next.IsZero() || s.due.Before(next)) {
			next = s.due
		}
	}
	if t.timer != nil && next.Equal(t.timerAt) {
		return
	}
	t.stop()
	if next.IsZero() {
		return
	}
	t.timer = t.clock.NewTimer(next.Sub(t.clock.Now()))
	t.timerAt, t.timerC = next, t.timer.C()
}

// stop stops the timer.
func (t *trigger) stop() {
	if t.timer != nil {
		t.timer.Stop()
	}
	t.timer, t.timerC, t.timerAt = nil, nil, time.Time{}
}
