package agenthook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// ErrBadInput is returned for a payload that is not what the agent
// documents: not a JSON object, or without a session id.
var ErrBadInput = errors.New("bad hook input")

// Kind is what an event does to the record.
type Kind int

const (
	Ignore Kind = iota // nothing is written
	Set                // the record is updated
	Remove             // the record is removed
)

func (k Kind) String() string {
	return cmp.Or(map[Kind]string{Set: "set", Remove: "remove"}[k], "ignore")
}

// Action is what one agent event does to its session's record.
type Action struct {
	Kind    Kind
	Session string
	Cwd     string           // "" keeps the cwd; always absolute otherwise
	State   statusfile.State // "" keeps the state
	Title   *string          // nil keeps the title; "" means none
	Task    *TaskOp          // a change to the task list, whose title wins
	// Source is a file the agent keeps its own state in, for the
	// session's heartbeat owner to follow (nil: none known from the
	// payload).
	Source *Source
	// Waiting says what a change to blocked waits for, Ended how a change
	// to idle ended the turn (SPEC.md §4.4); their zero values say
	// nothing. Times are left zero: the publisher stamps them.
	Waiting statusfile.Waiting
	Ended   statusfile.Ended
	// Background, when not nil, is the work the agent started that runs
	// outside its turn, as the event counts it (SPEC.md §4.4); nil keeps
	// what the record says.
	Background *statusfile.Background
	// TasksKept says that Background counts the agents alone: the
	// record's tasks, which the heartbeat owner counts from the agent's
	// own files (Qwen Code's background shells; SPEC.md §13.3), stay, and
	// while they run a turn's end is working (their end wakes the agent;
	// Y8).
	TasksKept bool
	// Replaces: the session replaces every other session of the same
	// agent process (Codex's /clear), whose records go, unless that
	// process serves several clients (Codex's app-server daemon).
	Replaces bool
	// Subagent: the event is a subagent's, sent under the session's id
	// (Codex's carry its agent_id). A subagent runs beside the session's
	// turn and may outlast it, so its events say nothing of that turn,
	// but its dialog shows on the session's screen: the publisher keeps
	// it blocked whatever order its hooks and the session's come in.
	Subagent bool
	// BackgroundIdle: the work the agent leaves running does not wake it
	// when it ends (Codex's subagents; SPEC.md Y8), so an end of the
	// user's turn while it runs is idle, as the event says.
	BackgroundIdle bool
	// DeniedInBackground: the change to blocked may be a background
	// agent's permission request, which the agent denies at once without
	// a dialog (Qwen Code 0.24.4): the publisher keeps the state while the
	// record counts background agents running.
	DeniedInBackground bool
}

// TaskOp is one change to a session's task list (Claude Code's task tools).
type TaskOp struct {
	ID         string
	Create     bool
	Subject    string // "" leaves it
	ActiveForm string // "" leaves it
	Status     string // "" leaves it; "deleted" removes the task
}

// A Mapper turns one hook payload into an Action.
type Mapper func(payload []byte) (Action, error)

// Agents lists the agents [ForAgent] knows, by the name their hook command
// and `statusconform hooks --agent` use.
var Agents = []string{"claude", "codex", "gemini", "copilot", "qwen"}

// ForAgent returns the mapper of the named agent ("claude", "codex",
// "gemini", "copilot", "qwen"; "codex-notify" for Codex's legacy notify
// program).
func ForAgent(name string) (Mapper, bool) {
	m, ok := map[string]Mapper{"claude": Claude, "claude-code": Claude, "codex": Codex, "codex-notify": CodexNotify,
		"gemini": Gemini, "copilot": Copilot, "qwen": Qwen}[name]
	return m, ok
}

// hookBase is what every hook payload carries, under the names Claude
// Code gave them.
type hookBase struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
}

// claudeShape is what Claude Code's hook payloads carry for the events
// that Codex and Qwen Code took from it, under the same names and with the
// same meaning.
type claudeShape struct {
	hookBase
	Source    string          `json:"source"` // SessionStart
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	Error     string          `json:"error"` // StopFailure: the error kind
}

// action maps the events Claude Code, Codex and Qwen Code share, as
// Claude Code means them (an agent maps first the events it treats
// otherwise):
//
//	SessionStart                         idle (source "compact": state kept)
//	PermissionRequest                    blocked, waiting for the tool and
//	                                     its command, file or question
//	Stop                                 idle, ended done
//	StopFailure                          idle, ended failed or rate_limited
//	                                     (its error kind)
//	SessionEnd                           the record is removed
//	anything else                        ignored
func (in *claudeShape) action(a Action) Action {
	switch in.Event {
	case "SessionStart":
		if in.Source != "compact" { // compaction can happen in the middle of a turn
			a.State = statusfile.Idle
		}
	case "PermissionRequest":
		a.State = statusfile.Blocked
		a.Waiting = permission(in.ToolName, in.ToolInput)
	case "Stop":
		a.State, a.Ended = statusfile.Idle, done
	case "StopFailure":
		a.State, a.Ended = statusfile.Idle, failure(in.Error)
	case "SessionEnd":
		return Action{Kind: Remove, Session: in.SessionID}
	default:
		return ignore(in.SessionID)
	}
	return a
}

// decode decodes a payload, one JSON object, into in, and starts its
// Action: the session, the first of ids not empty (none: an error naming
// key), and, when absolute, the cwd.
func decode(data []byte, in any, key string, cwd *string, ids ...*string) (Action, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return Action{}, fmt.Errorf("%w: not a JSON object", ErrBadInput)
	}
	if err := json.Unmarshal(data, in); err != nil {
		return Action{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	a := Action{Kind: Set}
	for _, id := range ids {
		a.Session = cmp.Or(a.Session, *id)
	}
	if a.Session == "" {
		return Action{}, fmt.Errorf("%w: no %s", ErrBadInput, key)
	}
	if filepath.IsAbs(*cwd) || strings.HasPrefix(*cwd, "/") {
		a.Cwd = *cwd
	}
	return a, nil
}

func ignore(session string) Action { return Action{Kind: Ignore, Session: session} }

func ptr[T any](v T) *T { return &v }
