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

// sessionDir is one session's place in an opened status directory.
type sessionDir struct {
	path      string         // the status directory, absolute
	pd        *safefs.PubDir // opened through descriptors, checked
	fd        int
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
	return &sessionDir{path: dir, pd: pd, fd: pd.Fd(), session: session, name: statusfile.FileName(session),
		writeName: w, ownerName: o, tasksName: tasks}, nil
}

func (s *sessionDir) Close() error { return s.pd.Close() }

func (s *sessionDir) pathOf(name string) string { return s.path + string(os.PathSeparator) + name }

// stillThere reports whether the status directory's path still leads to
// the directory opened. Writes go through the directory's descriptor, so
// they cannot be redirected; but a directory renamed or replaced is no
// longer the one readers of the path see, and a session there is left
// alone.
func (s *sessionDir) stillThere() bool {
	fi, err := os.Lstat(s.path)
	return err == nil && os.SameFile(fi, s.pd.Info())
}

// lockWrite takes the session's write lock, waiting at most timeout.
func (s *sessionDir) lockWrite(timeout time.Duration) (*safefs.Lock, error) {
	deadline := time.Now().Add(timeout)
	return s.pd.LockFile(s.writeName, true, func(fd int) error { return safefs.FlockUntil(fd, deadline) })
}

// lockLive is lockWrite for a command that goes on only in the status
// directory its path still leads to (see stillThere): else it releases
// the lock and returns an error wrapping perm.ErrChanged.
func (s *sessionDir) lockLive(timeout time.Duration) (*safefs.Lock, error) {
	l, err := s.lockWrite(timeout)
	if err == nil && !s.stillThere() {
		l.Release()
		return nil, &perm.Error{What: safefs.StatusDir, Path: s.path, Err: perm.ErrChanged}
	}
	return l, err
}

// tryOwnerLock takes the owner lock without waiting. It returns nil, nil
// when another process holds it.
func (s *sessionDir) tryOwnerLock() (*safefs.Lock, error) {
	return s.pd.LockFile(s.ownerName, true, func(fd int) error {
		err := safefs.RecordLock(fd, false)
		if err != nil && err != unix.EWOULDBLOCK {
			err = &fs.PathError{Op: "fcntl", Path: s.pathOf(s.ownerName), Err: err}
		}
		return err
	})
}

// read returns the session's record on disk. exists is false when there
// is no file; err is set, with exists true, for a file that is there but
// cannot be read or is not a valid record of this session. It opens
// without following a link and without blocking, like a reader (SPEC.md
// R4–R7).
func (s *sessionDir) read() (rec statusfile.Status, exists bool, err error) {
	data, _, err := s.pd.ReadFile(s.name, nil, statusfile.MaxFileSize)
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

// writeRecord is [statusfile.WriteFile] into the status directory the
// session holds open under its lock. A zero rec.UpdatedAt is now.
func writeRecord(d *safefs.PubDir, rec statusfile.Status) error {
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = time.Now()
	}
	rec.UpdatedAt = rec.UpdatedAt.Truncate(time.Millisecond)
	data, err := statusfile.Encode(rec)
	if err != nil {
		return err
	}
	name := statusfile.FileName(rec.Session)
	if _, err := d.Publish(name, data); err != nil {
		return fmt.Errorf("publish %s: %w", filepath.Join(d.Path(), name), err)
	}
	return nil
}

// removeRecord is [statusfile.RemoveFile] in the status directory the
// session holds open.
func removeRecord(d *safefs.PubDir, session string) error {
	name := statusfile.FileName(session)
	if err := d.Remove(name); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Join(d.Path(), name), err)
	}
	return nil
}

// maxTasksFile bounds the task list file read.
const maxTasksFile = 1 << 20

// readTasks returns the session's task list; an absent, unsafe or
// unreadable file is an empty list. The caller holds the write lock.
func (s *sessionDir) readTasks() taskList {
	var l taskList
	data, _, err := s.pd.ReadFile(s.tasksName, nil, maxTasksFile)
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
	unix.Unlinkat(s.fd, tmp, 0) // left by a crash
	if _, err := s.pd.WriteFile(s.tasksName, tmp, data); err != nil {
		return fmt.Errorf("task list %s: %w", s.pathOf(s.tasksName), err)
	}
	return nil
}

// removeTasks removes the session's task list. The caller holds the write
// lock.
func (s *sessionDir) removeTasks() {
	unix.Unlinkat(s.fd, s.tasksName, 0)
}
