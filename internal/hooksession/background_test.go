package hooksession

import (
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The count of background work goes with the state it came with, and a
// turn given up to background work leaves a wait that is on (SPEC.md Y8,
// S1).
func TestChangeApplyBackground(t *testing.T) {
	one := &statusfile.Background{Agents: 1}
	none := &statusfile.Background{}
	wait := statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "sleep 4"}
	working := statusfile.Status{State: statusfile.Working}
	blocked := statusfile.Status{State: statusfile.Blocked, WaitingFor: wait}
	running := statusfile.Status{State: statusfile.Working, Background: *one}
	shellOne := &statusfile.Background{Tasks: 1}
	shell := statusfile.Status{State: statusfile.Working, Background: *shellOne}
	done := statusfile.Ended{Reason: "done"}
	tests := []struct {
		name     string
		cur      statusfile.Status
		ch       Change
		state    statusfile.State
		bg       statusfile.Background
		keptWait bool
	}{
		{"the turn is given up to a background agent", working, Change{State: statusfile.Working, Background: one}, statusfile.Working, *one, false},
		{"its permission dialog stays on", blocked, Change{State: statusfile.Working, Background: one}, statusfile.Blocked, *one, true},
		{"a later event keeps the count", running, Change{State: statusfile.Working}, statusfile.Working, *one, false},
		{"the agent's own turn ends with nothing running", running, Change{State: statusfile.Idle, Background: none}, statusfile.Idle, statusfile.Background{}, false},
		{"a count without its state is dropped with it", working, Change{Background: one}, statusfile.Working, statusfile.Background{}, false},
		{"a Stop without background work ends a wait", blocked, Change{State: statusfile.Idle, Background: none}, statusfile.Idle, statusfile.Background{}, false},
		// Qwen Code's idle_prompt after a denial, and Esc in a tool, in a
		// turn of the user's while a background agent runs.
		{"a denial in a new turn leaves the agent's work", statusfile.Status{State: statusfile.Blocked, WaitingFor: wait, Background: *one}, Change{State: statusfile.Idle}, statusfile.Working, *one, false},
		{"Esc in a new turn's tool leaves the agent's work", running, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}}, statusfile.Working, *one, false},
		{"a failed turn is an end", running, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "failed"}}, statusfile.Idle, *one, false},
		{"an idle record stays idle", statusfile.Status{State: statusfile.Idle, Background: *one}, Change{State: statusfile.Idle}, statusfile.Idle, *one, false},
		// Codex's subagents left running never wake it: Esc and a denial
		// in the user's turn are that turn's end (BackgroundIdle).
		{"Codex: Esc while a subagent runs is idle", running, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}, BackgroundIdle: true}, statusfile.Idle, *one, false},
		{"Codex: a denial while a subagent runs is idle", statusfile.Status{State: statusfile.Blocked, WaitingFor: wait, Background: *one}, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}, BackgroundIdle: true}, statusfile.Idle, *one, false},
		// Qwen Code's Stop counts agents alone; the owner counts its
		// background shells (TasksKept).
		{"a Stop while a counted shell runs is no end", shell, Change{State: statusfile.Idle, Ended: done, Background: none, TasksKept: true}, statusfile.Working, *shellOne, false},
		{"a Stop counts its agents beside the shells", shell, Change{State: statusfile.Working, Background: one, TasksKept: true}, statusfile.Working, statusfile.Background{Agents: 1, Tasks: 1}, false},
		{"a Stop with no shell left ends the turn", working, Change{State: statusfile.Idle, Ended: done, Background: none, TasksKept: true}, statusfile.Idle, statusfile.Background{}, false},
		{"a failed turn is an end while a shell runs", shell, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "failed"}, Background: none, TasksKept: true}, statusfile.Idle, *shellOne, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.ch.apply(tt.cur, true, "/wd", time.Time{})
			if got.State != tt.state || got.Background != tt.bg || (got.State == statusfile.Blocked && got.WaitingFor == wait) != tt.keptWait {
				t.Errorf("got %s %+v (wait %+v), want %s %+v (wait kept %v)", got.State, got.Background, got.WaitingFor, tt.state, tt.bg, tt.keptWait)
			}
		})
	}
}
