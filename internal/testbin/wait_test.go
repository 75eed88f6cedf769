package testbin

import (
	"strings"
	"testing"
	"time"
)

// fatalRecorder is a testing.TB whose Fatalf records the failure and stops
// the calling function, as testing.T's does, without ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = format
	panic(r)
}

// waitFor runs WaitFor under a fatalRecorder and returns its failure, ""
// for none.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) (msg string) {
	r := &fatalRecorder{TB: t}
	defer func() {
		if p := recover(); p != nil {
			if p != any(r) {
				panic(p)
			}
			msg = r.msg
		}
	}()
	WaitFor(r, "the condition", timeout, cond)
	return ""
}

func TestWaitFor(t *testing.T) {
	n := 0
	if msg := waitFor(t, 10*time.Second, func() bool { n++; return n == 5 }); msg != "" || n != 5 {
		t.Errorf("a condition that holds at the fifth poll: failure %q after %d polls", msg, n)
	}
	start := time.Now()
	if msg := waitFor(t, 50*time.Millisecond, func() bool { return false }); !strings.Contains(msg, "not within") {
		t.Errorf("a condition that never holds: failure %q", msg)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", d)
	}
}
