//go:build unix

package hooksession

import (
	"bufio"
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
// Change was seen and applied under the write lock (H12), so that of a
// hook and the file, whichever is newer wins.

// maxSourceFile bounds what is read of a source file; maxSourceLine, of
// one line of an append-only source.
const (
	maxSourceFile = 64 << 10
	maxSourceLine = agenthook.MaxCodexRolloutLine
)

// observed is one state read from a source, stamped when it was seen.
type observed struct {
	state statusfile.State
	stamp int64
	ended statusfile.Ended // with idle: how the turn ended
	// background, when not nil, is the work that runs outside the
	// agent's turn, as the source counts it (SPEC.md Y8); wait, with it
	// and blocked, the dialog the source says is open.
	background *statusfile.Background
	wait       statusfile.Waiting
	// tasksOnly says background counts the tasks alone (a
	// [agenthook.Source.Dir] source): the agents are the record's.
	tasksOnly bool
	// turnEnd says an idle is the end of the session's own turn, as
	// ended says, even while background work runs: that work never wakes
	// the agent ([agenthook.SourceBackgroundIdle]).
	turnEnd bool
}

// follower follows one source for one session and agent process.
type follower struct {
	src     agenthook.Source
	session string
	pid     int
	w       *fsnotify.Watcher
	out     chan observed
	done    chan struct{}

	// Of an append-only source: where the next unread line starts, in
	// the file with inode ino.
	off int64
	ino uint64
	// ended is how the turn ended, by the data of the last read that
	// mapped (SourceEnded); the loop's own.
	ended statusfile.Ended
	// bg counts background work from the lines of an append-only source
	// that says it (nil: none); background is what it last counted (nil:
	// nothing yet), which every later observation carries, since the
	// owner takes only the newest; wait is the dialog the line that
	// counted said was open, until a line with a state of its own.
	bg         agenthook.BackgroundFollower
	background *statusfile.Background
	wait       statusfile.Waiting
	// sf reads what a line says because of the lines before it (nil:
	// nothing), with the count of work that outlasts the turn without
	// bringing the agent back (Codex's subagents).
	sf agenthook.StateFollower
}

// follow starts following src. It returns nil when the source cannot be
// watched (its directory is missing: an older agent, an SDK session): the
// owner then goes on with hooks alone.
func follow(src agenthook.Source, session string, pid int) *follower {
	if !filepath.IsAbs(src.Path) || pid <= 0 {
		return nil
	}
	// The owner asks again every second while the directory is missing,
	// which for an SDK session is its whole life: a stat, not a watcher
	// made and closed each time.
	dir := filepath.Dir(src.Path)
	if src.Dir() {
		dir = src.Path
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil
	}
	f := &follower{src: src, session: session, pid: pid, w: w,
		out: make(chan observed, 1), done: make(chan struct{})}
	if src.Append() {
		f.bg = agenthook.SourceBackground(src.Kind)
		f.sf = agenthook.SourceFollower(src.Kind)
	}
	if src.Dir() {
		go f.loopDir()
	} else {
		go f.loop()
	}
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
	if f.src.Append() && f.bg != nil {
		f.countToEnd()
	} else if f.src.Append() {
		f.skipToEnd()
	} else if st, since, ok := f.read(); ok {
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
			read := f.read
			if f.src.Append() {
				read = f.readNew
			}
			st, since, ok := read()
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
			ob := observed{state: st, stamp: stamp, background: f.background, wait: f.wait,
				turnEnd: agenthook.SourceBackgroundIdle(f.src.Kind)}
			if st == statusfile.Idle {
				ob.ended = f.ended
			}
			f.out <- ob
		case _, ok := <-f.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// open opens the source: a regular file of this account, not through a
// link.
func (f *follower) open() (*os.File, unix.Stat_t, bool) {
	return openOwn(f.src.Path)
}

// readOwn reads path, a regular file of this account opened not through a
// link, up to maxSourceFile.
func readOwn(path string) ([]byte, bool) {
	file, _, ok := openOwn(path)
	if !ok {
		return nil, false
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxSourceFile))
	return data, err == nil
}

// openOwn opens path: a regular file of this account, not through a link.
func openOwn(path string) (*os.File, unix.Stat_t, bool) {
	var st unix.Stat_t
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, st, false
	}
	file := os.NewFile(uintptr(fd), path)
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
		file.Close()
		return nil, st, false
	}
	return file, st, true
}

// skipToEnd starts an append-only source where it ends now: what it holds
// already, the hooks have said.
func (f *follower) skipToEnd() {
	if file, st, ok := f.open(); ok {
		f.off, f.ino = st.Size, st.Ino
		file.Close()
	}
}

// maxCountBack bounds how much of an append-only source countToEnd reads:
// the end of a longer one.
const maxCountBack = 64 << 20

// countToEnd starts an append-only source that counts background work
// where it ends now, as skipToEnd, but counts what its lines say of that
// work on the way, saying nothing: work the agent started before the
// owner did (an owner killed and started again) still runs, and its end,
// or the session's next Stop, must find it counted. Only the source's
// last maxCountBack bytes are read, from the first line that begins in
// them.
func (f *follower) countToEnd() {
	file, st, ok := f.open()
	if !ok {
		return
	}
	defer file.Close()
	start := max(0, st.Size-maxCountBack)
	r := bufio.NewReaderSize(io.NewSectionReader(file, start, st.Size-start), 64<<10)
	pos, first := start, start > 0 // first: a line cut by start, not read
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		pos += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			if len(line) <= maxSourceLine {
				line = append(line, chunk...)
			}
			continue
		}
		if err != nil {
			break // an unfinished last line is read once finished
		}
		if line = append(line, chunk...); !first && len(line) <= maxSourceLine+1 {
			if bg, _, _, ok := f.bg.Line(line); ok {
				// What the owner before would have last counted: a
				// later end lowers it.
				f.background = &bg
			}
		}
		f.off, line, first = pos, line[:0], false
	}
	f.ino = st.Ino
	if f.off < start {
		f.off = start
	}
}

// readNew reads the complete lines appended since the last read, and
// returns what the last of them that says something says. A line longer
// than a source line may be is skipped unread; an unfinished last line is
// read again once it is finished. A file replaced (another inode) or cut
// short is followed from its end.
func (f *follower) readNew() (statusfile.State, string, bool) {
	file, st, ok := f.open()
	if !ok {
		return "", "", false
	}
	defer file.Close()
	switch {
	case f.ino == 0:
		// Made after following began (Codex makes its rollout with the
		// first prompt): all of it is news.
		f.ino = st.Ino
	case st.Ino != f.ino || st.Size < f.off:
		// Replaced or cut short: what it holds now is not news.
		f.off, f.ino = st.Size, st.Ino
		return "", "", false
	}
	var (
		found        bool
		state        statusfile.State
		since        string
		buf          = make([]byte, 64<<10)
		line         []byte
		lineStart    = f.off
		tooLong      bool
		pos          = f.off
		bytesAllowed = int64(64 << 20) // at most this much per change
	)
	for pos-f.off < bytesAllowed {
		n, err := file.ReadAt(buf, pos)
		for i := 0; i < n; i++ {
			if buf[i] != '\n' {
				if !tooLong {
					line = append(line, buf[i])
					if len(line) > maxSourceLine {
						tooLong, line = true, nil
					}
				}
				continue
			}
			if !tooLong {
				if s, sn, ok := agenthook.SourceState(f.src.Kind, line, f.session, f.pid); ok {
					found, state, since = true, s, sn
					f.ended = agenthook.SourceEnded(f.src.Kind, line)
					f.wait = statusfile.Waiting{}
				}
				if f.sf != nil {
					if st, bg, wait, sn, ok := f.sf.LineState(line); ok {
						// What the line says after the lines before it:
						// a dialog no hook announces, or a turn that work
						// outlasts (idle, counted), or the count alone.
						f.background, f.wait = &bg, wait
						if st != "" {
							state = st
						} else if !found {
							state = ""
						}
						found, since = true, sn
					}
				}
				if f.bg != nil {
					if bg, wait, sn, ok := f.bg.Line(line); ok {
						fewer := f.background != nil && bg != *f.background &&
							bg.Agents <= f.background.Agents && bg.Tasks <= f.background.Tasks
						f.background, f.wait = &bg, wait
						switch {
						case fewer:
							// Background work ended: the count changes,
							// and the state is for the turn the agent
							// takes next to say, through its hooks and
							// its lines. Read late, such a line comes
							// after that turn's Stop, and a working
							// taken from it would outlast the turn.
							if !found {
								state = ""
							}
							found, since = true, sn
						default:
							// Working, unless the source says a dialog
							// is open (a background subagent's outlasts
							// the turn that started it; S1): the agent
							// writes the dialog's line before it runs
							// the hook that announces it.
							found, state, since = true, statusfile.Working, sn
							if wait.Kind != "" {
								state = statusfile.Blocked
							}
						}
					}
				}
			}
			line, tooLong = line[:0], false
			lineStart = pos + int64(i) + 1
		}
		pos += int64(n)
		if err != nil {
			break
		}
	}
	f.off = lineStart
	return state, since, found
}

// read reads the source's state now.
func (f *follower) read() (statusfile.State, string, bool) {
	data, ok := readOwn(f.src.Path)
	if !ok {
		return "", "", false
	}
	f.ended = agenthook.SourceEnded(f.src.Kind, data)
	return agenthook.SourceState(f.src.Kind, data, f.session, f.pid)
}

// applyObserved writes what a source said into the record, under the write
// lock. After a clear started since it was seen, nothing; after a newer
// hook, its count of background work alone (the source's own), or, for a
// count of tasks that rose, what tasksObserved keeps. A subagent's dialog
// still open holds a change of state back.
func (o *owner) applyObserved(ob observed) {
	l, err := o.s.lockLive(ownerLockWait)
	if err != nil {
		return
	}
	defer l.Release()
	stamps := readStamps(l)
	stale := ob.stamp < stamps.State
	if ob.stamp < stamps.Cleared {
		return
	}
	rec, exists, err := o.s.read()
	if !exists || err != nil || rec.PID != o.agent.pid {
		return
	}
	if ob.tasksOnly {
		ob = tasksObserved(ob, rec, stale)
	} else if stale {
		// A hook started since has set the state; the count of work
		// outside the turn is the source's alone, and stands.
		ob.state = ""
	}
	if ob.state != "" {
		// The source is the session's own: a subagent's dialog still
		// open holds its change back (subagentHold).
		ch := Change{State: ob.state, Ended: ob.ended, Background: ob.background}
		held := stamps.Subagent
		stamps.holdSubagent(&ch, rec, true)
		if held != nil || stamps.Subagent != nil {
			defer func() { writeStamps(l, stamps) }()
		}
		ob.state, ob.ended = ch.State, ch.Ended
	}
	if ob.state == "" {
		// A count alone (background work ended or rose, read after a
		// newer hook, or held back): the state stays what the hooks and
		// the session's own lines made it.
		if ob.background != nil && rec.Background != *ob.background {
			rec.Background = *ob.background
			rec.UpdatedAt = time.Time{} // now
			o.s.write(rec)
		}
		return
	}
	stamps.State = max(stamps.State, ob.stamp) // a count that rose may be older (tasksObserved)
	if ob.background != nil && rec.Background != *ob.background {
		rec.Background = *ob.background
		if rec.State == ob.state {
			rec.UpdatedAt = time.Time{} // now
			if err := o.s.write(rec); err != nil {
				return
			}
		}
	}
	if ob.state == statusfile.Blocked && ob.wait.Kind != "" && (rec.State != statusfile.Blocked || rec.WaitingFor.Kind == "") {
		// The dialog a hook's end of the turn took off the record.
		rec.WaitingFor = ob.wait
		rec.WaitingFor.Since = time.Now()
		if rec.State == ob.state {
			rec.UpdatedAt = time.Time{} // now
			if err := o.s.write(rec); err != nil {
				return
			}
		}
	}
	if rec.State != ob.state {
		rec.State = ob.state
		rec.Ended = ob.ended
		if rec.Background != (statusfile.Background{}) && !ob.turnEnd {
			// A file that only goes idle (Claude Code's session file)
			// may go idle because background work ended (SPEC.md Y8),
			// not at the user's interrupt: the agent's next turn says
			// more.
			rec.Ended = statusfile.Ended{}
		}
		if rec.Ended.Reason != "" {
			rec.Ended.At = time.Now()
		}
		rec.UpdatedAt = time.Time{} // now
		if err := o.s.write(rec); err != nil {
			return
		}
	}
	writeStamps(l, stamps)
}
