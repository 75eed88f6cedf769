package hooksession

import (
	"cmp"
	"slices"

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
	i := l.index(op.ID)
	if i < 0 && op.Status != "deleted" {
		l.Tasks = append(l.Tasks, taskEntry{ID: op.ID, Status: cmp.Or(op.Status, "pending")})
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
			l.Tasks = slices.Delete(l.Tasks, i, i+1)
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
	return slices.IndexFunc(l.Tasks, func(t taskEntry) bool { return t.ID == id })
}

// trim drops the oldest completed tasks, then the oldest, beyond maxTasks.
func (l *taskList) trim() {
	for len(l.Tasks) > maxTasks {
		drop := max(slices.IndexFunc(l.Tasks, func(t taskEntry) bool { return t.Status == "completed" }), 0)
		l.Tasks = slices.Delete(l.Tasks, drop, drop+1)
	}
}
