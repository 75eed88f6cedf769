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

type fsSource struct{ w *fsnotify.Watcher }

func newFSSource() (source, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsSource{w}, nil
}

func (s fsSource) Add(path string) error         { return s.w.Add(path) }
func (s fsSource) Remove(path string) error      { return s.w.Remove(path) }
func (s fsSource) Events() <-chan fsnotify.Event { return s.w.Events }
func (s fsSource) Errors() <-chan error          { return s.w.Errors }
func (s fsSource) Close() error                  { return s.w.Close() }
