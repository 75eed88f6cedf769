// Package clocktest provides a fake [clock.Clock] whose time moves only
// when a test says so.
package clocktest

import (
	"slices"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
)

// Fake is a manual clock. Its zero value is not usable; call [New].
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*timer // armed timers, earliest first
	changed chan struct{}
}

// New returns a fake clock reading t.
func New(t time.Time) *Fake {
	return &Fake{now: t, changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires when the fake time reaches now+d.
func (f *Fake) NewTimer(d time.Duration) clock.Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &timer{f: f, when: f.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- f.now
		return t
	}
	// After the timers due no later: those due together fire in order.
	i := slices.IndexFunc(f.timers, func(x *timer) bool { return x.when.After(t.when) })
	if i < 0 {
		i = len(f.timers)
	}
	f.timers = slices.Insert(f.timers, i, t)
	f.signal()
	return t
}

// signal wakes goroutines waiting for a change of the armed timers.
// f.mu is held.
func (f *Fake) signal() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Advance moves the time forward by d, firing every timer that comes due,
// earliest first, each at its own deadline.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	end := f.now.Add(d)
	for len(f.timers) > 0 && !f.timers[0].when.After(end) {
		t := f.timers[0]
		f.timers = f.timers[1:]
		if t.when.After(f.now) {
			f.now = t.when
		}
		select {
		case t.c <- f.now:
		default:
		}
	}
	f.now = end
	f.signal()
}

// Armed returns the deadlines of the armed timers, earliest first.
func (f *Fake) Armed() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Time
	for _, t := range f.timers {
		out = append(out, t.when)
	}
	return out
}

// WaitArmed blocks until at least n timers are armed or the real-time
// timeout passes, and reports whether they are.
func (f *Fake) WaitArmed(n int, timeout time.Duration) bool {
	return f.WaitUntil(func(armed []time.Time) bool { return len(armed) >= n }, timeout)
}

type timer struct {
	f    *Fake
	when time.Time
	c    chan time.Time
}

func (t *timer) C() <-chan time.Time { return t.c }

func (t *timer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	i := slices.Index(t.f.timers, t)
	if i < 0 {
		return false
	}
	t.f.timers = slices.Delete(t.f.timers, i, i+1)
	t.f.signal()
	return true
}

// WaitUntil blocks until ok, called with the deadlines of the armed timers
// (earliest first), returns true, or the real-time timeout passes; it
// reports whether ok was satisfied. Tests use it to let the code under test
// arm its next timer before they move the time on.
func (f *Fake) WaitUntil(ok func(armed []time.Time) bool, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		f.mu.Lock()
		ch := f.changed
		f.mu.Unlock()
		if ok(f.Armed()) {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// WaitTimer waits until a timer is armed for exactly when.
func (f *Fake) WaitTimer(when time.Time, timeout time.Duration) bool {
	return f.WaitUntil(func(armed []time.Time) bool { return slices.ContainsFunc(armed, when.Equal) }, timeout)
}
