package agenthook

import (
	"encoding/json"

	"github.com/agentstatus/agentstatus/statusfile"
)

// qwenInput is the part of a Qwen Code hook payload the mapping uses.
// Every event carries session_id, transcript_path, cwd, hook_event_name,
// timestamp and permission_mode (QwenLM/qwen-code docs/users/features/hooks.md,
// "Hook input"; packages/core/src/hooks/hookEventHandler.ts createBaseInput).
//
// The fields that say why a session waits or stopped (the record's reason
// keys): PermissionRequest's tool_name and tool_input (its command or
// file_path); Notification's notification_type and message; StopFailure's
// error (rate_limit, authentication_failed, billing_error,
// invalid_request, server_error, max_output_tokens, unknown) and
// error_details; PostToolUseFailure's is_interrupt.
type qwenInput struct {
	claudeShape
	NotificationType string `json:"notification_type"`
	// A subagent's events carry its agent_id (as do some of the session's
	// own after a background agent has ended).
	AgentID     string `json:"agent_id"`
	IsInterrupt bool   `json:"is_interrupt"` // PostToolUseFailure
	Trigger     string `json:"trigger"`      // PreCompact: manual (/compress) or auto
	// Stop: the session's background agents (0.24.4: id, status,
	// agent_type, started_at, description), finished ones too; background
	// shells are not listed.
	BackgroundTasks []struct {
		Status string `json:"status"`
	} `json:"background_tasks"`
	// PostToolUse: the tool's result; the agent tool's returnDisplay says
	// how the subagent runs (executionMode "background": launched, and
	// the call is done). Other tools' returnDisplay is text.
	ToolResponse struct {
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
	} `json:"tool_response"`
}

// backgroundLaunch reports whether in is the agent tool's PostToolUse for a
// subagent that runs in the background.
func (in *qwenInput) backgroundLaunch() bool {
	if in.Event != "PostToolUse" || in.ToolName != "agent" {
		return false
	}
	var d struct {
		ExecutionMode string `json:"executionMode"`
	}
	return json.Unmarshal(in.ToolResponse.ReturnDisplay, &d) == nil && d.ExecutionMode == "background"
}

// Qwen maps a Qwen Code hook payload (SPEC.md §13.1). Qwen Code's hooks
// are Claude Code's events under Claude Code's names:
//
//	SessionStart                         idle (source "compact": state kept)
//	UserPromptSubmit, PreToolUse,
//	  PostToolUse, PostToolBatch         working; the agent tool's
//	                                     PostToolUse for a background
//	                                     agent counts one background agent
//	PostToolUseFailure                   working; idle (cancelled) when the
//	                                     user interrupted the tool
//	                                     (is_interrupt), which the
//	                                     publisher keeps working while
//	                                     background work runs (SPEC.md Y8)
//	PermissionRequest                    blocked, waiting for permission to
//	                                     run tool_name (its command or file),
//	                                     or for an answer to
//	                                     ask_user_question's question: it
//	                                     fires just before the confirmation
//	                                     is shown; a subagent's (agent_id)
//	                                     leaves the session working while
//	                                     the record counts background
//	                                     agents: a background agent's tool
//	                                     that asks is denied at once, with
//	                                     no dialog
//	Notification permission_prompt       blocked
//	Notification idle_prompt             idle: the CLI is back at its prompt
//	                                     (also after Esc ends a turn); how
//	                                     the turn ended is not said: after
//	                                     Stop it stays "done"
//	Stop                                 idle, done; working while its
//	                                     background_tasks has agents
//	                                     running, or the record counts
//	                                     background shells (TasksKept),
//	                                     whose end starts a turn of Qwen
//	                                     Code's own (SPEC.md Y8)
//	StopFailure                          idle, failed (rate_limited for
//	                                     error rate_limit), the error kind
//	                                     as detail
//	SessionEnd                           the record is removed
//	PreCompact manual                    working: /compress, which runs no
//	                                     other hook until idle_prompt
//	other Notifications, PermissionDenied,
//	  SubagentStart, SubagentStop,
//	  PreCompact auto, PostCompact, Todo*,
//	  UserPromptExpansion, MessageDisplay,
//	  InstructionsLoaded, SessionDelete  ignored
//	anything else                        ignored
func Qwen(data []byte) (Action, error) {
	var in qwenInput
	a, err := decode(data, &in, "session_id", &in.Cwd, &in.SessionID)
	if err != nil {
		return Action{}, err
	}
	switch in.Event {
	case "PreCompact":
		if in.Trigger != "manual" { // auto: in the middle of a turn
			return ignore(in.SessionID), nil
		}
		// /compress, which runs no UserPromptSubmit; idle_prompt ends it.
		a.State = statusfile.Working
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch":
		a.State = statusfile.Working
		if in.backgroundLaunch() {
			// A background agent launched: it may ask before this
			// turn's Stop counts it (its PermissionRequest, which no
			// dialog follows, came 0.27 s after the Stop in the
			// harness). At least this one runs; the Stop counts them
			// all.
			a.Background, a.TasksKept = &statusfile.Background{Agents: 1}, true
		}
	case "PostToolUseFailure":
		a.State = statusfile.Working
		if in.IsInterrupt {
			a.State, a.Ended = statusfile.Idle, cancelled
		}
	case "Stop":
		a.State, a.Ended = statusfile.Idle, done
		// Shells are not listed: the owner counts them (QwenShellsPath).
		a.Background, a.TasksKept = &statusfile.Background{}, true
		for _, t := range in.BackgroundTasks {
			switch t.Status {
			case "completed", "failed", "cancelled":
			default: // running
				a.Background.Agents++
			}
		}
		if a.Background.Agents > 0 {
			a.State, a.Ended = statusfile.Working, statusfile.Ended{}
		}
	case "Notification":
		switch in.NotificationType {
		case "permission_prompt":
			// Just after PermissionRequest, without the tool: the
			// publisher keeps what that said.
			a.State = statusfile.Blocked
			a.Waiting.Kind = "permission"
		case "idle_prompt":
			// Right after a Stop that left background work running,
			// and after a denial in a turn of the user's while it
			// runs, the publisher keeps the session working (SPEC.md
			// Y8).
			a.State = statusfile.Idle
		default: // auth_success, and types a newer version adds
			return ignore(in.SessionID), nil
		}
	case "PermissionRequest":
		a = in.action(a)
		// 0.24.4 runs the hook for a background agent's tool too, then
		// denies the call unless the hook decided ("background agents
		// cannot prompt for confirmation"): no dialog, no
		// permission_prompt. A foreground subagent's shows one; the
		// publisher tells them apart by the background agents the
		// record counts (from their launch).
		a.DeniedInBackground = in.AgentID != ""
	default: // SessionStart, StopFailure, SessionEnd, ...
		return in.action(a), nil
	}
	return a, nil
}
