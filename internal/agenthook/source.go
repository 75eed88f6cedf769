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
	// SourceCodexRollout is Codex's rollout file, the hooks'
	// transcript_path: JSON Lines, only appended to.
	SourceCodexRollout = "codex-rollout"
	// SourceGeminiChat is Gemini CLI's chat recording, the hooks'
	// transcript_path: JSON Lines, only appended to.
	SourceGeminiChat = "gemini-chat"
	// SourceCopilotEvents is Copilot CLI's session log,
	// session-state/<id>/events.jsonl: JSON Lines, only appended to.
	SourceCopilotEvents = "copilot-events"
	// SourceQwenShells is the directory in which Qwen Code keeps its
	// background shells of one session ([QwenShellsPath]): a status file
	// per shell, rewritten whole.
	SourceQwenShells = "qwen-shells"
)

// A Source is a file the agent writes its state to.
type Source struct {
	Kind string `json:"kind"`
	Path string `json:"path"` // absolute
}

// Append reports whether the source is a log that only grows (read line by
// line from where it was left), rather than a file rewritten whole.
func (s Source) Append() bool {
	return s.Kind == SourceCodexRollout || s.Kind == SourceGeminiChat || s.Kind == SourceCopilotEvents
}

// Dir reports whether the source is a directory that holds a file per
// piece of background work the agent runs ([SourceTask]), rather than one
// file that says the session's state.
func (s Source) Dir() bool {
	return s.Kind == SourceQwenShells
}

// SourceTask reads one file of a [Source.Dir] source, named name in it.
// ok is false for a file that is no task's (another file, one torn, an
// unknown status); running reports that the task runs, and pid its
// process (0: not said), which the reader checks: a file the agent left
// when it was killed says running for ever.
func SourceTask(kind, name string, data []byte) (running bool, pid int, ok bool) {
	if SourceTaskName(kind, name) {
		return QwenShellStatus(data)
	}
	return false, 0, false
}

// SourceTaskName reports whether a file named name in a [Source.Dir]
// source of kind may be a task's, so worth reading.
func SourceTaskName(kind, name string) bool {
	return kind == SourceQwenShells && QwenShellName(name)
}

// SourceState reads the state a source's content says, for the session
// and the agent process pid: the whole file, or one complete line of an
// [Source.Append] source. ok is false when the content says nothing
// this adapter can use: another session's, unknown, torn mid-write.
// since tells transitions apart: it changes each time the agent changes
// the state, even to the state it had ("" where the source has no such
// mark). A file rewritten for another reason keeps it, and must not undo
// a newer hook.
func SourceState(kind string, data []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	switch kind {
	case SourceClaudeSession:
		return ClaudeSessionState(data, session, pid)
	case SourceCodexRollout:
		return CodexRolloutState(data, session, pid)
	case SourceGeminiChat:
		return GeminiChatState(data, session, pid)
	case SourceCopilotEvents:
		return CopilotEventsState(data, session, pid)
	}
	return "", "", false
}

// A BackgroundFollower reads, line by line of an append-only source, the
// work the agent started that runs outside its turn (SPEC.md Y8), where
// its hooks do not say it: ok reports a line after which the count is bg,
// and the record working, or blocked with wait when the source says a
// dialog is open; a line that lowers the count changes the count alone
// (the owner leaves the state to the turn the agent takes next). since is
// that line's mark.
type BackgroundFollower interface {
	Line(line []byte) (bg statusfile.Background, wait statusfile.Waiting, since string, ok bool)
}

// SourceBackground returns a new BackgroundFollower for a source of kind,
// or nil where the source says nothing of background work: Copilot CLI's
// session log ([CopilotBackground]).
func SourceBackground(kind string) BackgroundFollower {
	if kind == SourceCopilotEvents {
		return &CopilotBackground{}
	}
	return nil
}

// A StateFollower reads, line by line of an append-only source, what a
// line says beyond its own state (SourceState) because of the lines
// before it: ok reports a line after which the state is st ("" for the
// count alone), blocked with wait for a dialog the source says is open,
// with bg, the background work that outlasts the agent's turn (SPEC.md
// Y8). Unlike a BackgroundFollower's, that work does not bring the agent
// back by itself once it ends, so a turn given up to it ends idle, not
// working. since is that line's mark.
type StateFollower interface {
	LineState(line []byte) (st statusfile.State, bg statusfile.Background, wait statusfile.Waiting, since string, ok bool)
}

// SourceFollower returns a new StateFollower for a source of kind, or nil
// where each line says all it says alone: Codex's rollout
// ([CodexRollout]).
func SourceFollower(kind string) StateFollower {
	if kind == SourceCodexRollout {
		return &CodexRollout{}
	}
	return nil
}

// SourceBackgroundIdle reports whether the background work a source of
// kind counts never wakes the agent (SPEC.md Y8): Codex's subagents left
// running after the turn. Its idle is then always the end of the
// session's own turn, as [SourceEnded] says it, whatever still runs.
func SourceBackgroundIdle(kind string) bool {
	return kind == SourceCodexRollout
}

// SourceEnded is how the turn ended when the source's data, for which
// SourceState said idle, is the first word of it: Codex's rollout line
// says ([CodexRolloutEnded]), and Copilot CLI's session log
// ([CopilotEventsEnded]: abort, or session.error, a failed turn, for
// which its recoverable errorOccurred hook says nothing); Claude Code's
// session file and Gemini CLI's cancellation line only go idle without a hook
// when the user interrupted the turn (Esc, or a denied prompt), which is
// cancelled. A turn that ends otherwise sends its hook (Stop,
// StopFailure, AfterAgent), which says more and replaces this.
func SourceEnded(kind string, data []byte) statusfile.Ended {
	switch kind {
	case SourceCodexRollout:
		return CodexRolloutEnded(data)
	case SourceCopilotEvents:
		return CopilotEventsEnded(data)
	case SourceClaudeSession, SourceGeminiChat:
		return cancelled
	}
	return statusfile.Ended{}
}

// ClaudeSessionState reads Claude Code's session file (observed in
// 2.1.197 to 2.1.332; undocumented): {"pid":N,"sessionId":ID,...,
// "status":"idle"|"busy"|"waiting"|..., "waitingFor":"permission prompt"}.
// busy is working, waiting is blocked (a permission dialog, a question),
// idle is idle. Another status says nothing: "shell", seen for an instant
// while an interrupted tool is killed, and (2.1.332) for as long as only
// background shells or monitors run after a turn, which that turn's Stop
// already says (background_tasks: working, SPEC.md Y8). A file of another
// session or process says nothing either: after /clear the same process
// writes the next session's id. since is "statusUpdatedAt", which changes with every
// change of "status" (the file is also rewritten for other reasons).
func ClaudeSessionState(data []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	var f struct {
		PID       json.RawMessage `json:"pid"`
		SessionID string          `json:"sessionId"`
		Status    string          `json:"status"`
		Since     json.RawMessage `json:"statusUpdatedAt"`
	}
	if json.Unmarshal(data, &f) != nil || f.SessionID != session {
		return "", "", false
	}
	if n, err := strconv.Atoi(string(f.PID)); err != nil || n != pid {
		return "", "", false
	}
	st, ok = map[string]statusfile.State{"busy": statusfile.Working, "waiting": statusfile.Blocked, "idle": statusfile.Idle}[f.Status]
	if !ok {
		return "", "", false
	}
	return st, string(f.Since), true
}
