package hooksession

import (
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// A subagent's dialog shows on the session's screen whatever order its
// hooks and the session's own come in (Codex 0.171.0: a subagent the model
// leaves running; its PermissionRequest raced the session's Stop), and its
// other events say nothing of the session's turn, which it may outlast.
func TestSubagentHold(t *testing.T) {
	bash := statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "sleep 3"}
	own := statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"}
	done := statusfile.Ended{Reason: "done"}
	var (
		prompt   = Change{State: statusfile.Working}
		stop     = Change{State: statusfile.Idle, Ended: done}
		interupt = Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}}
		start    = Change{State: statusfile.Idle} // SessionStart: a new thread
		ask      = Change{State: statusfile.Blocked, Wait: own}
		subAsk   = Change{State: statusfile.Blocked, Wait: bash, Subagent: true}
		subGoes  = Change{State: statusfile.Working, Subagent: true}
		subDeny  = Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}, Subagent: true}
	)
	tests := []struct {
		name  string
		steps []Change
		state statusfile.State
		wait  statusfile.Waiting
		ended string
	}{
		{"the dialog, then the session's Stop: blocked", []Change{prompt, subAsk, stop}, statusfile.Blocked, bash, ""},
		{"then approved: idle as the turn ended", []Change{prompt, subAsk, stop, subGoes}, statusfile.Idle, statusfile.Waiting{}, "done"},
		{"the Stop, then the dialog: blocked", []Change{prompt, stop, subAsk}, statusfile.Blocked, bash, ""},
		{"then approved: idle again", []Change{prompt, stop, subAsk, subGoes}, statusfile.Idle, statusfile.Waiting{}, "done"},
		{"a subagent's Interrupt after the Stop (0.171.0 sends none): idle as the turn ended", []Change{prompt, stop, subAsk, subDeny}, statusfile.Idle, statusfile.Waiting{}, "done"},
		{"approved while the turn runs: working", []Change{prompt, subAsk, subGoes}, statusfile.Working, statusfile.Waiting{}, ""},
		{"the session's turn goes on: as it comes", []Change{prompt, subAsk, prompt}, statusfile.Working, statusfile.Waiting{}, ""},
		{"denied with no hook: the next prompt ends it", []Change{prompt, stop, subAsk, prompt}, statusfile.Working, statusfile.Waiting{}, ""},
		{"denied with no hook: blocked until then", []Change{prompt, subAsk, stop, stop}, statusfile.Blocked, bash, ""},
		{"a subagent's event after the Stop says nothing", []Change{prompt, stop, subGoes}, statusfile.Idle, statusfile.Waiting{}, "done"},
		{"nor while the turn runs", []Change{prompt, subGoes}, statusfile.Working, statusfile.Waiting{}, ""},
		{"nor on the session's own dialog", []Change{prompt, ask, subGoes}, statusfile.Blocked, own, ""},
		{"the session's interrupt while the dialog shows", []Change{prompt, subAsk, interupt, subGoes}, statusfile.Idle, statusfile.Waiting{}, "cancelled"},
		{"a next prompt while the dialog shows, then approved", []Change{prompt, stop, subAsk, prompt, subGoes}, statusfile.Working, statusfile.Waiting{}, ""},
		{"the session's own dialog replaces the subagent's", []Change{prompt, subAsk, ask, subGoes}, statusfile.Blocked, own, ""},
		{"a new thread forgets the dialog", []Change{prompt, subAsk, start, subGoes}, statusfile.Idle, statusfile.Waiting{}, ""},
		{"without subagents, as always", []Change{prompt, ask, stop}, statusfile.Idle, statusfile.Waiting{}, "done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				cur   statusfile.Status
				found bool
				h     subagentHold
			)
			for _, ch := range tt.steps {
				h.hold(&ch, cur, found)
				cur, found = ch.apply(cur, found, "/wd", time.Unix(1, 0)), true
			}
			if cur.State != tt.state {
				t.Fatalf("state %s, want %s", cur.State, tt.state)
			}
			if cur.State == statusfile.Blocked && (cur.WaitingFor.Kind != tt.wait.Kind || cur.WaitingFor.Detail != tt.wait.Detail) {
				t.Errorf("waiting for %+v, want %+v", cur.WaitingFor, tt.wait)
			}
			if cur.State == statusfile.Idle && cur.Ended.Reason != tt.ended {
				t.Errorf("ended %q, want %q", cur.Ended.Reason, tt.ended)
			}
		})
	}
}
