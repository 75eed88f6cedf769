package agenthook

import (
	"fmt"

	"github.com/agentstatus/agentstatus/statusfile"
)

// geminiInput is the part of a Gemini CLI hook payload the mapping uses.
// Every event carries session_id, transcript_path, cwd, hook_event_name and
// timestamp (https://geminicli.com/docs/hooks/reference, "Base input
// schema").
type geminiInput struct {
	SessionID        string `json:"session_id"`
	Cwd              string `json:"cwd"`
	Event            string `json:"hook_event_name"`
	NotificationType string `json:"notification_type"`
}

// Gemini maps a Gemini CLI hook payload (SPEC.md §13.3):
//
//	SessionStart                         idle
//	BeforeAgent, BeforeTool, AfterTool   working
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
