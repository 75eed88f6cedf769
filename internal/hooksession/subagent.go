package hooksession

import "github.com/agentstatus/agentstatus/statusfile"

// Codex 0.171.0 sends a subagent's hooks (spawn_agent) under the session's
// id, marked with the subagent's agent_id (Change.Subagent). The subagent
// runs beside the session's turn and may outlast it: the model need not
// wait for it, and then the session's Stop comes while the subagent
// still works, in any order with the subagent's own hooks. Its events
// therefore say nothing of the session's turn, with one exception: its
// permission dialog shows on the session's screen, and is the session's
// wait (blocked takes precedence, S1) until the subagent goes on. What the
// session's own turn did meanwhile is kept here, beside the write lock's
// stamps, so that the record comes back to it when the dialog closes.

// subagentHold is what the subagents' hooks leave for later.
type subagentHold struct {
	// Dialog: the record is blocked on a subagent's dialog.
	Dialog bool `json:"dialog,omitempty"`
	// Ended: the session's own turn has ended, and how; nil while it
	// runs (or before any). Once the dialog closes, the session is idle
	// as this says.
	Ended *statusfile.Ended `json:"ended,omitempty"`
}

// hold rewrites ch, a change of the record cur (found: there is one), for
// the subagents' dialogs, and updates h to follow it:
//
//   - a subagent's blocked (its dialog) is applied, and remembers the
//     session's own turn as the dialog finds it: running, or ended (the
//     record idle);
//   - a subagent's other change closes its dialog: the record goes back
//     to what the session's own turn is (working, or idle as it ended);
//     without a dialog of its own open, it changes nothing;
//   - while a subagent's dialog is open, the end of the session's own
//     turn is remembered, and leaves the record blocked; anything else of
//     the session's own (its next prompt, its own dialog, a new thread)
//     ends the hold.
//
// Without a subagent's dialog, nothing is held, and the session's own
// changes are applied as they come.
func (h *subagentHold) hold(ch *Change, cur statusfile.Status, found bool) {
	if ch.State == "" {
		return
	}
	dialog := h.Dialog && found && cur.State == statusfile.Blocked
	if ch.Subagent {
		switch {
		case ch.State == statusfile.Blocked:
			if !dialog {
				h.Ended = nil
				if found && cur.State == statusfile.Idle {
					e := cur.Ended
					h.Ended = &e
				}
			}
			h.Dialog = true
		case dialog:
			// The subagent goes on: its dialog has closed.
			ch.State, ch.Ended = statusfile.Working, statusfile.Ended{}
			if h.Ended != nil {
				ch.State, ch.Ended = statusfile.Idle, *h.Ended
			}
			*h = subagentHold{}
		default:
			ch.State, ch.Ended = "", statusfile.Ended{}
			*h = subagentHold{}
		}
		return
	}
	if !dialog || ch.State != statusfile.Idle || ch.Ended.Reason == "" && ch.Background == nil {
		// No dialog of a subagent's, or the session's own dialog, or
		// its own turn going on (Codex hides the prompt while a dialog
		// shows, and Esc at a subagent's dialog runs no hook at all),
		// or a new thread (SessionStart): as it comes.
		*h = subagentHold{}
		return
	}
	// The session's turn ended while the subagent's dialog shows.
	e := ch.Ended
	h.Ended = &e
	ch.State, ch.Ended = "", statusfile.Ended{}
}

// empty reports whether h holds nothing (it is then left out).
func (h subagentHold) empty() bool { return !h.Dialog && h.Ended == nil }
