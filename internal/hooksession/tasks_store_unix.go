//go:build unix

package hooksession

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"golang.org/x/sys/unix"
)

// maxTasksFile bounds the task list file read.
const maxTasksFile = 1 << 20

// readTasks returns the session's task list; an absent, unsafe or
// unreadable file is an empty list. The caller holds the write lock.
func (s *sessionDir) readTasks() taskList {
	var l taskList
	fd, err := unix.Openat(s.fd, s.tasksName, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return l
	}
	f := os.NewFile(uintptr(fd), s.pathOf(s.tasksName))
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Size > maxTasksFile {
		return l
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTasksFile))
	if err != nil || json.Unmarshal(data, &l) != nil {
		return taskList{}
	}
	return l
}

// writeTasks replaces the session's task list: a temporary dot-file, mode
// 0600, renamed over it. The caller holds the write lock, so the temporary
// name is the session's own.
func (s *sessionDir) writeTasks(l taskList) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp := s.tasksName + tmpExt
	unix.Unlinkat(s.fd, tmp, 0) // left by a crash
	fd, err := unix.Openat(s.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(safefs.FileMode))
	if err != nil {
		return &fs.PathError{Op: "open", Path: s.pathOf(tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), s.pathOf(tmp))
	_, err = f.Write(data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(safefs.FileMode))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(s.fd, tmp, s.fd, s.tasksName)
	}
	if err != nil {
		unix.Unlinkat(s.fd, tmp, 0)
		return fmt.Errorf("task list %s: %w", s.pathOf(s.tasksName), err)
	}
	return nil
}

// removeTasks removes the session's task list. The caller holds the write
// lock.
func (s *sessionDir) removeTasks() {
	unix.Unlinkat(s.fd, s.tasksName, 0)
}
