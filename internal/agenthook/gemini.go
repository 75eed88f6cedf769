package agenthook

import (
	"encoding/json"
	"fmt"

	"github.com/agentstatus/agentstatus/statusfile"
)

// geminiInput is the part of a Gemini CLI hook payload the mapping uses.
// Every event carries session_id, transcript_path, cwd, hook_event_name and
// timestamp (https://geminicli.com/docs/hooks/reference, "Base input
// schema").
type geminiInput struct {
	SessionID        string          `json:"session_id"`
	Cwd              string          `json:"cwd"`
	Event            string          `json:"hook_event_name"`
	NotificationType string          `json:"notification_type"`
	ToolName         string          `json:"tool_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
}

// Gemini maps a Gemini CLI hook payload (SPEC.md §13.1):
//
//	SessionStart                         idle
//	BeforeAgent, BeforeTool, AfterTool   working; AfterTool of write_todos
//	                                     also sets the title
//	Notification ToolPermission          blocked
//	AfterAgent                           idle
//	SessionEnd                           the record is removed
//	BeforeModel, AfterModel,
//	  BeforeToolSelection, PreCompress   ignored: AfterModel fires for every
//	                                     streamed chunk, PreCompress mid-turn
//	anything else                        ignored
func Gemini(data []byte) (Action, error) {
	var in geminiInput
	if err := decodeObject(data, &in); err != nil {
		return Action{}, err
	}
	if in.SessionID == "" {
		return Action{}, fmt.Errorf("%w: no session_id", ErrBadInput)
	}
	a := base(in.SessionID, in.Cwd)
	switch in.Event {
	case "SessionStart":
		a.State = statusfile.Idle
	case "BeforeAgent", "BeforeTool", "AfterTool":
		a.State = statusfile.Working
		if in.Event == "AfterTool" && in.ToolName == "write_todos" {
			a.Title = geminiTodoTitle(in.ToolInput)
		}
	case "Notification":
		if in.NotificationType != "ToolPermission" {
			return ignore(in.SessionID), nil
		}
		a.State = statusfile.Blocked
	case "AfterAgent":
		a.State = statusfile.Idle
	case "SessionEnd":
		return Action{Kind: Remove, Session: in.SessionID}, nil
	default:
		return ignore(in.SessionID), nil
	}
	return a, nil
}

// geminiTodoTitle returns the title write_todos sets: the description of
// its in_progress item (the tool allows one), "" when none is in progress,
// nil (keep the title) when the input is not a todo list
// (https://geminicli.com/docs/tools/todos: todos[].description, status
// pending, in_progress, completed, cancelled or blocked).
func geminiTodoTitle(raw json.RawMessage) *string {
	var in struct {
		Todos []struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil || in.Todos == nil {
		return nil
	}
	for _, t := range in.Todos {
		if t.Status == "in_progress" {
			return ptr(t.Description)
		}
	}
	return ptr("")
}
