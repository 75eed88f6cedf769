package reader

import (
	"os"
	"testing"
	"time"
)

// A step of the wall clock moves /proc/stat's btime: a live publisher
// that started shortly before its last write then looks as if it started
// after it. That may be shown as Reused, but is never proof that the
// publisher is gone.
func TestClockStepIsNotProof(t *testing.T) {
	real := bootTime
	t.Cleanup(func() { bootTime = real })
	boot, err := real()
	if err != nil {
		t.Skip(err)
	}
	wrote := time.Now() // this process wrote its record just now
	bootTime = func() (time.Time, error) { return boot.Add(600 * time.Second), nil }
	got := liveness(os.Getpid(), wrote)
	if got == Dead {
		t.Fatalf("after a +600 s clock step, a live process is %q, which counts as gone", got)
	}
	if got != Reused {
		t.Logf("liveness %q", got)
	}
}
