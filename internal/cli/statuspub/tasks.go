package statuspub

import (
	"encoding/json"
	"strconv"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Claude Code's task tools (TaskCreate, TaskUpdate, and the TaskCreated and
// TaskCompleted hook events) replace TodoWrite in newer versions. Unlike
// TodoWrite, which rewrites the whole list, they change one task at a time,
// and TaskUpdate names the task by id only. So the adapter keeps the
// session's tasks (id, subject, status) between hooks in a dot-file next to
// the record, .<hash>.tasks, read and written under the write lock and
// removed with the record.

// taskOp is one change to a session's task list.
type taskOp struct {
	id         string
	create     bool
	subject    string // "" leaves it
	activeForm string // "" leaves it
	status     string // "" leaves it; "deleted" removes the task
}

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
func (l *taskList) apply(op taskOp) *string {
	i := -1
	for j := range l.Tasks {
		if l.Tasks[j].ID == op.id {
			i = j
			break
		}
	}
	if i < 0 && op.status != "deleted" {
		status := "pending"
		if op.status != "" {
			status = op.status
		}
		l.Tasks = append(l.Tasks, taskEntry{ID: op.id, Status: status})
		l.trim()
		i = l.index(op.id)
	}
	if i >= 0 {
		t := &l.Tasks[i]
		if op.subject != "" {
			t.Subject = statusfile.SanitizeTitle(op.subject)
		}
		if op.activeForm != "" {
			t.ActiveForm = statusfile.SanitizeTitle(op.activeForm)
		}
		switch op.status {
		case "":
		case "deleted":
			l.Tasks = append(l.Tasks[:i], l.Tasks[i+1:]...)
		default:
			t.Status = op.status
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

// taskID reads a task id, a JSON string or number.
func taskID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := strconv.ParseFloat(string(n), 64); err == nil {
			return string(n)
		}
	}
	return ""
}

// taskToolOp returns the task change of a task tool's PostToolUse, or nil.
// TaskCreate's input has the subject and its response the new task's id;
// TaskUpdate's input names the task (taskId; some models send id or
// task_id) and what changes.
func taskToolOp(tool string, input, response json.RawMessage) *taskOp {
	var in struct {
		TaskID     json.RawMessage `json:"taskId"`
		ID         json.RawMessage `json:"id"`
		TaskID2    json.RawMessage `json:"task_id"`
		Subject    string          `json:"subject"`
		ActiveForm string          `json:"activeForm"`
		Status     string          `json:"status"`
	}
	if len(input) == 0 || json.Unmarshal(input, &in) != nil {
		return nil
	}
	switch tool {
	case "TaskCreate":
		var out struct {
			Task struct {
				ID      json.RawMessage `json:"id"`
				Subject string          `json:"subject"`
			} `json:"task"`
		}
		if len(response) == 0 || json.Unmarshal(response, &out) != nil {
			return nil
		}
		id := taskID(out.Task.ID)
		if id == "" {
			return nil
		}
		subject := in.Subject
		if subject == "" {
			subject = out.Task.Subject
		}
		return &taskOp{id: id, create: true, subject: subject, activeForm: in.ActiveForm}
	case "TaskUpdate":
		id := taskID(in.TaskID)
		if id == "" {
			id = taskID(in.ID)
		}
		if id == "" {
			id = taskID(in.TaskID2)
		}
		if id == "" {
			return nil
		}
		switch in.Status {
		case "", "pending", "in_progress", "completed", "deleted":
		default:
			in.Status = "" // a status this version does not know
		}
		return &taskOp{id: id, subject: in.Subject, activeForm: in.ActiveForm, status: in.Status}
	}
	return nil
}
