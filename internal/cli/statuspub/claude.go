package statuspub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// A hookAction is what one agent event does to its session's record.
type hookAction struct {
	kind    actionKind
	session string
	cwd     string           // "" keeps the cwd
	state   statusfile.State // "" keeps the state
	title   *string          // nil keeps the title; "" means none
	task    *taskOp          // a change to the task list, whose title wins
}

type actionKind int

const (
	actIgnore actionKind = iota // nothing is written
	actSet                      // the record is updated
	actClear                    // the record is removed
)

func (k actionKind) String() string {
	switch k {
	case actSet:
		return "set"
	case actClear:
		return "clear"
	}
	return "ignore"
}

// ErrBadHookInput is returned for hook input that is not what the agent
// documents: not a JSON object, or without a session id.
var ErrBadHookInput = errors.New("statuspub: bad hook input")

// maxHookInput bounds the hook input read from stdin. PostToolUse payloads
// carry the tool's whole response, which can be large.
const maxHookInput = 64 << 20

// claudeInput is the part of a Claude Code hook payload the adapter uses.
// Every other field is ignored, so new versions can add fields.
type claudeInput struct {
	SessionID        string          `json:"session_id"`
	Cwd              string          `json:"cwd"`
	Event            string          `json:"hook_event_name"`
	Source           string          `json:"source"` // SessionStart
	ToolName         string          `json:"tool_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
	NotificationType string          `json:"notification_type"`
	Message          string          `json:"message"`
	TaskID           json.RawMessage `json:"task_id"`      // TaskCreated, TaskCompleted
	TaskSubject      string          `json:"task_subject"` // TaskCreated, TaskCompleted
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

// claudeAction decides what a Claude Code hook payload does:
//
//	SessionStart                         idle (source "compact": state kept)
//	UserPromptSubmit                     working
//	PreToolUse, PostToolUse              working; TodoWrite also sets the title,
//	                                     and so do TaskCreate and TaskUpdate
//	                                     (PostToolUse only)
//	PostToolUseFailure                   working
//	TaskCreated, TaskCompleted           state kept; the task list changes
//	PermissionRequest                    blocked
//	Notification, asking for permission
//	  or for an answer                   blocked
//	Notification idle_prompt             idle (waiting for a new prompt)
//	Notification, answer given           working
//	Stop, StopFailure                    idle
//	SessionEnd                           the record is removed
//	anything else                        ignored
//
// The title is the content of the first in_progress item of the latest
// TodoWrite, or none when no item is in progress; it is kept in the status
// file between hooks, since every hook is a new process. With the task
// tools, it is the subject of the first task in progress (see taskList).
func claudeAction(data []byte) (hookAction, error) {
	var in claudeInput
	if err := decodeObject(data, &in); err != nil {
		return hookAction{}, err
	}
	if in.SessionID == "" {
		return hookAction{}, fmt.Errorf("%w: no session_id", ErrBadHookInput)
	}
	a := hookAction{kind: actSet, session: in.SessionID}
	if filepath.IsAbs(in.Cwd) || strings.HasPrefix(in.Cwd, "/") {
		a.cwd = in.Cwd
	}
	switch in.Event {
	case "SessionStart":
		if in.Source != "compact" { // compaction can happen in the middle of a turn
			a.state = statusfile.Idle
		}
	case "UserPromptSubmit", "PostToolUseFailure":
		a.state = statusfile.Working
	case "PreToolUse", "PostToolUse":
		a.state = statusfile.Working
		switch in.ToolName {
		case "TodoWrite":
			a.title = todoTitle(in.ToolInput)
		case "TaskCreate", "TaskUpdate":
			if in.Event == "PostToolUse" {
				// Decoded again only here: tool responses can be large.
				var out struct {
					ToolResponse json.RawMessage `json:"tool_response"`
				}
				json.Unmarshal(data, &out)
				a.task = taskToolOp(in.ToolName, in.ToolInput, out.ToolResponse)
			}
		}
	case "TaskCreated", "TaskCompleted":
		id := taskID(in.TaskID)
		if id == "" {
			return hookAction{kind: actIgnore, session: in.SessionID}, nil
		}
		a.task = &taskOp{id: id, create: in.Event == "TaskCreated", subject: in.TaskSubject}
		if in.Event == "TaskCompleted" {
			a.task.status = "completed"
		}
	case "PermissionRequest":
		a.state = statusfile.Blocked
	case "Notification":
		st, ok := notificationState(in.NotificationType, in.Message)
		if !ok {
			return hookAction{kind: actIgnore, session: in.SessionID}, nil
		}
		a.state = st
	case "Stop", "StopFailure":
		a.state = statusfile.Idle
	case "SessionEnd":
		return hookAction{kind: actClear, session: in.SessionID}, nil
	default:
		return hookAction{kind: actIgnore, session: in.SessionID}, nil
	}
	return a, nil
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
		if t.Content != "" {
			return ptr(t.Content)
		}
		return ptr(t.ActiveForm)
	}
	return ptr("")
}

// notificationState maps a Notification to a state. notification_type is
// used when present; older versions send only the message, whose wording is
// then matched. ok is false for notifications that say nothing about the
// state (auth_success, agent_completed, ...).
func notificationState(typ, message string) (statusfile.State, bool) {
	switch typ {
	case "permission_prompt", "elicitation_dialog", "elicitation_url_dialog", "agent_needs_input":
		return statusfile.Blocked, true
	case "idle_prompt":
		return statusfile.Idle, true
	case "elicitation_complete", "elicitation_response":
		return statusfile.Working, true
	case "":
	default:
		return "", false
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

// decodeObject decodes one JSON object into v.
func decodeObject(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrBadHookInput)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %v", ErrBadHookInput, err)
	}
	return nil
}

// codexInput is the part of a Codex notify payload the adapter uses. Its
// keys are kebab-case.
type codexInput struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread-id"`
	Cwd      string `json:"cwd"`
}

// codexAction decides what a Codex notify payload does:
// agent-turn-complete makes the session idle; agent-turn-start (sent by
// some older versions) makes it working; other types are ignored.
func codexAction(data []byte) (hookAction, error) {
	var in codexInput
	if err := decodeObject(data, &in); err != nil {
		return hookAction{}, err
	}
	if in.ThreadID == "" {
		return hookAction{}, fmt.Errorf("%w: no thread-id", ErrBadHookInput)
	}
	a := hookAction{kind: actSet, session: in.ThreadID}
	if filepath.IsAbs(in.Cwd) || strings.HasPrefix(in.Cwd, "/") {
		a.cwd = in.Cwd
	}
	switch in.Type {
	case "agent-turn-complete":
		a.state = statusfile.Idle
	case "agent-turn-start":
		a.state = statusfile.Working
	default:
		return hookAction{kind: actIgnore, session: in.ThreadID}, nil
	}
	return a, nil
}
