package agenthook

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// claudeInput is the part of a Claude Code hook payload the mapping uses
// (https://docs.claude.com/en/docs/claude-code/hooks, "Hook input").
type claudeInput struct {
	claudeShape
	NotificationType string          `json:"notification_type"`
	Message          string          `json:"message"`
	TaskID           json.RawMessage `json:"task_id"`      // TaskCreated, TaskCompleted
	TaskSubject      string          `json:"task_subject"` // TaskCreated, TaskCompleted
	// Stop: the work in flight that will wake the session (2.1.332:
	// "running/pending + backgrounded"); absent in older versions.
	BackgroundTasks []claudeBackgroundTask `json:"background_tasks"`
}

// claudeBackgroundTask is one entry of Stop's background_tasks.
type claudeBackgroundTask struct {
	Type   string `json:"type"` // "subagent", "shell", "monitor", "workflow", ...
	Status string `json:"status"`
}

// Claude maps a Claude Code hook payload (SPEC.md §13.1):
//
//	SessionStart                         idle (source "compact": state kept)
//	UserPromptSubmit                     working
//	PreToolUse, PostToolUse              working; TodoWrite also sets the title,
//	                                     and so do TaskCreate and TaskUpdate
//	                                     (PostToolUse only)
//	PostToolUseFailure, PostToolBatch,
//	  PermissionDenied                   working (auto mode denied a tool:
//	                                     the turn goes on without it)
//	TaskCreated, TaskCompleted           state kept; the task list changes
//	PermissionRequest, Elicitation       blocked, waiting for the tool and
//	                                     its command, file or question
//	ElicitationResult                    working
//	Notification, asking for permission
//	  or for an answer                   blocked
//	Notification idle_prompt             idle (waiting for a new prompt)
//	Notification, answer given           working
//	Notification about other agents      ignored (agent_needs_input, agent_completed)
//	Stop                                 idle, ended done; working while its
//	                                     background_tasks run (subagents,
//	                                     shells), which wake the session
//	StopFailure                          idle, ended failed or rate_limited
//	                                     (its error kind)
//	SubagentStop, PreCompact, ...        ignored: not the session's own turn
//	SessionEnd                           the record is removed
//	anything else                        ignored
func Claude(data []byte) (Action, error) {
	var in claudeInput
	a, err := decode(data, &in, "session_id", &in.Cwd, &in.SessionID)
	if err != nil {
		return Action{}, err
	}
	switch in.Event {
	case "UserPromptSubmit", "PostToolUseFailure", "PostToolBatch", "ElicitationResult", "PermissionDenied":
		a.State = statusfile.Working
	case "PreToolUse", "PostToolUse":
		a.State = statusfile.Working
		switch in.ToolName {
		case "TodoWrite":
			a.Title = todoTitle(in.ToolInput)
		case "TaskCreate", "TaskUpdate":
			if in.Event == "PostToolUse" {
				// Decoded again only here: tool responses can be large.
				var out struct {
					ToolResponse json.RawMessage `json:"tool_response"`
				}
				json.Unmarshal(data, &out)
				a.Task = TaskToolOp(in.ToolName, in.ToolInput, out.ToolResponse)
			}
		}
	case "TaskCreated", "TaskCompleted":
		id := taskID(in.TaskID)
		if id == "" {
			return ignore(in.SessionID), nil
		}
		a.Task = &TaskOp{ID: id, Create: in.Event == "TaskCreated", Subject: in.TaskSubject}
		if in.Event == "TaskCompleted" {
			a.Task.Status = "completed"
		}
	case "Elicitation": // an MCP server asks the user
		a.State = statusfile.Blocked
		a.Waiting = statusfile.Waiting{Kind: "question", Detail: in.Message}
	case "Notification":
		st, ok := claudeNotification(in.NotificationType, in.Message)
		if !ok {
			return ignore(in.SessionID), nil
		}
		a.State = st
		if st == statusfile.Blocked {
			// Sent seconds after the PermissionRequest or Elicitation,
			// without the tool: the publisher keeps what they said.
			a.Waiting.Kind = "permission"
			if strings.HasPrefix(in.NotificationType, "elicitation") {
				a.Waiting.Kind = "question"
			}
		}
	case "Stop":
		a.State, a.Ended = statusfile.Idle, done
		a.Background = claudeBackground(in.BackgroundTasks)
		if *a.Background != (statusfile.Background{}) {
			// The turn is given up, but what it started runs on and
			// wakes the session when it ends: still at work.
			a.State, a.Ended = statusfile.Working, statusfile.Ended{}
		}
	default: // SessionStart, PermissionRequest, StopFailure, SessionEnd, ...
		return in.action(a), nil
	}
	return a, nil
}

// todoWriteInput is TodoWrite's tool_input: the whole list, rewritten by
// every call.
type todoWriteInput struct {
	Todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

// todoTitle returns the title TodoWrite's input sets: the content (else the
// activeForm) of its first in_progress item, "" when none is in progress,
// and nil (keep the title) when the input is not a todo list.
func todoTitle(raw json.RawMessage) *string {
	var in todoWriteInput
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil || in.Todos == nil {
		return nil
	}
	for _, t := range in.Todos {
		if t.Status != "in_progress" {
			continue
		}
		return ptr(cmp.Or(t.Content, t.ActiveForm))
	}
	return ptr("")
}

// claudeNotification maps a Notification to a state. notification_type is
// used when present; older versions send only the message, whose wording is
// then matched. ok is false for notifications that say nothing about this
// session's state: auth_success, and agent_needs_input and agent_completed,
// which describe other (background) agents.
func claudeNotification(typ, message string) (statusfile.State, bool) {
	if typ != "" {
		st, ok := map[string]statusfile.State{"permission_prompt": statusfile.Blocked, "elicitation_dialog": statusfile.Blocked,
			"elicitation_url_dialog": statusfile.Blocked, "idle_prompt": statusfile.Idle,
			"elicitation_complete": statusfile.Working, "elicitation_response": statusfile.Working}[typ]
		return st, ok
	}
	m := strings.ToLower(message)
	switch {
	case strings.Contains(m, "waiting for your input"):
		return statusfile.Idle, true
	case strings.Contains(m, "permission"), strings.Contains(m, "approv"),
		strings.Contains(m, "needs your attention"), strings.Contains(m, "wants to"):
		return statusfile.Blocked, true
	}
	return "", false
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

// TaskToolOp returns the task change of a task tool's PostToolUse, or nil.
// TaskCreate's input has the subject and its response the new task's id;
// TaskUpdate's input names the task (taskId; some models send id or
// task_id) and what changes.
func TaskToolOp(tool string, input, response json.RawMessage) *TaskOp {
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
		return &TaskOp{ID: id, Create: true, Subject: cmp.Or(in.Subject, out.Task.Subject), ActiveForm: in.ActiveForm}
	case "TaskUpdate":
		id := cmp.Or(taskID(in.TaskID), taskID(in.ID), taskID(in.TaskID2))
		if id == "" {
			return nil
		}
		switch in.Status {
		case "", "pending", "in_progress", "completed", "deleted":
		default:
			in.Status = "" // a status this version does not know
		}
		return &TaskOp{ID: id, Subject: in.Subject, ActiveForm: in.ActiveForm, Status: in.Status}
	}
	return nil
}

// claudeBackground counts the entries of Stop's background_tasks that are
// still in flight: subagents as agents, everything else (background
// shells, monitors, workflows) as tasks. Claude Code documents the list as
// the work that will wake the session when it ends.
func claudeBackground(tasks []claudeBackgroundTask) *statusfile.Background {
	var b statusfile.Background
	for _, t := range tasks {
		switch strings.ToLower(t.Status) {
		case "completed", "failed", "killed", "stopped", "cancelled", "canceled", "done":
			continue
		}
		if t.Type == "subagent" || t.Type == "agent" {
			b.Agents++
		} else {
			b.Tasks++
		}
	}
	return &b
}
