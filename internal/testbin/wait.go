package testbin

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, and fails t when it still does not
// after timeout: for what a program must do, in its own time. The first
// polls come quickly, for what happens at once; later ones every 20 ms, so
// that a long wait leaves the processors to the program (a cond may start
// a program of its own: tmux capture-pane).
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(pause)
	}
}
