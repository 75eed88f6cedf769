package watch

import "github.com/fsnotify/fsnotify"

// source is what a Watcher needs of fsnotify. Tests wrap the real one to
// drop notifications or inject errors such as fsnotify.ErrEventOverflow.
type source interface {
	Add(path string) error
	Remove(path string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	// Close stops the source; its goroutines are gone when it returns.
	Close() error
}

// fsSource is fsnotify's watcher, whose Add, Remove and Close are a
// source's, with methods for its two channels.
type fsSource struct{ *fsnotify.Watcher }

func newFSSource() (source, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsSource{w}, nil
}

func (s fsSource) Events() <-chan fsnotify.Event { return s.Watcher.Events }
func (s fsSource) Errors() <-chan error          { return s.Watcher.Errors }
