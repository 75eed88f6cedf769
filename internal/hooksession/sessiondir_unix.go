//go:build unix

package hooksession

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// openLockFile opens the lock file name in the directory, creating it (mode
// 0600 whatever the umask) when create. It refuses anything but a regular
// file of the current account, and never follows a link.
func (s *sessionDir) openLockFile(name string, create bool) (int, error) {
	const flags = unix.O_RDWR | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	for {
		fd, err := unix.Openat(s.fd, name, flags, 0)
		if err == unix.ENOENT && create {
			fd, err = unix.Openat(s.fd, name, flags|unix.O_CREAT|unix.O_EXCL, uint32(safefs.FileMode))
			if err == unix.EEXIST {
				continue // created meanwhile: open that one
			}
			if err == nil {
				if err := unix.Fchmod(fd, uint32(safefs.FileMode)); err != nil {
					unix.Close(fd)
					return -1, &fs.PathError{Op: "chmod", Path: s.pathOf(name), Err: err}
				}
			}
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if err == unix.ELOOP || err == unix.EMLINK {
				return -1, &perm.Error{What: "lock file", Path: s.pathOf(name), Err: perm.ErrSymlink}
			}
			return -1, &fs.PathError{Op: "open", Path: s.pathOf(name), Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, &fs.PathError{Op: "fstat", Path: s.pathOf(name), Err: err}
		}
		switch {
		case st.Mode&unix.S_IFMT != unix.S_IFREG:
			unix.Close(fd)
			return -1, &perm.Error{What: "lock file", Path: s.pathOf(name), Err: perm.ErrNotRegular}
		case int(st.Uid) != os.Geteuid():
			unix.Close(fd)
			return -1, &perm.Error{What: "lock file", Path: s.pathOf(name), Err: perm.ErrNotOwned,
				Detail: fmt.Sprintf("owner uid %d, current uid %d", st.Uid, os.Geteuid())}
		}
		return fd, nil
	}
}

// stillThere reports whether the status directory's path still leads to
// the directory opened. Writes go through the directory's descriptor, so
// they cannot be redirected; but a directory renamed or replaced is no
// longer the one readers of the path see, and a session there is left
// alone.
func (s *sessionDir) stillThere() bool {
	fi, err := os.Lstat(s.path)
	return err == nil && os.SameFile(fi, s.pd.Info())
}

// stillNamed reports whether name in the directory is still the file open
// as fd: a lock on a file that was unlinked meanwhile protects nothing.
func (s *sessionDir) stillNamed(fd int, name string) bool {
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Fstatat(s.fd, name, &b, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// A heldLock is a lock file this process holds.
type heldLock struct {
	s    *sessionDir
	name string
	fd   int
}

// release closes the lock file, which releases the lock.
func (l *heldLock) release() {
	if l != nil && l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

// releaseAndRemove removes the lock file's name, then releases it. Only a
// holder may remove a lock file: processes waiting for it notice that its
// name is gone and start again with a new one.
func (l *heldLock) releaseAndRemove() {
	if l != nil && l.fd >= 0 {
		unix.Unlinkat(l.s.fd, l.name, 0)
		l.release()
	}
}

// lock opens (creating it) the lock file name and takes it with take,
// until the name still leads to the file locked: a lock on a file that
// was unlinked meanwhile protects nothing.
func (s *sessionDir) lock(name string, take func(fd int) error) (*heldLock, error) {
	for {
		fd, err := s.openLockFile(name, true)
		if err != nil {
			return nil, err
		}
		if err := take(fd); err != nil {
			if !errors.Is(err, ErrLockTimeout) { // else fd is flockUntil's
				unix.Close(fd)
			}
			return nil, err
		}
		if s.stillNamed(fd, name) {
			return &heldLock{s: s, name: name, fd: fd}, nil
		}
		unix.Close(fd)
	}
}

// lockWrite takes the session's write lock, waiting at most timeout.
func (s *sessionDir) lockWrite(timeout time.Duration) (*heldLock, error) {
	deadline := time.Now().Add(timeout)
	return s.lock(s.writeName, func(fd int) error { return flockUntil(fd, deadline) })
}

// lockLive is lockWrite for a command that goes on only in the status
// directory its path still leads to (see stillThere): else it releases
// the lock and returns an error wrapping perm.ErrChanged.
func (s *sessionDir) lockLive(timeout time.Duration) (*heldLock, error) {
	l, err := s.lockWrite(timeout)
	if err == nil && !s.stillThere() {
		l.release()
		return nil, &perm.Error{What: safefs.StatusDir, Path: s.path, Err: perm.ErrChanged}
	}
	return l, err
}

// flockUntil takes an exclusive flock on fd, waiting until deadline. On
// timeout the wait goes on in the background and fd is closed when it
// ends, so the caller must not use or close fd. Exactly one side owns fd:
// the caller once flockUntil returned nil or another error, the waiting
// goroutine after ErrLockTimeout.
func flockUntil(fd int, deadline time.Time) error {
	if err := safefs.Flock(fd, false); err != unix.EWOULDBLOCK {
		return err
	}
	done, abandoned := make(chan error), make(chan struct{})
	go func() {
		err := safefs.Flock(fd, true)
		select {
		case done <- err:
		case <-abandoned:
			unix.Close(fd) // too late: nobody waits for this lock any more
		}
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		select {
		case err := <-done:
			return err // acquired (or failed) just now after all
		default:
			close(abandoned)
			return ErrLockTimeout
		}
	}
}

// errHeld is what tryOwnerLock's take returns when another process holds
// the owner lock.
var errHeld = errors.New("held by another process")

// tryOwnerLock takes the owner lock without waiting. It returns nil, nil
// when another process holds it.
func (s *sessionDir) tryOwnerLock() (*heldLock, error) {
	l, err := s.lock(s.ownerName, func(fd int) error {
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
		err := unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &lk)
		if err == unix.EAGAIN || err == unix.EACCES {
			return errHeld
		}
		if err != nil {
			return &fs.PathError{Op: "fcntl", Path: s.pathOf(s.ownerName), Err: err}
		}
		return nil
	})
	if err == errHeld {
		return nil, nil
	}
	return l, err
}

// ownerPID returns the pid of the process that holds the owner lock, 0
// when none does, and -1 when one does whose pid this process cannot see
// (another pid namespace).
//
// POSIX record locks belong to the process: closing any descriptor of the
// file drops the process's lock on it, so the owner itself must never
// call this.
func (s *sessionDir) ownerPID() (int, error) {
	fd, err := s.openLockFile(s.ownerName, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	defer unix.Close(fd)
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(uintptr(fd), unix.F_GETLK, &lk); err != nil {
		return 0, &fs.PathError{Op: "fcntl", Path: s.pathOf(s.ownerName), Err: err}
	}
	if lk.Type == unix.F_UNLCK {
		return 0, nil
	}
	if lk.Pid <= 0 {
		return -1, nil
	}
	return int(lk.Pid), nil
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
