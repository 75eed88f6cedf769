package statuspub

import (
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

func TestChangeApply(t *testing.T) {
	disk := statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s", PID: 10, Cwd: "/w",
		State: statusfile.Blocked, Title: "Fix it", UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))}
	tests := []struct {
		name  string
		ch    change
		cur   statusfile.Status
		found bool
		want  statusfile.Status
	}{
		{"defaults without a record", change{pid: 7}, statusfile.Status{}, false,
			statusfile.Status{Agent: "statuspub", PID: 7, Cwd: "/wd", State: statusfile.Idle}},
		{"everything kept but the pid", change{pid: 11}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s", PID: 11, Cwd: "/w", State: statusfile.Blocked, Title: "Fix it", UpdatedAt: disk.UpdatedAt.UTC()}},
		{"state and title", change{state: statusfile.Working, title: ptr("\x1b[31mNext\x1b[0m"), pid: 10}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s", PID: 10, Cwd: "/w", State: statusfile.Working, Title: "Next", UpdatedAt: disk.UpdatedAt.UTC()}},
		{"no title, agent and cwd", change{title: ptr(""), agent: "codex", cwd: "/v", pid: 10}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "codex", Session: "s", PID: 10, Cwd: "/v", State: statusfile.Blocked, UpdatedAt: disk.UpdatedAt.UTC()}},
		{"unknown state on disk becomes idle", change{pid: 1}, statusfile.Status{State: "sleeping", Session: "s"}, true,
			statusfile.Status{Session: "s", PID: 1, State: statusfile.Idle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ch.apply(tt.cur, tt.found, "/wd"); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
