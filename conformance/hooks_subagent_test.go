package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/statusfile"
)

// holdSubagent is the faithful adapter's way with a subagent's events
// (Codex: agent_id), as a hook publisher keeps them: a subagent's dialog
// is blocked whatever the session's own turn does meanwhile, its other
// events say nothing of that turn but close its dialog, which brings the
// record back to the session's own turn (working, or idle as it ended).
// What it holds lives in a file of the config home, between steps.
func holdSubagent(home string, a agenthook.Action, prev statusfile.Status) (agenthook.Action, error) {
	var h struct {
		Dialog bool              `json:"dialog"`
		Ended  *statusfile.Ended `json:"ended"`
	}
	path := filepath.Join(home, "subagent-hold.json")
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, &h)
	}
	dialog := h.Dialog && prev.State == statusfile.Blocked
	switch {
	case a.State == "":
		return a, nil
	case a.Subagent && a.State == statusfile.Blocked:
		if !dialog {
			h.Ended = nil
			if prev.State == statusfile.Idle {
				e := prev.Ended
				h.Ended = &e
			}
		}
		h.Dialog = true
	case a.Subagent && dialog:
		a.State, a.Ended = statusfile.Working, statusfile.Ended{}
		if h.Ended != nil {
			a.State, a.Ended = statusfile.Idle, *h.Ended
		}
		h.Dialog, h.Ended = false, nil
	case a.Subagent:
		a.State, a.Ended = "", statusfile.Ended{}
		h.Dialog, h.Ended = false, nil
	case !dialog || a.State != statusfile.Idle || a.Ended.Reason == "":
		h.Dialog, h.Ended = false, nil
	default: // the session's turn ended while the subagent's dialog shows
		e := a.Ended
		h.Ended = &e
		a.State, a.Ended = "", statusfile.Ended{}
	}
	data, _ := json.Marshal(h)
	return a, os.WriteFile(path, data, 0o600)
}
