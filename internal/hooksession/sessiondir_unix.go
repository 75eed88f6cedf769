//go:build unix

package hooksession

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/statusfile"
	"golang.org/x/sys/unix"
)

// sessionDir is one session's place in a status directory opened through
// descriptors and checked.
type sessionDir struct {
	*safefs.PubDir
	session   string
	name      string // the status file
	writeName string // the write lock
	ownerName string // the owner lock
	tasksName string // the task list
}

// openSession checks the status directory dir as a publisher does and opens
// it through descriptors (safefs.OpenPublishDir: no path is looked up
// twice). With create, a missing config home and status directory are
// created first (SPEC.md P3); without, a missing directory is
// fs.ErrNotExist.
func openSession(dir, session string, create bool) (*sessionDir, error) {
	if err := statusfile.ValidateSession(session); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	pd, err := safefs.OpenPublishDir(dir, create)
	if err != nil {
		return nil, err
	}
	w, o, tasks := Names(statusfile.FileName(session))
	return &sessionDir{PubDir: pd, session: session, name: statusfile.FileName(session),
		writeName: w, ownerName: o, tasksName: tasks}, nil
}

func (s *sessionDir) pathOf(name string) string { return s.Path() + string(os.PathSeparator) + name }

// lockWrite takes the session's write lock, waiting at most timeout.
func (s *sessionDir) lockWrite(timeout time.Duration) (*safefs.Lock, error) {
	deadline := time.Now().Add(timeout)
	return s.LockFile(s.writeName, true, func(fd int) error { return safefs.FlockUntil(fd, deadline) })
}

// lockLive is lockWrite for a command that goes on only in the status
// directory its path still leads to: else it releases the lock and returns
// an error wrapping perm.ErrChanged. Writes go through the directory's
// descriptor, so they cannot be redirected; but a directory renamed or
// replaced is no longer the one readers of the path see, and a session
// there is left alone.
func (s *sessionDir) lockLive(timeout time.Duration) (*safefs.Lock, error) {
	l, err := s.lockWrite(timeout)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(s.Path()); err != nil || !os.SameFile(fi, s.Info()) {
		l.Release()
		return nil, &perm.Error{What: safefs.StatusDir, Path: s.Path(), Err: perm.ErrChanged}
	}
	return l, nil
}

// read returns the session's record on disk. exists is false when there
// is no file; err is set, with exists true, for a file that is there but
// cannot be read or is not a valid record of this session. It opens
// without following a link and without blocking, like a reader (SPEC.md
// R4–R7).
func (s *sessionDir) read() (rec statusfile.Status, exists bool, err error) {
	data, _, err := s.ReadFile(s.name, nil, statusfile.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, false, nil
	}
	if err != nil {
		return rec, true, err
	}
	path := s.pathOf(s.name)
	rec, err = statusfile.Decode(data)
	if err != nil {
		return rec, true, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Session != s.session {
		return rec, true, fmt.Errorf("%s: record of another session", path)
	}
	return rec, true, nil
}

// write is [statusfile.WriteFile] of rec, a record of the session, into
// the status directory held open. A zero rec.UpdatedAt is now.
func (s *sessionDir) write(rec statusfile.Status) error {
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = time.Now()
	}
	rec.UpdatedAt = rec.UpdatedAt.Truncate(time.Millisecond)
	data, err := statusfile.Encode(rec)
	if err != nil {
		return err
	}
	if _, err := s.Publish(s.name, data); err != nil {
		return fmt.Errorf("publish %s: %w", filepath.Join(s.Path(), s.name), err)
	}
	return nil
}

// removeRecord is [statusfile.RemoveFile] in the status directory held
// open.
func (s *sessionDir) removeRecord() error {
	if err := s.Remove(s.name); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Join(s.Path(), s.name), err)
	}
	return nil
}

// maxTasksFile bounds the task list file read.
const maxTasksFile = 1 << 20

// readTasks returns the session's task list; an absent, unsafe or
// unreadable file is an empty list. The caller holds the write lock.
func (s *sessionDir) readTasks() taskList {
	var l taskList
	data, _, err := s.ReadFile(s.tasksName, nil, maxTasksFile)
	if err != nil || json.Unmarshal(data, &l) != nil {
		return taskList{}
	}
	return l
}

// writeTasks replaces the session's task list as a record is replaced
// (safefs.PubDir.WriteFile). The caller holds the write lock, so the
// temporary name is the session's own.
func (s *sessionDir) writeTasks(l taskList) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp := s.tasksName + tmpExt
	unix.Unlinkat(s.Fd(), tmp, 0) // left by a crash
	if _, err := s.WriteFile(s.tasksName, tmp, data); err != nil {
		return fmt.Errorf("task list %s: %w", s.pathOf(s.tasksName), err)
	}
	return nil
}

// removeTasks removes the session's task list. The caller holds the write
// lock.
func (s *sessionDir) removeTasks() {
	unix.Unlinkat(s.Fd(), s.tasksName, 0)
}
