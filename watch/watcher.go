package watch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/reader"
)

// Watcher watches one status directory and delivers its changes as
// [Event] values on [Watcher.Events]. See the package documentation for the
// event model.
type Watcher struct {
	cfg    Options         // defaults filled in; RescanInterval 0: no rescans
	path   string          // the status directory, absolute and clean
	parent string          // its parent, the config home
	chain  map[string]bool // path and every ancestor of it
	src    source

	out     chan Event
	stop    chan struct{}
	done    chan struct{}
	settleC chan chan int // tests: see settle

	closeOnce sync.Once
	closeErr  error

	// Owned by the run goroutine.
	now       time.Time // the time reads are judged at
	seq       uint64
	synced    bool
	pending   []Event // made, not yet delivered
	sent      int     // pending[:sent] are delivered
	known     map[string]*tracked
	deadlines deadlines
	dirty     []string // names to read again, in the order first seen
	dirtySet  map[string]struct{}
	dirDirty  bool // the directory or an ancestor changed: reconcile
	expireDue bool // the staleness timer fired
	dir       *reader.Dir
	missing   bool        // the status directory does not exist
	anc       string      // the watched ancestor (the parent, or higher while it is missing)
	ancInfo   fs.FileInfo // its identity when it was added
	dirErr    string      // the last error reported about the directory
	ancErr    string      // the last error reported about watching an ancestor
	addErr    string      // the last error reported about watching the directory
	srcEvents <-chan fsnotify.Event
	srcErrors <-chan error

	staleTimer  clock.Timer
	staleAt     time.Time
	staleC      <-chan time.Time
	rescanTimer clock.Timer
	rescanC     <-chan time.Time
}

// New starts watching the status directory dir. The directory need not
// exist: the watcher waits for it (see the package documentation for how).
// New returns an error only when it cannot start at all, e.g. when the
// system refuses another inotify instance; everything that happens in the
// directory later is reported as events.
func New(dir string, o Options) (*Watcher, error) {
	return newWatcher(dir, o, newFSSource)
}

// newWatcher is [New] with the source of notifications tests choose.
func newWatcher(dir string, o Options, newSource func() (source, error)) (*Watcher, error) {
	o.RescanInterval = max(cmp.Or(o.RescanInterval, defaultRescanInterval), 0) // negative: off
	o.Clock = cmp.Or(o.Clock, clock.System)
	path, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	src, err := newSource()
	if err != nil {
		return nil, err
	}
	w := &Watcher{
		cfg:       o,
		path:      path,
		parent:    filepath.Dir(path),
		chain:     map[string]bool{},
		src:       src,
		out:       make(chan Event),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		settleC:   make(chan chan int),
		known:     map[string]*tracked{},
		dirtySet:  map[string]struct{}{},
		srcEvents: src.Events(),
		srcErrors: src.Errors(),
	}
	for p := path; !w.chain[p]; p = filepath.Dir(p) { // up to the root, its own parent
		w.chain[p] = true
	}
	go w.run()
	return w, nil
}

// Events returns the channel the events arrive on. It is closed by
// [Watcher.Close]. A consumer that does not read holds the watcher back but
// loses nothing: meanwhile the watcher only notes which files changed, and
// reads them when the consumer is ready.
func (w *Watcher) Events() <-chan Event { return w.out }

// Close stops the watcher and waits until its goroutines (and fsnotify's)
// have ended; the Events channel is then closed. Events not yet delivered
// are dropped. Close may be called more than once, from any goroutine.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.done
	})
	return w.closeErr
}

func (w *Watcher) run() {
	defer func() {
		w.stopTimer(&w.staleTimer, &w.staleC)
		w.stopTimer(&w.rescanTimer, &w.rescanC)
		if w.dir != nil {
			w.dir.Close()
		}
		if err := w.src.Close(); err != nil {
			w.closeErr = err
		}
		close(w.out)
		close(w.done)
	}()

	w.reconcile()
	w.synced = true
	w.emit(Event{Kind: Synced, At: w.now, Missing: w.missing}) // reconcile armed the rescan
	w.arm()

	for {
		if w.sent == len(w.pending) && w.hasWork() {
			select {
			case <-w.stop:
				return
			default:
			}
			w.work()
			continue
		}
		var out chan<- Event
		var head Event
		if w.sent < len(w.pending) {
			out, head = w.out, w.pending[w.sent]
		}
		select {
		case <-w.stop:
			return
		case out <- head:
			w.delivered()
		case ev, ok := <-w.srcEvents:
			w.note(ev, ok)
		case err, ok := <-w.srcErrors:
			w.noteErr(err, ok)
		case <-w.staleC:
			w.staleTimer, w.staleC, w.expireDue = nil, nil, true
		case <-w.rescanC:
			w.rescanTimer, w.rescanC, w.dirDirty = nil, nil, true
		case reply := <-w.settleC:
			w.settle()
			reply <- len(w.pending) - w.sent
		}
	}
}

func (w *Watcher) hasWork() bool {
	return len(w.dirty) > 0 || w.dirDirty || w.expireDue
}

// work does what the notifications and timers asked for. It first takes
// in every notification already waiting, so that a burst of them for one
// file costs one read.
func (w *Watcher) work() {
	w.drain()
	// Files first, then the directory: files removed before their
	// directory (rm -r) are reported as deleted, each.
	for _, name := range w.dirty {
		if w.dir == nil {
			break // no directory: nothing to read, reconcile decides
		}
		w.now = w.cfg.Clock.Now()
		if e, ok := w.dir.Read(name); ok {
			w.update(name, &e, "", w.now)
		} else {
			w.update(name, nil, reasonDeleted, w.now)
		}
	}
	clear(w.dirtySet)
	w.dirty = w.dirty[:0]
	if w.dirDirty {
		w.dirDirty = false
		w.reconcile()
	}
	w.expireDue = false
	w.now = w.cfg.Clock.Now()
	w.expire(w.now)
	w.arm()
}

// drain takes in the notifications and timers already waiting, without
// blocking.
func (w *Watcher) drain() {
	for range 1 << 16 {
		select {
		case ev, ok := <-w.srcEvents:
			w.note(ev, ok)
		case err, ok := <-w.srcErrors:
			w.noteErr(err, ok)
		case <-w.staleC:
			w.staleTimer, w.staleC, w.expireDue = nil, nil, true
		case <-w.rescanC:
			w.rescanTimer, w.rescanC, w.dirDirty = nil, nil, true
		default:
			return
		}
	}
}

// note files one fsnotify event: a status file to read again, or a change
// of the directory or one of its ancestors. Every other name is ignored,
// dot-files (the publishers' temporary files) among them.
func (w *Watcher) note(ev fsnotify.Event, ok bool) {
	if !ok {
		w.srcEvents = nil
		w.emit(Event{Kind: Error, At: w.cfg.Clock.Now(), Err: errors.New("file system notifications stopped; only rescans remain")})
		return
	}
	name := ev.Name
	if n := len(w.path); len(name) > n+1 && os.IsPathSeparator(name[n]) && strings.HasPrefix(name, w.path) {
		if base := name[n+1:]; safefs.IsStatusName(base) {
			if _, seen := w.dirtySet[base]; !seen {
				w.dirtySet[base] = struct{}{}
				w.dirty = append(w.dirty, base)
			}
		}
		return
	}
	if w.chain[name] && ev.Op != fsnotify.Write {
		// A Write on a directory (kqueue, Windows) only says its
		// entries changed; the entries' own events say which.
		w.dirDirty = true
	}
}

func (w *Watcher) noteErr(err error, ok bool) {
	if !ok {
		w.srcErrors = nil
		return
	}
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		// Notifications were lost: list everything again and report
		// only what really changed.
		w.dirDirty = true
		w.emit(Event{Kind: Error, At: w.cfg.Clock.Now(), Err: fmt.Errorf("%w: listing %s again", err, w.path)})
		return
	}
	w.emit(Event{Kind: Error, At: w.cfg.Clock.Now(), Err: err})
}

func (w *Watcher) emit(ev Event) {
	w.seq++
	ev.Seq = w.seq
	w.pending = append(w.pending, ev)
}

func (w *Watcher) delivered() {
	w.pending[w.sent] = Event{}
	w.sent++
	if w.sent == len(w.pending) {
		if cap(w.pending) > 1024 {
			w.pending = nil // a snapshot's worth: give it back
		} else {
			w.pending = w.pending[:0]
		}
		w.sent = 0
	}
}

// reportOnce emits err unless it is the error last reported in *last.
func (w *Watcher) reportOnce(last *string, err error) {
	if msg := err.Error(); msg != *last {
		*last = msg
		w.emit(Event{Kind: Error, At: w.cfg.Clock.Now(), Err: err})
	}
}

// arm keeps one timer armed no later than the earliest freshness boundary.
// When that boundary moves later (its record was rewritten: at every
// heartbeat of the oldest session), the timer is left as it is; it then
// fires early, finds nothing due, and is armed again for the boundary of
// the moment. That costs a wake-up every 20 s or so instead of a new timer
// at every heartbeat.
func (w *Watcher) arm() {
	if len(w.deadlines) == 0 {
		w.stopTimer(&w.staleTimer, &w.staleC)
		return
	}
	next := w.deadlines[0].next
	if w.staleTimer != nil && !w.staleAt.After(next) {
		return
	}
	w.stopTimer(&w.staleTimer, &w.staleC)
	w.staleTimer = w.cfg.Clock.NewTimer(next.Sub(w.cfg.Clock.Now()))
	w.staleAt, w.staleC = next, w.staleTimer.C()
}

// armRescan arms the safety rescan one interval from now.
func (w *Watcher) armRescan() {
	w.stopTimer(&w.rescanTimer, &w.rescanC)
	if w.cfg.RescanInterval > 0 {
		w.rescanTimer = w.cfg.Clock.NewTimer(w.cfg.RescanInterval)
		w.rescanC = w.rescanTimer.C()
	}
}

func (w *Watcher) stopTimer(t *clock.Timer, c *<-chan time.Time) {
	if *t != nil {
		(*t).Stop()
		*t, *c = nil, nil
	}
}

// settle does, at once, whatever the notifications and timers already
// delivered ask for. Tests call it (through the settle channel) after
// moving a fake clock, to know how many events that made.
func (w *Watcher) settle() {
	w.drain()
	if w.hasWork() {
		w.work()
	}
}

// batchClock is the clock of the watcher's reads: it reads w.now, the time
// the watcher took once for the batch of files it is reading, so that a
// batch is judged at one moment. Its timers are those of the watcher's
// clock. It is used on the run goroutine only.
type batchClock struct{ w *Watcher }

func (c batchClock) Now() time.Time { return c.w.now }

func (c batchClock) NewTimer(d time.Duration) clock.Timer { return c.w.cfg.Clock.NewTimer(d) }
