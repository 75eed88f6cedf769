package agenthook

import (
	"encoding/json"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// copilotInput is the part of a GitHub Copilot CLI hook payload the mapping
// uses. Copilot CLI sends one of two shapes, chosen by the event name in
// the hook configuration
// (https://docs.github.com/en/copilot/reference/hooks-reference, "Hook
// event input payloads"): for a PascalCase name (SessionStart,
// UserPromptSubmit, ...) the VS Code compatible shape, with
// hook_event_name and snake_case fields; for a camelCase name
// (sessionStart, ...) camelCase fields and no event name. statuspub
// install registers the PascalCase names, and the notification event,
// which has no PascalCase name but whose payload names itself
// ("Notification") and carries sessionId.
//
// The fields that say why a session waits or stopped (the record's reason
// keys): PermissionRequest's and PreToolUse's tool_name and tool_input
// (bash: command); Notification's notification_type and message;
// ErrorOccurred's error.name, error.message and error_context.
type copilotInput struct {
	hookBase
	SessionIDCamel   string `json:"sessionId"` // the notification event, and camelCase configurations
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`       // Notification
	ErrorContext     string `json:"error_context"` // ErrorOccurred
	Recoverable      bool   `json:"recoverable"`   // ErrorOccurred
	// Error is ErrorOccurred's {message, name, stack}; PostToolUseFailure's
	// is a string.
	Error json.RawMessage `json:"error"`
	// ParentAgentID is set on a subagent's own hooks (1.0.102: its
	// UserPromptSubmit, PreToolUse, PostToolUse and Stop), whose
	// session_id and agent_id are the subagent's id, not the session's.
	ParentAgentID string          `json:"parent_agent_id"`
	ToolName      string          `json:"tool_name"` // PreToolUse
	ToolInput     json.RawMessage `json:"tool_input"`
}

// Copilot maps a GitHub Copilot CLI hook payload (SPEC.md §13.1):
//
//	SessionStart                         idle
//	UserPromptSubmit, PreToolUse,
//	  PostToolUse, PostToolUseFailure    working
//	PreToolUse exit_plan_mode            blocked, waiting for permission:
//	                                     the plan's approval (plan mode),
//	                                     whose dialog no notification
//	                                     announces; the detail is the
//	                                     plan's first line. Its PostToolUse
//	                                     comes with the user's decision
//	Notification permission_prompt       blocked, waiting for permission;
//	                                     the detail is the message without
//	                                     its "Run command: " (1.0.102)
//	Notification elicitation_dialog      blocked, waiting for an answer
//	                                     (ask_user's question)
//	Stop                                 idle, done (agentStop)
//	ErrorOccurred of a model call,       working: the turn goes on, or
//	  recoverable                        ends in the session log. 1.0.102
//	                                     sends the same payload for each
//	                                     attempt it retries (HTTP 429) as
//	                                     for a failure that ends the turn
//	                                     (HTTP 400, or the last retry); only
//	                                     the latter is followed by the
//	                                     session log's session.error, which
//	                                     the owner follows (CopilotEventsEnded)
//	ErrorOccurred of a model call,       idle, failed: the turn cannot go
//	  not recoverable                    on, the message the detail
//	SessionEnd                           the record is removed
//	PermissionRequest                    ignored: it fires before Copilot's
//	                                     own rules and session approvals
//	                                     decide, so also for tools that run
//	                                     without asking
//	other Notifications (shell_completed,
//	  agent_completed, agent_idle, ...)  ignored: background work, not the
//	                                     session's own turn
//	SubagentStart, SubagentStop,
//	  PreCompact, ErrorOccurred of a
//	  tool or of the system              ignored: the turn goes on
//	a subagent's own events (with
//	  parent_agent_id)                   ignored: they name the subagent as
//	                                     their session, and its Stop does not
//	                                     end the session's turn; its dialogs
//	                                     come as the session's Notification
//	                                     and in the session's log
//	anything else, and camelCase
//	  payloads (no hook_event_name)      ignored
func Copilot(data []byte) (Action, error) {
	var in copilotInput
	a, err := decode(data, &in, "session_id", &in.Cwd, &in.SessionID, &in.SessionIDCamel)
	if err != nil {
		return Action{}, err
	}
	if in.ParentAgentID != "" {
		// A record of the subagent's own would stand beside the
		// session's for as long as the agent runs.
		return ignore(a.Session), nil
	}
	if in.Event == "PreToolUse" && in.ToolName == "exit_plan_mode" {
		// The dialog comes with the tool, and nothing else says it.
		var plan struct {
			Summary string `json:"summary"`
		}
		json.Unmarshal(in.ToolInput, &plan)
		first, _, _ := strings.Cut(strings.TrimSpace(plan.Summary), "\n")
		a.State = statusfile.Blocked
		a.Waiting = statusfile.Waiting{Kind: "permission", Tool: in.ToolName,
			Detail: strings.TrimSpace(strings.TrimLeft(first, "-*# "))}
		return a, nil
	}
	switch in.Event {
	case "SessionStart":
		a.State = statusfile.Idle
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure":
		a.State = statusfile.Working
	case "Notification":
		switch in.NotificationType {
		case "permission_prompt":
			a.State = statusfile.Blocked
			a.Waiting = statusfile.Waiting{Kind: "permission", Detail: strings.TrimPrefix(in.Message, "Run command: ")}
		case "elicitation_dialog":
			a.State = statusfile.Blocked
			a.Waiting = statusfile.Waiting{Kind: "question"}
		default:
			return ignore(a.Session), nil
		}
	case "Stop":
		a.State, a.Ended = statusfile.Idle, done
	case "ErrorOccurred":
		switch {
		case in.ErrorContext != "model_call":
			return ignore(a.Session), nil
		case in.Recoverable:
			// Nothing here tells a retry from the end (the error's
			// message is the provider's body, which need not name
			// its status): working until the answer's Stop or the
			// session log's session.error. Set, not ignored, so that
			// the record stays this turn's.
			a.State = statusfile.Working
			return a, nil
		}
		var e struct {
			Message string `json:"message"`
		}
		json.Unmarshal(in.Error, &e)
		a.State, a.Ended = statusfile.Idle, statusfile.Ended{Reason: "failed", Detail: e.Message}
	case "SessionEnd":
		return Action{Kind: Remove, Session: a.Session}, nil
	default:
		return ignore(a.Session), nil
	}
	return a, nil
}
