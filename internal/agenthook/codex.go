package agenthook

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// codexInput is the part of a Codex hook payload the mapping uses. Every
// event carries session_id, cwd, transcript_path and hook_event_name; turn
// events add turn_id, model and permission_mode (recorded from Codex
// 0.171.0: testdata/codex/real-*.json); tool_name and tool_input come with
// PreToolUse, PostToolUse and PermissionRequest.
type codexInput struct {
	claudeShape
	// Transcript is the rollout file (SPEC.md §13.3), checked by the
	// caller with CodexRolloutPath before it is followed.
	Transcript string `json:"transcript_path"`
	// AgentID names the subagent whose event this is (0.171.0 sends a
	// subagent's hooks with the parent's session_id).
	AgentID string `json:"agent_id"`
}

// codexAskTool is Codex's ask-the-user tool. Its question shows as the tool
// starts, with no PermissionRequest (Codex 0.171.0, Plan mode), and its
// PostToolUse comes once the user has answered.
const codexAskTool = "request_user_input"

// Codex maps a Codex hook payload (SPEC.md §13.1):
//
//	SessionStart (startup, resume, clear)   idle, replacing the process's
//	                                        other sessions (/new, /clear);
//	                                        compact: ignored
//	UserPromptSubmit, PreToolUse,
//	  PostToolUse                           working
//	PreToolUse request_user_input           blocked: a question waits
//	PermissionRequest                       blocked, waiting for the tool
//	                                        and its command
//	Stop                                    idle, ended done
//	Interrupt                               idle, ended cancelled (Esc,
//	                                        also the denial of a permission)
//	StopFailure                             idle, ended failed or
//	                                        rate_limited (not sent by
//	                                        0.171.0; kept for versions that do)
//	SessionEnd                              the record is removed
//	PreCompact, PostCompact,
//	  SubagentStart, SubagentStop           ignored: the turn goes on
//	anything else                           ignored
//
// An event with agent_id is a subagent's (spawn_agent), under the
// session's id: mapped as the session's, and marked Subagent, so that the
// publisher lets it say only what its dialog does (hooksession).
//
// A failed turn (the model's HTTP error) runs no hook in 0.171.0: the
// rollout file says it ([CodexRolloutEvent]).
func Codex(data []byte) (Action, error) {
	var in codexInput
	a, err := decode(data, &in, "session_id", &in.Cwd, &in.SessionID)
	if err != nil {
		return Action{}, err
	}
	if filepath.IsAbs(in.Transcript) {
		a.Source = &Source{Kind: SourceCodexRollout, Path: in.Transcript}
	}
	a.Subagent = in.AgentID != ""
	a.BackgroundIdle = true
	switch in.Event {
	case "SessionStart":
		if in.Source == "compact" {
			return ignore(in.SessionID), nil
		}
		a.State = statusfile.Idle
		// The TUI shows one thread: /clear (source clear) and /new
		// (source startup, a new session id in the same process) start
		// another, /resume switches to one, and the thread left stays
		// loaded, with no SessionEnd, for about 60 s (0.171.0). A real
		// start has no other session in its process, and the daemon,
		// which serves several TUIs, is left alone (EndOtherSessions).
		a.Replaces = true
	case "PreToolUse":
		a.State = statusfile.Working
		if in.ToolName == codexAskTool {
			a.State = statusfile.Blocked
			a.Waiting = permission(in.ToolName, in.ToolInput)
		}
	case "UserPromptSubmit", "PostToolUse":
		a.State = statusfile.Working
	case "Interrupt": // Esc, or a denied permission
		a.State, a.Ended = statusfile.Idle, cancelled
	default: // PermissionRequest, Stop, StopFailure, SessionEnd, ...
		return in.action(a), nil
	}
	return a, nil
}

// CodexRolloutState is CodexRolloutEvent in the shape of SourceState, for
// the heartbeat owner following the rollout file as an append-only source
// (one complete line at a time, from the end the file had when the owner
// began: earlier lines are what the hooks already said). since is the
// line's "ordinal", which grows by one with every line Codex appends, so
// every line that maps is a transition of its own. The file is the
// session's own (its name ends in the session id, CodexRolloutPath), and
// pid plays no part.
func CodexRolloutState(line []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	st, ok = CodexRolloutEvent(line)
	if !ok {
		return "", "", false
	}
	var l struct {
		Ordinal json.RawMessage `json:"ordinal"`
	}
	json.Unmarshal(bytes.TrimSpace(line), &l)
	return st, string(l.Ordinal), true
}

// CodexRolloutPath checks the transcript_path of a Codex hook payload
// before the owner follows it (SPEC.md H17: a source lies where the
// agent's own configuration says, never where a payload alone says): an
// absolute, clean path under codexHome/sessions/ ($CODEX_HOME, else
// ~/.codex) whose name is rollout-<time>-<session>.jsonl, as Codex 0.171.0
// names it (~/.codex/sessions/YYYY/MM/DD/rollout-2026-12-01T13-01-04-<id>.jsonl).
func CodexRolloutPath(codexHome, transcriptPath, session string) (string, bool) {
	if session == "" || strings.ContainsAny(session, "/\\") || !filepath.IsAbs(codexHome) ||
		!namedIn(filepath.Join(filepath.Clean(codexHome), "sessions"), transcriptPath, "rollout-", "-"+session+".jsonl") {
		return "", false
	}
	return transcriptPath, true
}

// namedIn reports whether path is absolute, clean, under dir and has a
// name with prefix and suffix.
func namedIn(dir, path, prefix, suffix string) bool {
	name := filepath.Base(path)
	return filepath.IsAbs(path) && filepath.Clean(path) == path && strings.HasPrefix(path, dir+string(filepath.Separator)) &&
		strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix)
}

// codexRolloutLine is the part of one line of Codex's rollout file (the
// hooks' transcript_path) that CodexRolloutEvent reads.
type codexRolloutLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type   string `json:"type"`
		Reason string `json:"reason"` // turn_aborted: "interrupted", ...
		Error  *struct {
			Message string          `json:"message"`
			Info    json.RawMessage `json:"codex_error_info"` // "internal_server_error", or {"kind":{...}}
		} `json:"error"`
	} `json:"payload"`
}

// CodexRolloutEnded is how the turn ended that a rollout line for which
// CodexRolloutEvent says idle reports: turn_aborted is cancelled (its
// reason as detail, unless it is "interrupted", Esc's); task_complete is
// done, or failed (rate_limited for a usage limit) with its
// codex_error_info, else its message, as detail.
func CodexRolloutEnded(line []byte) statusfile.Ended {
	var l codexRolloutLine
	if json.Unmarshal(bytes.TrimSpace(line), &l) != nil {
		return statusfile.Ended{}
	}
	switch p := l.Payload; {
	case p.Type == "turn_aborted":
		e := cancelled
		if p.Reason != "interrupted" {
			e.Detail = p.Reason
		}
		return e
	case p.Type == "task_complete" && p.Error != nil:
		var kind string
		if json.Unmarshal(p.Error.Info, &kind) != nil {
			var m map[string]json.RawMessage
			json.Unmarshal(p.Error.Info, &m)
			for k := range m {
				kind = k // one key: the kind, with its fields
			}
		}
		if kind == "" {
			return statusfile.Ended{Reason: "failed", Detail: p.Error.Message}
		}
		return failure(kind)
	case p.Type == "task_complete":
		return done
	}
	return statusfile.Ended{}
}

// MaxCodexRolloutLine is the longest rollout line worth parsing: the lines
// CodexRolloutEvent maps are small (a task_complete carries the turn's last
// message), while others (instructions, tool output) can be large. A
// follower may skip longer lines unread.
const MaxCodexRolloutLine = 1 << 20

// CodexRolloutEvent maps one complete line of a Codex rollout file
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, the hooks'
// transcript_path; JSON Lines, appended to) to the state it proves, for
// the moments Codex 0.171.0 runs no hook:
//
//	event_msg task_started      working: a task began, also one no hook
//	                            announces (/compact, written 3 ms after
//	                            the screen showed "Compacting context")
//	event_msg turn_aborted      idle: the turn was interrupted (Esc, a
//	                            denied permission), written 8-35 ms after
//	                            the screen
//	event_msg task_complete     idle: the turn ended; with an "error"
//	                            object it failed (the model's HTTP error),
//	                            which sends no Stop hook
//
// Every other line (and a line that is not a JSON object) gives ok false:
// it says nothing a hook does not say first.
func CodexRolloutEvent(line []byte) (state statusfile.State, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(line) > MaxCodexRolloutLine || line[0] != '{' {
		return "", false
	}
	var l codexRolloutLine
	if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" {
		return "", false
	}
	switch l.Payload.Type {
	case "task_started":
		return statusfile.Working, true
	case "turn_aborted", "task_complete":
		return statusfile.Idle, true
	}
	return "", false
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
	a, err := decode(data, &in, "thread-id", &in.Cwd, &in.ThreadID)
	if err != nil {
		return Action{}, err
	}
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
