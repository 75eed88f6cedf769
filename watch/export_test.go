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

// NewFSSource is the real source, for tests that wrap it.
var NewFSSource = newFSSource
