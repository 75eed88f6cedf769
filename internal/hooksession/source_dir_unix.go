//go:build unix

package hooksession

import (
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// A source that is a directory (agenthook.Source.Dir: Qwen Code's
// background shells) holds a file per piece of background work, which the
// agent rewrites whole when the work starts and ends. No hook counts that
// work, so the owner does: at each change of such a file it reads them all
// and counts the tasks that run (SPEC.md Y8).

// maxDirTasks bounds the files read in one count (Qwen Code 0.24.4 keeps
// at most 32 shells that have ended, and all that run).
const maxDirTasks = 1024

// loopDir follows a directory source. What it counts when following
// starts is news too: the hooks never count these tasks.
func (f *follower) loopDir() {
	defer close(f.done)
	last := 0
	count := func() {
		stamp := issueStamp()
		n := f.countTasks()
		if n == last {
			return
		}
		ob := observed{stamp: stamp, background: &statusfile.Background{Tasks: n}, tasksOnly: true}
		if n > last {
			// Work that outlives the turn began: working, when the turn
			// that started it has already ended (tasksObserved).
			ob.state = statusfile.Working
		}
		last = n
		// Only the newest matters: replace what the owner has not taken
		// yet.
		select {
		case <-f.out:
		default:
		}
		f.out <- ob
	}
	count()
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			if filepath.Dir(ev.Name) != f.src.Path || !agenthook.SourceTaskName(f.src.Kind, filepath.Base(ev.Name)) ||
				ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) == 0 {
				continue
			}
			count()
		case _, ok := <-f.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// countTasks counts the tasks of the directory that run: each file the
// source says runs, whose process (when it names one) is alive.
func (f *follower) countTasks() int {
	fd, err := unix.Open(f.src.Path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	d := os.NewFile(uintptr(fd), f.src.Path)
	defer d.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || int(st.Uid) != os.Geteuid() {
		return 0
	}
	names, _ := d.Readdirnames(maxDirTasks)
	n := 0
	for _, name := range names {
		if !agenthook.SourceTaskName(f.src.Kind, name) {
			continue
		}
		data, ok := readOwn(filepath.Join(f.src.Path, name))
		if !ok {
			continue
		}
		if running, pid, ok := agenthook.SourceTask(f.src.Kind, name, data); ok && running && (pid == 0 || ProcessExists(pid)) {
			n++
		}
	}
	return n
}

// tasksObserved is what a count of tasks alone (observed.tasksOnly) does to
// rec, for which stale reports that a hook started after the count was
// seen has set the state. The count replaces the record's whatever came
// since: nothing else counts these tasks. A count that rose makes the
// session working only when the turn that started the work has ended
// (rec is idle); during the turn its hooks say the state, and a dialog
// stays on. A newer hook that said idle wins, unless it ended the turn
// as done: that Stop (or the idle_prompt after it) would have kept the
// session working had it known the count (Change.TasksKept).
func tasksObserved(ob observed, rec statusfile.Status, stale bool) observed {
	bg := rec.Background
	bg.Tasks = ob.background.Tasks
	ob.background = &bg
	if rec.State != statusfile.Idle || stale && rec.Ended.Reason != "done" {
		ob.state = ""
	}
	return ob
}
