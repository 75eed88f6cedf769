// Package clocktest provides a fake [clock.Clock] whose time moves only
// when a test says so.
package clocktest

import (
	"sort"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
)

// Fake is a manual clock. Its zero value is not usable; call [New].
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*timer // armed timers
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
	t.armed = true
	f.timers = append(f.timers, t)
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
	for {
		sort.Slice(f.timers, func(i, j int) bool { return f.timers[i].when.Before(f.timers[j].when) })
		if len(f.timers) == 0 || f.timers[0].when.After(end) {
			break
		}
		t := f.timers[0]
		f.timers = f.timers[1:]
		t.armed = false
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
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// WaitArmed blocks until at least n timers are armed or the real-time
// timeout passes, and reports whether they are.
func (f *Fake) WaitArmed(n int, timeout time.Duration) bool {
	return f.WaitUntil(func(armed []time.Time) bool { return len(armed) >= n }, timeout)
}

type timer struct {
	f     *Fake
	when  time.Time
	c     chan time.Time
	armed bool
}

func (t *timer) C() <-chan time.Time { return t.c }

func (t *timer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	if !t.armed {
		return false
	}
	t.armed = false
	for i, x := range t.f.timers {
		if x == t {
			t.f.timers = append(t.f.timers[:i], t.f.timers[i+1:]...)
			break
		}
	}
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
	return f.WaitUntil(func(armed []time.Time) bool {
		for _, t := range armed {
			if t.Equal(when) {
				return true
			}
		}
		return false
	}, timeout)
}
