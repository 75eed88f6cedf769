package agenthook

import (
	"fmt"

	"github.com/agentstatus/agentstatus/statusfile"
)

// codexInput is the part of a Codex hook payload the mapping uses. Every
// event carries session_id, turn_id, cwd, transcript_path, model and
// permission_mode (https://developers.openai.com/codex/hooks, "Common input
// fields"; openai/codex codex-rs/hooks/src/schema.rs).
type codexInput struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	Source    string `json:"source"` // SessionStart
}

// Codex maps a Codex hook payload (SPEC.md §13.2):
//
//	SessionStart                         idle
//	UserPromptSubmit, PreToolUse,
//	  PostToolUse                        working
//	PermissionRequest                    blocked
//	Stop, StopFailure, Interrupt         idle
//	SessionEnd                           the record is removed
//	PreCompact, PostCompact,
//	  SubagentStart, SubagentStop        ignored: the turn goes on
//	anything else                        ignored
func Codex(data []byte) (Action, error) {
	var in codexInput
	if err := decodeObject(data, &in); err != nil {
		return Action{}, err
	}
	if in.SessionID == "" {
		return Action{}, fmt.Errorf("%w: no session_id", ErrBadInput)
	}
	a := base(in.SessionID, in.Cwd)
	switch in.Event {
	case "SessionStart":
		if in.Source == "compact" {
			return ignore(in.SessionID), nil
		}
		a.State = statusfile.Idle
	case "UserPromptSubmit", "PreToolUse", "PostToolUse":
		a.State = statusfile.Working
	case "PermissionRequest":
		a.State = statusfile.Blocked
	case "Stop", "StopFailure", "Interrupt":
		a.State = statusfile.Idle
	case "SessionEnd":
		return Action{Kind: Remove, Session: in.SessionID}, nil
	default:
		return ignore(in.SessionID), nil
	}
	return a, nil
}

// codexNotifyInput is the part of Codex's legacy notify payload the mapping
// uses. Its keys are kebab-case.
type codexNotifyInput struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread-id"`
	Cwd      string `json:"cwd"`
}

// CodexNotify maps the payload of Codex's legacy `notify` program, for
// versions without hooks: agent-turn-complete makes the session idle;
// agent-turn-start (sent by some older versions) makes it working; other
// types are ignored.
func CodexNotify(data []byte) (Action, error) {
	var in codexNotifyInput
	if err := decodeObject(data, &in); err != nil {
		return Action{}, err
	}
	if in.ThreadID == "" {
		return Action{}, fmt.Errorf("%w: no thread-id", ErrBadInput)
	}
	a := base(in.ThreadID, in.Cwd)
	switch in.Type {
	case "agent-turn-complete":
		a.State = statusfile.Idle
	case "agent-turn-start":
		a.State = statusfile.Working
	default:
		return ignore(in.ThreadID), nil
	}
	return a, nil
}
