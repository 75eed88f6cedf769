// Package clock is the source of time of the publisher, the watcher and the
// commands: the system clock, or a fake one in tests so that they never
// sleep (see internal/clocktest).
package clock

import "time"

// Clock is a source of time: [System] by default, a fake one in tests.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a [Clock].
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing and reports whether it was
	// still armed.
	Stop() bool
}

// System is the [Clock] of package time.
var System Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }
