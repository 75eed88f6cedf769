package agenthook

import (
	"slices"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

const copilotSession = "5b1e7c2a-9d3f-4a6b-8c0e-1f2a3b4c5d6e"

// Shapes: https://docs.github.com/en/copilot/reference/hooks-reference,
// "Hook event input payloads" (testdata/SOURCES.md).
func TestCopilot(t *testing.T) {
	runFixtures(t, "copilot", Copilot, []fixture{
		{"session-start.json", Set, copilotSession, statusfile.Idle, keep},
		{"session-start-resume.json", Set, copilotSession, statusfile.Idle, keep},
		{"user-prompt-submit.json", Set, copilotSession, statusfile.Working, keep},
		{"pre-tool-use-bash.json", Set, copilotSession, statusfile.Working, keep},
		{"post-tool-use-bash.json", Set, copilotSession, statusfile.Working, keep},
		{"post-tool-use-failure.json", Set, copilotSession, statusfile.Working, keep},
		{"notification-permission-prompt.json", Set, copilotSession, statusfile.Blocked, keep},
		{"notification-elicitation-dialog.json", Set, copilotSession, statusfile.Blocked, keep},
		{"notification-shell-completed.json", Ignore, copilotSession, "", keep},
		{"notification-agent-idle.json", Ignore, copilotSession, "", keep},
		{"stop.json", Set, copilotSession, statusfile.Idle, keep},
		{"subagent-stop.json", Ignore, copilotSession, "", keep},
		{"error-occurred-model-call.json", Set, copilotSession, statusfile.Idle, keep},
		// Recoverable: retried, or ended by the session log (copilot_retry_test.go).
		{"error-occurred-recoverable.json", Set, copilotSession, statusfile.Working, keep},
		{"error-occurred-tool.json", Ignore, copilotSession, "", keep},
		{"pre-compact.json", Ignore, copilotSession, "", keep},
		{"session-end.json", Remove, copilotSession, "", keep},
		// A camelCase configuration's payload does not name its event.
		{"camel-session-start.json", Ignore, copilotSession, "", keep},
	})
}

// The payloads Copilot CLI 1.0.102 really sent (testdata/copilot/real-*.json,
// recorded offline against a scripted model on 127.0.0.1; paths replaced
// by /home/user and /home/user/my-project). They have the documented
// shapes; SessionStart's source "new" is not among the documented values.
func TestCopilotReal(t *testing.T) {
	const s = "97cae311-5b0c-4026-ad80-868391a84792"
	runFixtures(t, "copilot", Copilot, []fixture{
		{"real-session-start-new.json", Set, s, statusfile.Idle, keep},
		{"real-user-prompt-submit.json", Set, s, statusfile.Working, keep},
		// Before the permission dialog: the tool may still run unasked.
		{"real-pre-tool-use-bash.json", Set, s, statusfile.Working, keep},
		{"real-notification-permission-prompt.json", Set, s, statusfile.Blocked, keep},
		{"real-post-tool-use-bash.json", Set, s, statusfile.Working, keep},
		{"real-stop.json", Set, s, statusfile.Idle, keep},
		// HTTP 400: "recoverable", as a retried 429's; no Stop follows,
		// the session log's session.error ends the turn.
		{"real-error-occurred-400.json", Set, s, statusfile.Working, keep},
	})
	// A subagent's own hooks (the task tool): session_id is the
	// subagent's id, parent_agent_id the session's. Its Stop does not end
	// the session's turn, and a record of its own would stand beside the
	// session's while the agent runs.
	const sub = "57f9125e-297d-4152-91c6-7837db72bacc"
	runFixtures(t, "copilot", Copilot, []fixture{
		{"real-subagent-user-prompt-submit.json", Ignore, sub, "", keep},
		{"real-subagent-pre-tool-use-bash.json", Ignore, sub, "", keep},
		{"real-subagent-post-tool-use-bash.json", Ignore, sub, "", keep},
		{"real-subagent-stop.json", Ignore, sub, "", keep},
	})
	// Plan mode's exit_plan_mode: its PreToolUse comes with the dialog
	// that asks to approve the plan, which no notification announces;
	// its PostToolUse with the decision.
	const plan = "0ee2243e-6fe8-4f93-ac3d-e28eb2600245"
	runFixtures(t, "copilot", Copilot, []fixture{
		{"real-pre-tool-use-exit-plan-mode.json", Set, plan, statusfile.Blocked, keep},
		{"real-post-tool-use-exit-plan-mode.json", Set, plan, statusfile.Working, keep},
	})
	if a, want := mapFixture(t, Copilot, "copilot", "real-pre-tool-use-exit-plan-mode.json"), (statusfile.Waiting{Kind: "permission", Tool: "exit_plan_mode", Detail: "Add a README"}); a.Waiting != want {
		t.Errorf("the plan's wait: %+v, want %+v", a.Waiting, want)
	}
	// ask_user: its PreToolUse, then the dialog's notification.
	const s2 = "43053259-8e3a-44c4-96ad-5ed40b8b7d0e"
	runFixtures(t, "copilot", Copilot, []fixture{
		{"real-pre-tool-use-ask-user.json", Set, s2, statusfile.Working, keep},
		{"real-notification-elicitation-dialog.json", Set, s2, statusfile.Blocked, keep},
	})
}

func TestCopilotAndQwenEdgeCases(t *testing.T) {
	runEdgeCases(t, []edgeCase{
		{"copilot permission request: Copilot's rules decide after it", Copilot, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash"}`, Ignore, ""},
		{"copilot session_id wins over sessionId", Copilot, `{"session_id":"s","sessionId":"t","hook_event_name":"Stop"}`, Set, statusfile.Idle},
		{"copilot error without recoverable", Copilot, `{"session_id":"s","hook_event_name":"ErrorOccurred","error_context":"model_call"}`, Set, statusfile.Idle},
		{"copilot error without a context", Copilot, `{"session_id":"s","hook_event_name":"ErrorOccurred","recoverable":false}`, Ignore, ""},
		{"copilot unknown notification", Copilot, `{"sessionId":"s","hook_event_name":"Notification","notification_type":"future"}`, Ignore, ""},
		{"copilot unknown event", Copilot, `{"session_id":"s","hook_event_name":"Future"}`, Ignore, ""},
		{"qwen compaction keeps the state", Qwen, `{"session_id":"s","hook_event_name":"SessionStart","source":"compact"}`, Set, ""},
		{"qwen /compress", Qwen, `{"session_id":"s","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":""}`, Set, statusfile.Working},
		{"qwen compaction in the middle of a turn", Qwen, `{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto"}`, Ignore, ""},
		{"qwen resume", Qwen, `{"session_id":"s","hook_event_name":"SessionStart","source":"resume"}`, Set, statusfile.Idle},
		{"qwen tool failure, not interrupted", Qwen, `{"session_id":"s","hook_event_name":"PostToolUseFailure","is_interrupt":false,"is_timeout":true}`, Set, statusfile.Working},
		{"qwen auth success", Qwen, `{"session_id":"s","hook_event_name":"Notification","notification_type":"auth_success"}`, Ignore, ""},
		{"qwen unknown notification", Qwen, `{"session_id":"s","hook_event_name":"Notification","notification_type":"future"}`, Ignore, ""},
		{"qwen permission denied (auto mode): the turn goes on", Qwen, `{"session_id":"s","hook_event_name":"PermissionDenied","tool_name":"run_shell_command"}`, Ignore, ""},
		{"qwen stop while a background agent runs", Qwen, `{"session_id":"s","hook_event_name":"Stop","background_tasks":[{"id":"a","status":"running","agent_type":"general-purpose"}]}`, Set, statusfile.Working},
		{"qwen stop after the background agent completed", Qwen, `{"session_id":"s","hook_event_name":"Stop","background_tasks":[{"id":"a","status":"completed","agent_type":"general-purpose"}]}`, Set, statusfile.Idle},
		{"qwen subagent stop", Qwen, `{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a"}`, Ignore, ""},
		{"qwen message display", Qwen, `{"session_id":"s","hook_event_name":"MessageDisplay","is_final":false}`, Ignore, ""},
		{"qwen unknown event", Qwen, `{"session_id":"s","hook_event_name":"Future"}`, Ignore, ""},
	})
}

func TestCopilotAndQwenBadInput(t *testing.T) {
	common := slices.Concat(badInputs, []string{`{"sessionId":"","hook_event_name":"Notification"}`})
	// A field of the wrong type refuses the payload whole, as for the
	// other agents.
	for name, tt := range map[string]struct {
		m    Mapper
		more string
	}{
		"copilot": {Copilot, `{"session_id":"s","hook_event_name":"ErrorOccurred","error_context":7}`},
		"qwen":    {Qwen, `{"session_id":"s","hook_event_name":"PostToolUseFailure","is_interrupt":"true"}`},
	} {
		checkBadInput(t, name, tt.m, append(common, tt.more)...)
	}
}

func FuzzCopilot(f *testing.F) { fuzzMapper(f, "copilot", Copilot) }
func FuzzQwen(f *testing.F)    { fuzzMapper(f, "qwen", Qwen) }

// The payloads Qwen Code 0.24.4 really sent (testdata/qwen/real-*.json,
// recorded against a scripted model on 127.0.0.1; the temporary HOME and
// project paths replaced by /home/user and /home/user/my-project).
func TestQwenReal(t *testing.T) {
	const s = "7e751eb0-cf3e-4174-b1fb-19d6018741ca"
	runFixtures(t, "qwen", Qwen, []fixture{
		{"real-session-start-startup.json", Set, s, statusfile.Idle, keep},
		{"real-user-prompt-submit.json", Set, s, statusfile.Working, keep},
		{"real-permission-request-shell.json", Set, s, statusfile.Blocked, keep},
		{"real-notification-permission-prompt.json", Set, s, statusfile.Blocked, keep},
		{"real-pre-tool-use-shell.json", Set, s, statusfile.Working, keep},
		{"real-post-tool-use-shell.json", Set, s, statusfile.Working, keep},
		// After a tool's result, the model's next request is announced as
		// a prompt with no text.
		{"real-user-prompt-submit-continuation.json", Set, s, statusfile.Working, keep},
		{"real-post-tool-use-parallel.json", Set, s, statusfile.Working, keep},
		{"real-stop.json", Set, s, statusfile.Idle, keep},
		// Esc in an approved command: no Stop follows.
		{"real-post-tool-use-failure-interrupt.json", Set, s, statusfile.Idle, keep},
		{"real-stop-failure-400.json", Set, s, statusfile.Idle, keep},
		// Sent whenever the CLI is back at its prompt: after Stop, and
		// after a denial or Esc, which run no other hook.
		{"real-notification-idle-prompt.json", Set, s, statusfile.Idle, keep},
		{"real-session-end-exit.json", Remove, s, "", keep},
	})
	// ask_user_question asks through a confirmation; /clear ends the
	// session and starts one with a new id.
	const s2, s3 = "503ead66-099a-4da6-8eec-a4bb16ca4002", "b53b10d5-af3e-4b9c-a851-41f28fefe1f1"
	runFixtures(t, "qwen", Qwen, []fixture{
		{"real-permission-request-ask-user-question.json", Set, s2, statusfile.Blocked, keep},
		{"real-pre-tool-use-ask-user-question.json", Set, s2, statusfile.Working, keep},
		{"real-session-end-clear.json", Remove, s2, "", keep},
		{"real-session-start-clear.json", Set, s3, statusfile.Idle, keep},
	})
	// /compress: PreCompact is the only hook before its end's idle_prompt.
	runFixtures(t, "qwen", Qwen, []fixture{
		{"real-pre-compact-manual.json", Set, "b42357ca-ce22-443d-90d2-5dc3dc06f5a2", statusfile.Working, keep},
	})
}

// A subagent's PermissionRequest (its agent_id) is blocked, marked as one
// that a background agent's run denies without a dialog; the session's
// own is not marked (the real payloads of Qwen Code 0.24.4, shortened).
func TestQwenSubagentPermission(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		denied  bool
	}{
		{"the session's", `{"session_id":"s","hook_event_name":"PermissionRequest","permission_mode":"default","tool_name":"run_shell_command","tool_input":{"command":"touch x"}}`, false},
		{"a subagent's", `{"session_id":"s","hook_event_name":"PermissionRequest","permission_mode":"auto-edit","agent_id":"general-purpose-call_chatcmpl-e2e1_0","tool_name":"run_shell_command","tool_input":{"command":"touch x"}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Qwen([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if a.State != statusfile.Blocked || a.DeniedInBackground != tt.denied {
				t.Errorf("got state %q, DeniedInBackground %v; want blocked, %v", a.State, a.DeniedInBackground, tt.denied)
			}
		})
	}
	// Only a PermissionRequest: the subagent's other events are its work.
	a, err := Qwen([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","agent_id":"a","tool_name":"run_shell_command"}`))
	if err != nil || a.DeniedInBackground {
		t.Errorf("PreToolUse: DeniedInBackground %v, %v", a.DeniedInBackground, err)
	}
}

// The agent tool's PostToolUse for a background agent counts it at once
// (its tool may ask before the turn's Stop counts it); a foreground
// subagent's and other tools' results (returnDisplay is text) count
// nothing.
func TestQwenBackgroundLaunch(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		agents  int // -1: Background nil
	}{
		{"background agent", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"agent","tool_response":{"llmContent":"Background agent launched successfully.","returnDisplay":{"type":"task_execution","executionMode":"background","status":"background"}}}`, 1},
		{"foreground subagent", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"agent","tool_response":{"returnDisplay":{"type":"task_execution","executionMode":"foreground","status":"completed"}}}`, -1},
		{"shell", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_response":{"llmContent":"ok","returnDisplay":"ok"}}`, -1},
		{"the agent tool asks", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"agent","tool_input":{"run_in_background":true}}`, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Qwen([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			got := -1
			if a.Background != nil {
				got = a.Background.Agents
			}
			if a.State != statusfile.Working || got != tt.agents || a.TasksKept != (tt.agents > 0) {
				t.Errorf("got state %q, agents %d, TasksKept %v; want working, %d", a.State, got, a.TasksKept, tt.agents)
			}
		})
	}
}

// What the real payloads say of why a session waits or how its turn
// ended (the reason keys, SPEC.md §4.4).
func TestCopilotQwenWhy(t *testing.T) {
	tests := []struct {
		m     Mapper
		file  string
		wait  statusfile.Waiting
		ended statusfile.Ended
	}{
		{Qwen, "qwen/real-permission-request-shell.json",
			statusfile.Waiting{Kind: "permission", Tool: "run_shell_command", Detail: "timeout 4 tail -f /dev/null; touch e2e-approve"}, statusfile.Ended{}},
		{Qwen, "qwen/real-permission-request-ask-user-question.json",
			statusfile.Waiting{Kind: "question", Tool: "ask_user_question", Detail: "Which database?"}, statusfile.Ended{}},
		// Kind only: the publisher keeps what PermissionRequest said.
		{Qwen, "qwen/real-notification-permission-prompt.json", statusfile.Waiting{Kind: "permission"}, statusfile.Ended{}},
		{Qwen, "qwen/real-stop.json", statusfile.Waiting{}, statusfile.Ended{Reason: "done"}},
		{Qwen, "qwen/real-stop-failure-400.json", statusfile.Waiting{}, statusfile.Ended{Reason: "failed", Detail: "invalid_request"}},
		{Qwen, "qwen/real-post-tool-use-failure-interrupt.json", statusfile.Waiting{}, statusfile.Ended{Reason: "cancelled"}},
		// After Stop it is done, after a denial nothing says how: kept.
		{Qwen, "qwen/real-notification-idle-prompt.json", statusfile.Waiting{}, statusfile.Ended{}},
		{Copilot, "copilot/real-notification-permission-prompt.json",
			statusfile.Waiting{Kind: "permission", Detail: "sleep 4; touch e2e-approve"}, statusfile.Ended{}},
		{Copilot, "copilot/real-notification-elicitation-dialog.json", statusfile.Waiting{Kind: "question"}, statusfile.Ended{}},
		{Copilot, "copilot/real-stop.json", statusfile.Waiting{}, statusfile.Ended{Reason: "done"}},
		// Working: the session log's session.error says how it ended.
		{Copilot, "copilot/real-error-occurred-400.json", statusfile.Waiting{}, statusfile.Ended{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			checkWhy(t, mapFixture(t, tt.m, tt.file), tt.wait, tt.ended)
		})
	}
	// Copilot CLI's abort in its session log is a cancelled turn.
	if e := SourceEnded(SourceCopilotEvents, []byte(`{"type":"abort","id":"x","data":{"reason":"user_abort"}}`)); e.Reason != "cancelled" {
		t.Errorf("SourceEnded: %+v", e)
	}
}
