//go:build unix

package hooksession

import (
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// A count of tasks from a directory source replaces the record's tasks
// alone, and makes the session working only after its turn has ended and
// when no newer hook has spoken (SPEC.md Y8, H19).
func TestTasksObserved(t *testing.T) {
	agent := statusfile.Background{Agents: 1}
	idle := statusfile.Status{State: statusfile.Idle, Background: agent}
	working := statusfile.Status{State: statusfile.Working, Background: agent}
	blocked := statusfile.Status{State: statusfile.Blocked, Background: agent}
	done := statusfile.Status{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "done"}, Background: agent}
	failed := statusfile.Status{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "failed"}, Background: agent}
	rose := observed{state: statusfile.Working, background: &statusfile.Background{Tasks: 2}, tasksOnly: true}
	fell := observed{background: &statusfile.Background{}, tasksOnly: true}
	tests := []struct {
		name  string
		ob    observed
		rec   statusfile.Status
		stale bool
		state statusfile.State
		bg    statusfile.Background
	}{
		{"a shell runs after the turn ended", rose, idle, false, statusfile.Working, statusfile.Background{Agents: 1, Tasks: 2}},
		{"a shell starts during the turn", rose, working, false, "", statusfile.Background{Agents: 1, Tasks: 2}},
		{"a dialog stays on", rose, blocked, false, "", statusfile.Background{Agents: 1, Tasks: 2}},
		{"a newer hook said the state", rose, idle, true, "", statusfile.Background{Agents: 1, Tasks: 2}},
		{"a newer Stop did not know the count", rose, done, true, statusfile.Working, statusfile.Background{Agents: 1, Tasks: 2}},
		{"a newer failed turn's end wins", rose, failed, true, "", statusfile.Background{Agents: 1, Tasks: 2}},
		{"the shells end", fell, working, false, "", agent},
		{"the shells end, seen before a newer hook", fell, working, true, "", agent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tasksObserved(tt.ob, tt.rec, tt.stale)
			if got.state != tt.state || got.background == nil || *got.background != tt.bg {
				t.Errorf("got %q %+v, want %q %+v", got.state, got.background, tt.state, tt.bg)
			}
		})
	}
}
