package hooksession

import (
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Claude Code's task tools (TaskCreate, TaskUpdate, and the TaskCreated and
// TaskCompleted hook events) replace TodoWrite in newer versions. Unlike
// TodoWrite, which rewrites the whole list, they Change one task at a time,
// and TaskUpdate names the task by id only. So the adapter keeps the
// session's tasks (id, subject, status) between hooks in a dot-file next to
// the record, .<hash>.tasks, read and written under the write lock and
// removed with the record.

// taskEntry is one task of a session.
type taskEntry struct {
	ID         string `json:"id"`
	Subject    string `json:"subject,omitempty"`
	ActiveForm string `json:"activeForm,omitempty"`
	Status     string `json:"status"`
}

type taskList struct {
	Tasks []taskEntry `json:"tasks"`
}

// maxTasks bounds the list: the oldest finished tasks go first.
const maxTasks = 256

// apply changes the list and returns the title it implies: the subject
// (else the activeForm) of the first task in progress, in the order the
// tasks were created; "" when none is in progress; nil (keep the title)
// when the task in progress has neither.
func (l *taskList) apply(op agenthook.TaskOp) *string {
	i := -1
	for j := range l.Tasks {
		if l.Tasks[j].ID == op.ID {
			i = j
			break
		}
	}
	if i < 0 && op.Status != "deleted" {
		status := "pending"
		if op.Status != "" {
			status = op.Status
		}
		l.Tasks = append(l.Tasks, taskEntry{ID: op.ID, Status: status})
		l.trim()
		i = l.index(op.ID)
	}
	if i >= 0 {
		t := &l.Tasks[i]
		if op.Subject != "" {
			t.Subject = statusfile.SanitizeTitle(op.Subject)
		}
		if op.ActiveForm != "" {
			t.ActiveForm = statusfile.SanitizeTitle(op.ActiveForm)
		}
		switch op.Status {
		case "":
		case "deleted":
			l.Tasks = append(l.Tasks[:i], l.Tasks[i+1:]...)
		default:
			t.Status = op.Status
		}
	}
	for _, t := range l.Tasks {
		if t.Status != "in_progress" {
			continue
		}
		switch {
		case t.Subject != "":
			return ptr(t.Subject)
		case t.ActiveForm != "":
			return ptr(t.ActiveForm)
		}
		return nil
	}
	return ptr("")
}

func (l *taskList) index(id string) int {
	for j := range l.Tasks {
		if l.Tasks[j].ID == id {
			return j
		}
	}
	return -1
}

// trim drops the oldest completed tasks, then the oldest, beyond maxTasks.
func (l *taskList) trim() {
	for len(l.Tasks) > maxTasks {
		drop := 0
		for j, t := range l.Tasks {
			if t.Status == "completed" {
				drop = j
				break
			}
		}
		l.Tasks = append(l.Tasks[:drop], l.Tasks[drop+1:]...)
	}
}
