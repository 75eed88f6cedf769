//go:build unix

package statuspub

import (
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// The heartbeat owner follows the file in which the agent itself keeps its
// state (SPEC.md §13.3), for the moments its hooks are silent. It never
// polls: fsnotify tells it when the file changes, and it reads the file
// then. What the file says is an update like a hook's, stamped when the
// change was seen and applied under the write lock (H12), so that of a
// hook and the file, whichever is newer wins.

// maxSourceFile bounds what is read of a source file.
const maxSourceFile = 64 << 10

// observed is one state read from a source, stamped when it was seen.
type observed struct {
	state statusfile.State
	stamp int64
}

// follower follows one source for one session and agent process.
type follower struct {
	src     agenthook.Source
	session string
	pid     int
	w       *fsnotify.Watcher
	out     chan observed
	done    chan struct{}
}

// follow starts following src. It returns nil when the source cannot be
// watched (its directory is missing: an older agent, an SDK session): the
// owner then goes on with hooks alone.
func follow(src agenthook.Source, session string, pid int) *follower {
	if !filepath.IsAbs(src.Path) || pid <= 0 {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	if err := w.Add(filepath.Dir(src.Path)); err != nil {
		w.Close()
		return nil
	}
	f := &follower{src: src, session: session, pid: pid, w: w,
		out: make(chan observed, 1), done: make(chan struct{})}
	go f.loop()
	return f
}

// stop ends the follower and waits for it.
func (f *follower) stop() {
	if f == nil {
		return
	}
	f.w.Close()
	<-f.done
}

// states is where what the follower reads arrives; nil for no follower.
func (f *follower) states() <-chan observed {
	if f == nil {
		return nil
	}
	return f.out
}

func (f *follower) loop() {
	defer close(f.done)
	// What the file says when following starts is what the hooks already
	// said: only its transitions are news.
	type mark struct {
		st    statusfile.State
		since string
	}
	var last mark
	if st, since, ok := f.read(); ok {
		last = mark{st, since}
	}
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			if ev.Name != f.src.Path || ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) == 0 {
				continue
			}
			stamp := issueStamp()
			st, since, ok := f.read()
			if !ok {
				// Rewritten in place: a read between the truncation and
				// the write finds a torn file, and the write's own event
				// follows.
				continue
			}
			if (mark{st, since}) == last {
				continue // rewritten for another reason
			}
			last = mark{st, since}
			// Only the newest matters: replace what the owner has not
			// taken yet.
			select {
			case <-f.out:
			default:
			}
			f.out <- observed{st, stamp}
		case _, ok := <-f.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// read reads the source's state now.
func (f *follower) read() (statusfile.State, string, bool) {
	fd, err := unix.Open(f.src.Path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return "", "", false
	}
	file := os.NewFile(uintptr(fd), f.src.Path)
	defer file.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
		return "", "", false
	}
	data, err := io.ReadAll(io.LimitReader(file, maxSourceFile))
	if err != nil {
		return "", "", false
	}
	return agenthook.SourceState(f.src.Kind, data, f.session, f.pid)
}

// applyObserved writes what a source said into the record, under the write
// lock, unless a newer update (a hook started after the change was seen,
// or a clear) has set the state since.
func (o *owner) applyObserved(ob observed) {
	l, err := o.s.lockWrite(ownerLockWait)
	if err != nil {
		return
	}
	defer l.release()
	if !o.s.stillThere() {
		return
	}
	stamps := l.readStamps()
	if ob.stamp < stamps.State || ob.stamp < stamps.Cleared {
		return
	}
	rec, exists, err := o.s.read()
	if !exists || err != nil || rec.PID != o.agent.pid {
		return
	}
	stamps.State = ob.stamp
	if rec.State != ob.state {
		rec.State = ob.state
		rec.UpdatedAt = time.Time{} // now
		if _, err := statusfile.WriteFileIn(o.s.pd, rec); err != nil {
			return
		}
	}
	l.writeStamps(stamps)
}
