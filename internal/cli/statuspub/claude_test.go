package statuspub

import (
	"errors"
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The mapping itself is tested in package agenthook; these tests check
// that its actions reach the command unchanged.

func TestFromAgentHook(t *testing.T) {
	tests := []struct {
		name  string
		m     func([]byte) (hookAction, error)
		input string
		want  hookAction
	}{
		{"set with cwd", claudeAction, `{"session_id":"s","cwd":"/w","hook_event_name":"PermissionRequest"}`,
			hookAction{kind: actSet, session: "s", cwd: "/w", state: statusfile.Blocked}},
		{"title", claudeAction, `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"T","status":"in_progress"}]}}`,
			hookAction{kind: actSet, session: "s", state: statusfile.Working, title: ptr("T")}},
		{"task", claudeAction, `{"session_id":"s","hook_event_name":"TaskCompleted","task_id":"2","task_subject":"X"}`,
			hookAction{kind: actSet, session: "s", task: &taskOp{id: "2", subject: "X", status: "completed"}}},
		{"clear", claudeAction, `{"session_id":"s","hook_event_name":"SessionEnd"}`, hookAction{kind: actClear, session: "s"}},
		{"ignore", claudeAction, `{"session_id":"s","hook_event_name":"SubagentStop"}`, hookAction{kind: actIgnore, session: "s"}},
		{"codex notify", codexAction, `{"type":"agent-turn-complete","thread-id":"t"}`, hookAction{kind: actSet, session: "t", state: statusfile.Idle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.m([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if got.kind != tt.want.kind || got.session != tt.want.session || got.cwd != tt.want.cwd || got.state != tt.want.state {
				t.Errorf("%+v, want %+v", got, tt.want)
			}
			if (got.title == nil) != (tt.want.title == nil) || got.title != nil && *got.title != *tt.want.title {
				t.Errorf("title %v, want %v", got.title, tt.want.title)
			}
			if (got.task == nil) != (tt.want.task == nil) || got.task != nil && *got.task != *tt.want.task {
				t.Errorf("task %+v, want %+v", got.task, tt.want.task)
			}
		})
	}
	if _, err := claudeAction([]byte("[]")); !errors.Is(err, ErrBadHookInput) {
		t.Errorf("bad input: %v", err)
	}
}

// claudeAction is Claude Code's mapping as the hook commands apply it.
var claudeAction = adapt(agenthook.Claude)
