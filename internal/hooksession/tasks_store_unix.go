//go:build unix

package hooksession

import (
	"encoding/json"
	"fmt"

	"golang.org/x/sys/unix"
)

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
