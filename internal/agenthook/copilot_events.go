package agenthook

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Copilot CLI runs no hook when the user approves a command (its
// preToolUse comes before the dialog), denies it, or stops a turn with Esc
// Esc. Its session log does record all three: the file
// <COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl,
// which Copilot CLI 1.0.102 writes as JSON lines and only appends to while
// the session runs (its "session events", typed by schemas/
// session-events.schema.json in the CLI's package):
//
//	{"type":"permission.requested","data":{...},"id":"…","timestamp":"…"}
//	{"type":"permission.completed","data":{"result":{"kind":"approved"}},"id":"…",…}
//	{"type":"abort","data":{"reason":"user_initiated"},"id":"…",…}
//
// In the recorded session (testdata/copilot-events/) permission.requested
// came 0.2–0.7 s after the tool's preToolUse, permission.completed with
// the key that answered the dialog, and abort at once after Esc at the
// dialog ("cancelled") or Esc Esc in a tool or while the answer streamed.

// CopilotEventsState reads lines appended to a Copilot CLI session log,
// in the shape of [SourceState]: data is the whole lines appended since
// the last read. It returns the state the last line with a signal means:
//
//	user.message                          working (a prompt)
//	permission.requested                  blocked (a dialog)
//	permission.completed "approved"       working (the tool runs)
//	elicitation.requested,
//	  user_input.requested                blocked (a question)
//	elicitation.completed,
//	  user_input.completed                working (answered)
//	abort                                 idle (the turn was stopped)
//	session.error                         idle (the turn failed: a model
//	                                      error it does not retry, or the
//	                                      last retry, written 3 ms after
//	                                      errorOccurred; an attempt it
//	                                      retries writes no line at all)
//
// since is that line's "id" (a new one for every event). Every other line,
// a denied or cancelled permission.completed (abort follows it), a
// subagent's own abort and session.error (see [copilotSubagentEnd]), and a
// line that is not JSON say nothing. The log is the session's own file,
// named by its id, so session and pid are not needed.
func CopilotEventsState(data []byte, session string, pid int) (st statusfile.State, since string, ok bool) {
	states := map[string]statusfile.State{ // permission.completed only when approved
		"user.message": statusfile.Working, "elicitation.completed": statusfile.Working, "user_input.completed": statusfile.Working,
		"permission.completed": statusfile.Working, "abort": statusfile.Idle, "session.error": statusfile.Idle,
		"permission.requested": statusfile.Blocked, "elicitation.requested": statusfile.Blocked, "user_input.requested": statusfile.Blocked,
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			AgentID string `json:"agentId"`
			Data    struct {
				Result struct {
					Kind string `json:"kind"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		s, known := states[ev.Type]
		if !known || ev.Type == "permission.completed" && ev.Data.Result.Kind != "approved" ||
			copilotSubagentEnd(ev.Type, ev.AgentID) {
			continue
		}
		st, since, ok = s, ev.ID, true
	}
	return st, since, ok
}

// copilotSubagentEnd reports whether a session log line of type typ with
// agentId agent is a subagent's own end of its turn: its abort or
// session.error. Copilot CLI 1.0.102 writes a subagent's events into the
// session's log with its "agentId", which the session's own events lack
// (session-events.schema.json: "Sub-agent instance identifier. Absent for
// events from the root/main agent"); a subagent whose model call fails
// ends its own turn, and the task tool returns its failure to the
// session's, which goes on. Its dialogs and its approved tools are the
// session's (they are on the session's screen), and stay.
func copilotSubagentEnd(typ, agent string) bool {
	return agent != "" && (typ == "abort" || typ == "session.error")
}

// CopilotEventsPath is the session log of a Copilot CLI session:
// <copilotHome>/session-state/<session>/events.jsonl, where copilotHome is
// $COPILOT_HOME, else ~/.copilot. ok is false for a home that is not
// absolute or a session id that is not one clean path element.
func CopilotEventsPath(copilotHome, session string) (string, bool) {
	if !filepath.IsAbs(copilotHome) || session == "" || session == "." || session == ".." ||
		strings.ContainsAny(session, `/\`) || filepath.Base(session) != session {
		return "", false
	}
	return filepath.Join(filepath.Clean(copilotHome), "session-state", session, "events.jsonl"), true
}

// CopilotEventsEnded is how the turn ended that lines for which
// CopilotEventsState said idle report: the last of their abort (cancelled)
// and session.error lines. A session.error is rate_limited when its
// statusCode is 429 or its errorType a rate limit (1.0.102, retries run
// out: "errorType":"rate_limit", "statusCode":429), with that kind as
// detail ("rate_limit" for a 429 of another kind); else failed, with its
// message.
func CopilotEventsEnded(data []byte) statusfile.Ended {
	var e statusfile.Ended
	for _, line := range bytes.Split(data, []byte("\n")) {
		var ev struct {
			Type    string `json:"type"`
			AgentID string `json:"agentId"`
			Data    struct {
				Message    string `json:"message"`
				ErrorType  string `json:"errorType"`
				StatusCode int    `json:"statusCode"`
			} `json:"data"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &ev) != nil || copilotSubagentEnd(ev.Type, ev.AgentID) {
			continue
		}
		switch ev.Type {
		case "abort":
			e = cancelled
		case "session.error":
			switch f := failure(ev.Data.ErrorType); {
			case f.Reason == "rate_limited":
				e = f
			case ev.Data.StatusCode == 429:
				e = statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}
			default:
				e = statusfile.Ended{Reason: "failed", Detail: ev.Data.Message}
			}
		}
	}
	return e
}

// CopilotBackground counts, line by line of a Copilot CLI session log, the
// subagents that run in the background (the task tool's mode
// "background") and the shells (bash's mode "async", attached to the
// session). Copilot CLI 1.0.102 ends the turn that started one at
// once (its Stop comes while the subagent runs, and says nothing of it);
// the footer then says "Waiting for background agents" (or "… shells"),
// and when the work is done the agent takes a turn of its own (a system
// notification as its prompt). The session works throughout (SPEC.md Y8).
// The log says it, in lines no hook sends:
//
//	{"type":"subagent.started","data":{…,"executionMode":"background"},"agentId":"…",…}
//	{"type":"tool.execution_complete","data":{…,"result":{"content":"<command started in background with shellId: 0>"…}…}
//	{"type":"hook.end","data":{"hookType":"agentStop",…},"id":"…",…}   (the session's own Stop ran)
//	{"type":"subagent.completed","data":{…},"agentId":"…",…}          (or subagent.failed)
//	{"type":"system.notification","data":{…,"kind":{"type":"shell_completed","shellId":"0",…}},…}
//
// A subagent's dialog may be on screen when the session's Stop runs (the
// recorded one came 8 ms before it): the log's permission.requested
// (data.promptRequest.fullCommandText) and elicitation.requested or
// user_input.requested (data.message) say which, until the line that
// answers them.
//
// The log goes on across the session's processes (a resumed session
// appends to it, after session.resume; each process ends with
// session.shutdown): what a process started ends with it.
//
// The zero value is ready; it remembers the agents and shells it has seen
// start, the dialog the log left open, and the count it last reported.
type CopilotBackground struct {
	running  map[string]bool // agents, by agentId
	shells   map[string]bool // shells, by shellId
	dialog   statusfile.Waiting
	reported statusfile.Background
}

// copilotShellStarted returns the shellId of a bash call that leaves its
// command running attached to the session, from the tool's result: mode
// async ("<command started in background with shellId: 3>"), and a sync
// call whose initial_wait ran out ("<command with shellId: 3 is still
// running after 30 seconds. …>"). A detached command ("… in detached
// background …", detach true) is not the session's: the footer does not
// wait for it. (No regexp: statuspub, which every hook starts, links
// none.)
func copilotShellStarted(content string) (string, bool) {
	if rest, ok := strings.CutPrefix(content, "<command started in background with shellId: "); ok {
		id, _, ok := strings.Cut(rest, ">")
		id = strings.TrimSuffix(id, ".")
		return id, ok && id != "" && !strings.ContainsAny(id, " \n")
	}
	if rest, ok := strings.CutPrefix(content, "<command with shellId: "); ok {
		id, _, ok := strings.Cut(rest, " is still running after ")
		return id, ok && id != "" && !strings.ContainsAny(id, " \n")
	}
	return "", false
}

// Line reads one line of the log. ok reports that the line changes what
// the record says, to working with bg, the background work left, or to
// blocked with wait when a dialog is open: the end of the session's own
// Stop hook (the hook.end line is written once the hook has run, so that
// this comes after what the Stop said) while some run, the end of one
// of them (the agent's own turn follows at once), and the start or end of
// a process of the session after a count above none. since is the line's
// id.
// A subagent or shell that starts says nothing (the turn that started it
// works on), nor does any other line.
func (b *CopilotBackground) Line(line []byte) (bg statusfile.Background, wait statusfile.Waiting, since string, ok bool) {
	var ev struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		AgentID string `json:"agentId"` // absent on the session's own events
		Data    struct {
			ExecutionMode string `json:"executionMode"`
			HookType      string `json:"hookType"`
			Success       bool   `json:"success"`
			Result        struct {
				Content string `json:"content"`
			} `json:"result"`
			Kind struct { // system.notification's
				Type    string `json:"type"`
				ShellID string `json:"shellId"`
			} `json:"kind"`
			Message       string `json:"message"`
			PromptRequest struct {
				FullCommandText string `json:"fullCommandText"`
			} `json:"promptRequest"`
		} `json:"data"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &ev) != nil {
		return bg, wait, "", false
	}
	switch ev.Type {
	case "permission.requested":
		b.dialog = statusfile.Waiting{Kind: "permission", Detail: ev.Data.PromptRequest.FullCommandText}
	case "elicitation.requested", "user_input.requested":
		b.dialog = statusfile.Waiting{Kind: "question", Detail: ev.Data.Message}
	case "permission.completed", "elicitation.completed", "user_input.completed", "abort", "user.message",
		"session.start", "session.resume", "session.shutdown":
		b.dialog = statusfile.Waiting{}
	}
	shell, shellStarted := copilotShellStarted(ev.Data.Result.Content)
	switch {
	case ev.Type == "session.start" || ev.Type == "session.resume" || ev.Type == "session.shutdown":
		// Another process, or none: nothing of the last one runs.
		// Reported while some ran, the count goes (a count alone).
		clear(b.running)
		clear(b.shells)
		if b.reported == (statusfile.Background{}) {
			return bg, wait, "", false
		}
	case ev.Type == "subagent.started" && ev.Data.ExecutionMode == "background" && ev.AgentID != "":
		if b.running == nil {
			b.running = map[string]bool{}
		}
		b.running[ev.AgentID] = true
		return bg, wait, "", false
	case ev.Type == "tool.execution_complete" && ev.Data.Success && shellStarted:
		if b.shells == nil {
			b.shells = map[string]bool{}
		}
		b.shells[shell] = true
		return bg, wait, "", false
	case (ev.Type == "subagent.completed" || ev.Type == "subagent.failed") && b.running[ev.AgentID]:
		delete(b.running, ev.AgentID)
	case ev.Type == "system.notification" && (ev.Data.Kind.Type == "shell_completed" || ev.Data.Kind.Type == "shell_detached_completed") &&
		b.shells[ev.Data.Kind.ShellID]:
		delete(b.shells, ev.Data.Kind.ShellID)
	case ev.Type == "hook.end" && ev.Data.HookType == "agentStop" && ev.AgentID == "" && len(b.running)+len(b.shells) > 0:
	default:
		return bg, wait, "", false
	}
	b.reported = statusfile.Background{Agents: len(b.running), Tasks: len(b.shells)}
	return b.reported, b.dialog, ev.ID, true
}
