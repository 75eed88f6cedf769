//go:build linux

package watch

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/statusfile"
)

// closeWithin closes w and fails if that takes longer than a generous
// deadline: Close must never hang, whatever the watcher was doing.
func closeWithin(t *testing.T, w *Watcher) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitEvent):
		t.Fatal("Close hangs")
	}
}

// TestClose: Close stops every goroutine of the watcher (and fsnotify's),
// whatever state it is in, closes the Events channel, and may be called
// again. These tests do not run in parallel, so that goleak sees only
// their goroutines.
func TestClose(t *testing.T) {
	t.Run("consumer never reads", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		dir := statusDir(t)
		for i := range 200 {
			publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%d", i)})
		}
		w, err := New(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Changes keep coming while nobody reads.
		for i := range 200 {
			publish(t, dir, statusfile.Status{Session: fmt.Sprintf("s%d", i), State: statusfile.Idle})
		}
		closeWithin(t, w)
		for range w.Events() {
			// Whatever was in flight; the channel must be closed.
		}
		if err := w.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
	})
	t.Run("waiting for the directory", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		w, err := New(filepath.Join(t.TempDir(), "no", "such", "agent-status"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ev := <-w.Events(); ev.Kind != Synced || !ev.Missing {
			t.Fatalf("got %s", formatEvent(&ev))
		}
		closeWithin(t, w)
		if _, ok := <-w.Events(); ok {
			t.Fatal("events not closed")
		}
	})
	t.Run("timers armed, fake clock", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		clock := clocktest.New(scriptT0)
		dir := statusDir(t)
		publish(t, dir, statusfile.Status{Session: "s", UpdatedAt: scriptT0})
		w, err := New(dir, Options{Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		untilSynced(t, w)
		if !clock.WaitUntil(func(armed []time.Time) bool { return len(armed) == 2 }, waitEvent) {
			t.Fatalf("armed: %v", clock.Armed())
		}
		closeWithin(t, w)
		if armed := clock.Armed(); len(armed) != 0 {
			t.Fatalf("timers still armed after Close: %v", armed)
		}
	})
	t.Run("while reading", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		dir := statusDir(t)
		w, err := New(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		writer := make(chan struct{})
		go func() {
			defer close(writer)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := writeRecord(dir, statusfile.Status{Session: fmt.Sprintf("s%d", i%10), Title: fmt.Sprint(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		n := 0
		for ev := range w.Events() {
			if n++; n == 100 {
				go w.Close()
			}
			_ = ev
		}
		close(stop)
		<-writer
	})
}
