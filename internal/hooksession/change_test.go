package hooksession

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
		ch    Change
		cur   statusfile.Status
		found bool
		want  statusfile.Status
	}{
		{"defaults without a record", Change{PID: 7}, statusfile.Status{}, false,
			statusfile.Status{Agent: "statuspub", PID: 7, Cwd: "/wd", State: statusfile.Idle}},
		{"everything kept but the pid", Change{PID: 11}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s", PID: 11, Cwd: "/w", State: statusfile.Blocked, Title: "Fix it", UpdatedAt: disk.UpdatedAt.UTC()}},
		{"state and title", Change{State: statusfile.Working, Title: ptr("\x1b[31mNext\x1b[0m"), PID: 10}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "s", PID: 10, Cwd: "/w", State: statusfile.Working, Title: "Next", UpdatedAt: disk.UpdatedAt.UTC()}},
		{"no title, agent and cwd", Change{Title: ptr(""), Agent: "codex", Cwd: "/v", PID: 10}, disk, true,
			statusfile.Status{Schema: statusfile.Schema, Agent: "codex", Session: "s", PID: 10, Cwd: "/v", State: statusfile.Blocked, UpdatedAt: disk.UpdatedAt.UTC()}},
		{"unknown state on disk becomes idle", Change{PID: 1}, statusfile.Status{State: "sleeping", Session: "s"}, true,
			statusfile.Status{Session: "s", PID: 1, State: statusfile.Idle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ch.apply(tt.cur, tt.found, "/wd", time.Time{}); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestChangeApplyWhy(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := t0.Add(6 * time.Second)
	bash := statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "git push", Since: t0}
	blocked := statusfile.Status{State: statusfile.Blocked, WaitingFor: bash}
	working := statusfile.Status{State: statusfile.Working}
	background := statusfile.Status{State: statusfile.Working, Background: statusfile.Background{Agents: 1}}
	tests := []struct {
		name string
		cur  statusfile.Status
		ch   Change
		want statusfile.Status
	}{
		{"a wait begins now", working, Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "git push"}},
			statusfile.Status{State: statusfile.Blocked, WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "git push", Since: now}}},
		{"a late notification keeps the tool and the start", blocked, Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission"}}, blocked},
		{"even of another kind", blocked, Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "question"}}, blocked},
		{"blocked without a wait keeps it", blocked, Change{State: statusfile.Blocked}, blocked},
		{"a second tool of the same wait keeps its start", blocked, Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "git tag"}},
			statusfile.Status{State: statusfile.Blocked, WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "git tag", Since: t0}}},
		{"a question after a permission begins now", blocked, Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "question", Detail: "Which?"}},
			statusfile.Status{State: statusfile.Blocked, WaitingFor: statusfile.Waiting{Kind: "question", Detail: "Which?", Since: now}}},
		{"a wait whose state an older update lost is dropped", working, Change{Wait: statusfile.Waiting{Kind: "permission"}}, working},
		{"the turn ends", working, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled"}},
			statusfile.Status{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "cancelled", At: now}}},
		{"no detail", working, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "failed", Detail: "server_error"}, NoDetail: true},
			statusfile.Status{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "failed", At: now}}},
		{"an idle that says nothing keeps a turn given up to background work", background, Change{State: statusfile.Idle}, background},
		{"a turn that ends there ends it", background, Change{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "done"}, Background: &statusfile.Background{}},
			statusfile.Status{State: statusfile.Idle, Ended: statusfile.Ended{Reason: "done", At: now}}},
		{"an idle that says nothing ends a turn without background work", working, Change{State: statusfile.Idle}, statusfile.Status{State: statusfile.Idle}},
		// Qwen Code denies a background agent's tool that asks, without a
		// dialog; a foreground subagent's shows one.
		{"a background agent's permission request keeps it working", background,
			Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission", Tool: "run_shell_command"}, DeniedInBackground: true}, background},
		{"a subagent's permission request in the turn blocks", working,
			Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission", Tool: "run_shell_command"}, DeniedInBackground: true},
			statusfile.Status{State: statusfile.Blocked, WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "run_shell_command", Since: now}}},
		{"the session's own permission request blocks while background agents run", background,
			Change{State: statusfile.Blocked, Wait: statusfile.Waiting{Kind: "permission", Tool: "run_shell_command"}},
			statusfile.Status{State: statusfile.Blocked, WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "run_shell_command", Since: now}, Background: statusfile.Background{Agents: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.ch.apply(tt.cur, true, "/wd", now)
			got.PID, got.UpdatedAt = 0, time.Time{}
			if got.State != tt.want.State || got.WaitingFor != tt.want.WaitingFor || got.Ended != tt.want.Ended || got.Background != tt.want.Background {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
