package agenthook

import (
	"encoding/json"
	"strconv"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Hooks are silent at some moments that change an agent's state: Claude
// Code runs no hook when the user denies a permission or presses Esc, and
// Codex none when a turn fails. Where the agent itself writes its state to
// a file, the session's heartbeat owner follows that file (SPEC.md §13.3).
// A Source names such a file; the functions below read it. They are pure,
// like the mappers.

// Source kinds.
const (
	// SourceClaudeSession is Claude Code's own session file,
	// <config dir>/sessions/<pid>.json, rewritten whole at every change of
	// its "status".
	SourceClaudeSession = "claude-session"
)

// A Source is a file the agent writes its state to.
type Source struct {
	Kind string `json:"kind"`
	Path string `json:"path"` // absolute
}

// Append reports whether the source is a log that only grows (read line by
// line from where it was left), rather than a file rewritten whole.
func (s Source) Append() bool { return false }

// SourceState reads the state a source's content says, for the session
// and the agent process pid. ok is false when the content says nothing
// this adapter can use: another session's, unknown, torn mid-write.
func SourceState(kind string, data []byte, session string, pid int) (st statusfile.State, ok bool) {
	switch kind {
	case SourceClaudeSession:
		return ClaudeSessionState(data, session, pid)
	}
	return "", false
}

// ClaudeSessionState reads Claude Code's session file (observed in
// 2.1.197 to 2.1.332; undocumented): {"pid":N,"sessionId":ID,...,
// "status":"idle"|"busy"|"waiting"|..., "waitingFor":"permission prompt"}.
// busy is working, waiting is blocked (a permission dialog, a question),
// idle is idle. Another status ("shell", seen for an instant while an
// interrupted tool is killed) says nothing. A file of another session or
// process says nothing either: after /clear the same process writes the
// next session's id.
func ClaudeSessionState(data []byte, session string, pid int) (statusfile.State, bool) {
	var f struct {
		PID       json.RawMessage `json:"pid"`
		SessionID string          `json:"sessionId"`
		Status    string          `json:"status"`
	}
	if json.Unmarshal(data, &f) != nil || f.SessionID != session {
		return "", false
	}
	if n, err := strconv.Atoi(string(f.PID)); err != nil || n != pid {
		return "", false
	}
	switch f.Status {
	case "busy":
		return statusfile.Working, true
	case "waiting":
		return statusfile.Blocked, true
	case "idle":
		return statusfile.Idle, true
	}
	return "", false
}
