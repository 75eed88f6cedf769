//go:build linux

package watch

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"

	"github.com/agentstatus/agentstatus/internal/safefs"
)

// tapSource wraps the real fsnotify source. It can drop notifications
// (as the kernel does when its queue overflows, or as a lost event would),
// inject errors, and count what the watcher took.
type tapSource struct {
	real   source
	events chan fsnotify.Event
	errors chan error
	stop   chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	dropping bool
	until    string        // stop dropping after an event for this name
	resumed  chan struct{} // closed when it does
	added    map[string]bool

	statusEvents atomic.Int64 // status-file events the watcher received
}

func newTapSource() (*tapSource, error) {
	real, err := newFSSource()
	if err != nil {
		return nil, err
	}
	s := &tapSource{
		real:   real,
		events: make(chan fsnotify.Event),
		errors: make(chan error),
		stop:   make(chan struct{}),
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		for ev := range real.Events() {
			if s.drop(ev) {
				continue
			}
			select {
			case s.events <- ev:
				if safefs.IsStatusName(filepath.Base(ev.Name)) {
					s.statusEvents.Add(1)
				}
			case <-s.stop:
				return
			}
		}
	}()
	go func() {
		defer s.wg.Done()
		for err := range real.Errors() {
			select {
			case s.errors <- err:
			case <-s.stop:
				return
			}
		}
	}()
	return s, nil
}

// drop reports whether ev is to be dropped.
func (s *tapSource) drop(ev fsnotify.Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dropping {
		return false
	}
	if s.until != "" && strings.HasSuffix(ev.Name, string(filepath.Separator)+s.until) {
		s.dropping, s.until = false, ""
		close(s.resumed)
	}
	return true
}

// mute drops every notification from now on.
func (s *tapSource) mute() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropping = true
}

// resumeAfter keeps dropping until a notification for name (which the
// caller then creates) has gone by, and returns a channel closed then.
// Notifications are delivered in order, so every one before it was dropped.
func (s *tapSource) resumeAfter(name string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.until, s.resumed = name, make(chan struct{})
	return s.resumed
}

// inject delivers err to the watcher as if fsnotify had sent it.
func (s *tapSource) inject(err error) {
	select {
	case s.errors <- err:
	case <-s.stop:
	}
}

func (s *tapSource) Add(path string) error {
	err := s.real.Add(path)
	if err == nil {
		s.mu.Lock()
		if s.added == nil {
			s.added = map[string]bool{}
		}
		s.added[path] = true
		s.mu.Unlock()
	}
	return err
}

// watching reports whether path was ever added.
func (s *tapSource) watching(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.added[path]
}

func (s *tapSource) Remove(path string) error      { return s.real.Remove(path) }
func (s *tapSource) Events() <-chan fsnotify.Event { return s.events }
func (s *tapSource) Errors() <-chan error          { return s.errors }

func (s *tapSource) Close() error {
	err := s.real.Close()
	close(s.stop)
	s.wg.Wait()
	return err
}
