package statusfile

import "time"

// Clock is the source of time of a [Publisher] (and of package watch): the
// system clock by default, a fake one in tests so that they never sleep.
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

// SystemClock is the [Clock] of package time.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }
