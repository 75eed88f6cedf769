package testbin

import (
	"testing"
	"time"
)

func TestWaitFor(t *testing.T) {
	n := 0
	msg, _ := Failure(t, func(tb testing.TB) {
		WaitFor(tb, "the fifth poll", 10*time.Second, func() bool { n++; return n == 5 })
	})
	if msg != "" || n != 5 {
		t.Errorf("a condition that holds at the fifth poll: failure %q after %d polls", msg, n)
	}
	start := time.Now()
	msg, fatal := Failure(t, func(tb testing.TB) {
		WaitFor(tb, "never", 50*time.Millisecond, func() bool { return false })
	})
	if !fatal || msg != "never: not within 50ms" {
		t.Errorf("a condition that never holds: failure %q (fatal %v)", msg, fatal)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", d)
	}
}

func TestFailure(t *testing.T) {
	after := false
	for _, tt := range []struct {
		name  string
		f     func(testing.TB)
		msg   string
		fatal bool
	}{
		{"none", func(testing.TB) {}, "", false},
		{"error", func(tb testing.TB) { tb.Errorf("e%d", 1); tb.Error("e2") }, "e1", false},
		{"fatal", func(tb testing.TB) { tb.Fatalf("f%d", 1); after = true }, "f1", true},
		{"error then fatal", func(tb testing.TB) { tb.Error("e"); tb.Fatal("f") }, "e", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if msg, fatal := Failure(t, tt.f); msg != tt.msg || fatal != tt.fatal {
				t.Errorf("got %q (fatal %v), want %q (fatal %v)", msg, fatal, tt.msg, tt.fatal)
			}
		})
	}
	if after {
		t.Error("Fatalf did not stop the function")
	}
}
