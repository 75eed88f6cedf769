package watch

// Settle makes the watcher do at once whatever notifications and timers
// already delivered ask for, and returns how many events are waiting to be
// delivered. Tests call it after moving a fake clock.
func (w *Watcher) Settle() int {
	reply := make(chan int)
	select {
	case w.settleC <- reply:
		return <-reply
	case <-w.done:
		return 0
	}
}

// withSource replaces fsnotify with a source made by f.
func withSource(f func() (source, error)) Option {
	return optionFunc(func(c *config) { c.newSource = f })
}

// NewFSSource is the real source, for tests that wrap it.
var NewFSSource = newFSSource
