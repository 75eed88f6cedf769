package agenthook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

const (
	claudeSession = "4f0c9a3e-5b7d-4e21-9d6a-1c2b3a4d5e6f"
	codexSession  = "019a7c1e-3f2b-7d10-9c4e-5b6a7d8e9f01"
	geminiSession = "8d3f6a2c-1b4e-4c5d-9e7f-0a1b2c3d4e5f"
	projectDir    = "/home/user/my-project"
)

type fixture struct {
	file    string
	kind    Kind
	session string
	state   statusfile.State
	title   *string
}

var keep = (*string)(nil)

func runFixtures(t *testing.T, dir string, m Mapper, tests []fixture) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := mapFixture(t, m, dir, tt.file)
			checkAction(t, a, tt.kind, tt.session, tt.state, tt.title)
			if a.Kind == Set && a.Cwd != projectDir && dir != "codex-notify" {
				t.Errorf("cwd %q", a.Cwd)
			}
		})
	}
}

// Shapes: https://docs.claude.com/en/docs/claude-code/hooks (testdata/SOURCES.md).
func TestClaude(t *testing.T) {
	runFixtures(t, "claude", Claude, []fixture{
		{"session-start.json", Set, claudeSession, statusfile.Idle, keep},
		{"session-start-compact.json", Set, claudeSession, "", keep},
		{"user-prompt-submit.json", Set, claudeSession, statusfile.Working, keep},
		{"pre-tool-use-todowrite.json", Set, claudeSession, statusfile.Working, ptr("Add the hook publisher")},
		{"post-tool-use-todowrite.json", Set, claudeSession, statusfile.Working, ptr("Add the hook publisher")},
		{"pre-tool-use-bash.json", Set, claudeSession, statusfile.Working, keep},
		{"permission-request-bash.json", Set, claudeSession, statusfile.Blocked, keep},
		{"notification-permission.json", Set, claudeSession, statusfile.Blocked, keep},
		{"permission-denied.json", Set, claudeSession, statusfile.Working, keep},
		{"post-tool-use-bash.json", Set, claudeSession, statusfile.Working, keep},
		{"post-tool-use-failure.json", Set, claudeSession, statusfile.Working, keep},
		{"post-tool-use-todowrite-next.json", Set, claudeSession, statusfile.Working, ptr("Write the tests")},
		{"post-tool-use-todowrite-done.json", Set, claudeSession, statusfile.Working, ptr("")},
		{"post-tool-use-todowrite-legacy.json", Set, "9ecf22fa-edf8-4332-ae85-b6d5456eda64", statusfile.Working, ptr("write a readme")},
		{"stop.json", Set, claudeSession, statusfile.Idle, keep},
		{"stop-failure.json", Set, claudeSession, statusfile.Idle, keep},
		{"notification-idle.json", Set, claudeSession, statusfile.Idle, keep},
		{"notification-elicitation.json", Set, claudeSession, statusfile.Blocked, keep},
		{"notification-legacy-permission.json", Set, claudeSession, statusfile.Blocked, keep},
		{"notification-legacy-idle.json", Set, claudeSession, statusfile.Idle, keep},
		{"notification-auth-success.json", Ignore, claudeSession, "", keep},
		{"subagent-stop.json", Ignore, claudeSession, "", keep},
		{"pre-compact.json", Ignore, claudeSession, "", keep},
		{"session-end.json", Remove, claudeSession, "", keep},
	})
}

// Shapes: https://developers.openai.com/codex/hooks and openai/codex
// codex-rs/hooks/src/events/*.rs (testdata/SOURCES.md).
func TestCodex(t *testing.T) {
	runFixtures(t, "codex", Codex, []fixture{
		{"session-start.json", Set, codexSession, statusfile.Idle, keep},
		{"user-prompt-submit.json", Set, codexSession, statusfile.Working, keep},
		{"pre-tool-use.json", Set, codexSession, statusfile.Working, keep},
		{"permission-request.json", Set, codexSession, statusfile.Blocked, keep},
		{"post-tool-use.json", Set, codexSession, statusfile.Working, keep},
		{"pre-compact.json", Ignore, codexSession, "", keep},
		{"post-compact.json", Ignore, codexSession, "", keep},
		{"subagent-start.json", Ignore, codexSession, "", keep},
		{"subagent-stop.json", Ignore, codexSession, "", keep},
		{"stop.json", Set, codexSession, statusfile.Idle, keep},
		{"stop-failure.json", Set, codexSession, statusfile.Idle, keep},
		{"interrupt.json", Set, codexSession, statusfile.Idle, keep},
	})
}

// Shapes: https://developers.openai.com/codex/config-advanced ("notify").
func TestCodexNotify(t *testing.T) {
	const thread = "b5f6c1c2-1111-2222-3333-444455556666"
	runFixtures(t, "codex-notify", CodexNotify, []fixture{
		{"turn-complete.json", Set, thread, statusfile.Idle, keep},
		{"turn-complete-client.json", Set, thread, statusfile.Idle, keep},
		{"unknown-type.json", Ignore, thread, "", keep},
	})
	a := mapPayload(t, CodexNotify, `{"type":"agent-turn-start","thread-id":"t","cwd":"/w"}`)
	checkAction(t, a, Set, "t", statusfile.Working, nil)
	if a.Cwd != "/w" {
		t.Errorf("cwd %q", a.Cwd)
	}
}

// Shapes: https://geminicli.com/docs/hooks/reference (testdata/SOURCES.md).
func TestGemini(t *testing.T) {
	runFixtures(t, "gemini", Gemini, []fixture{
		{"session-start.json", Set, geminiSession, statusfile.Idle, keep},
		{"before-agent.json", Set, geminiSession, statusfile.Working, keep},
		{"before-model.json", Ignore, geminiSession, "", keep},
		{"after-model.json", Ignore, geminiSession, "", keep},
		{"before-tool-selection.json", Ignore, geminiSession, "", keep},
		{"before-tool.json", Set, geminiSession, statusfile.Working, keep},
		{"notification-tool-permission.json", Set, geminiSession, statusfile.Blocked, keep},
		{"after-tool.json", Set, geminiSession, statusfile.Working, keep},
		{"after-tool-write-todos.json", Set, geminiSession, statusfile.Working, ptr("Fix the failing test")},
		{"pre-compress.json", Ignore, geminiSession, "", keep},
		{"after-agent.json", Set, geminiSession, statusfile.Idle, keep},
		{"session-end.json", Remove, geminiSession, "", keep},
	})
}

// mapPayload maps one payload with m; an error fails the test.
func mapPayload(t *testing.T, m Mapper, payload string) Action {
	t.Helper()
	a, err := m([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mapFixture maps the payload recorded in the file testdata/<path...>.
func mapFixture(t *testing.T, m Mapper, path ...string) Action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return mapPayload(t, m, string(data))
}

func checkAction(t *testing.T, a Action, kind Kind, session string, state statusfile.State, title *string) {
	t.Helper()
	if a.Kind != kind || a.Session != session || a.State != state {
		t.Errorf("action %v %q %q, want %v %q %q", a.Kind, a.Session, a.State, kind, session, state)
	}
	switch {
	case title == nil && a.Title != nil:
		t.Errorf("title set to %q, want kept", *a.Title)
	case title != nil && a.Title == nil:
		t.Errorf("title kept, want %q", *title)
	case title != nil && *a.Title != *title:
		t.Errorf("title %q, want %q", *a.Title, *title)
	}
}

func TestClaudeEdgeCases(t *testing.T) {
	tests := []struct {
		name  string
		input string
		kind  Kind
		state statusfile.State
		title *string
		cwd   string
	}{
		{"unknown event", `{"session_id":"s","hook_event_name":"MessageDisplay"}`, Ignore, "", keep, ""},
		{"no event", `{"session_id":"s"}`, Ignore, "", keep, ""},
		{"relative cwd ignored", `{"session_id":"s","cwd":"rel/dir","hook_event_name":"Stop"}`, Set, statusfile.Idle, keep, ""},
		{"TodoWrite without todos keeps the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{}}`, Set, statusfile.Working, keep, ""},
		{"TodoWrite with a bad list keeps the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":"x"}}`, Set, statusfile.Working, keep, ""},
		{"TodoWrite empty list clears the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[]}}`, Set, statusfile.Working, ptr(""), ""},
		{"first in_progress item wins", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"},{"content":"c","status":"in_progress"}]}}`, Set, statusfile.Working, ptr("b"), ""},
		{"activeForm when content is empty", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"","status":"in_progress","activeForm":"Doing b"}]}}`, Set, statusfile.Working, ptr("Doing b"), ""},
		{"failed TodoWrite keeps the title", `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"x","status":"in_progress"}]}}`, Set, statusfile.Working, keep, ""},
		{"other tool's todos ignored", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"todos":[{"content":"x","status":"in_progress"}]}}`, Set, statusfile.Working, keep, ""},
		{"notification of unknown type", `{"session_id":"s","hook_event_name":"Notification","notification_type":"quota_auto_resume_fired","message":"needs your permission"}`, Ignore, "", keep, ""},
		{"another agent needs input", `{"session_id":"s","hook_event_name":"Notification","notification_type":"agent_needs_input","message":"Agent explorer needs your input"}`, Ignore, "", keep, ""},
		{"another agent completed", `{"session_id":"s","hook_event_name":"Notification","notification_type":"agent_completed","message":"Agent explorer completed"}`, Ignore, "", keep, ""},
		{"legacy approval text", `{"session_id":"s","hook_event_name":"Notification","message":"Claude Code needs your approval for the plan"}`, Set, statusfile.Blocked, keep, ""},
		{"legacy plan mode text", `{"session_id":"s","hook_event_name":"Notification","message":"Claude Code wants to enter plan mode"}`, Set, statusfile.Blocked, keep, ""},
		{"legacy unrelated text", `{"session_id":"s","hook_event_name":"Notification","message":"Task finished"}`, Ignore, "", keep, ""},
		{"answered elicitation", `{"session_id":"s","hook_event_name":"Notification","notification_type":"elicitation_response"}`, Set, statusfile.Working, keep, ""},
		{"Elicitation waits for the user", `{"session_id":"s","hook_event_name":"Elicitation","mcp_server_name":"db","message":"Which table?"}`, Set, statusfile.Blocked, keep, ""},
		{"ElicitationResult", `{"session_id":"s","hook_event_name":"ElicitationResult","mcp_server_name":"db","action":"accept"}`, Set, statusfile.Working, keep, ""},
		{"PostToolBatch", `{"session_id":"s","hook_event_name":"PostToolBatch"}`, Set, statusfile.Working, keep, ""},
		{"SubagentStart", `{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a"}`, Ignore, "", keep, ""},
		{"unknown keys", `{"session_id":"s","hook_event_name":"Stop","future":{"x":[1,2]},"cwd":"/w"}`, Set, statusfile.Idle, keep, "/w"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mapPayload(t, Claude, tt.input)
			checkAction(t, a, tt.kind, "s", tt.state, tt.title)
			if a.Cwd != tt.cwd {
				t.Errorf("cwd %q, want %q", a.Cwd, tt.cwd)
			}
		})
	}
}

// edgeCase is one payload of an edge case, mapped by m to an action of
// session "s" that keeps the title.
type edgeCase struct {
	name  string
	m     Mapper
	input string
	kind  Kind
	state statusfile.State
}

func runEdgeCases(t *testing.T, tests []edgeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAction(t, mapPayload(t, tt.m, tt.input), tt.kind, "s", tt.state, nil)
		})
	}
}

func TestCodexAndGeminiEdgeCases(t *testing.T) {
	runEdgeCases(t, []edgeCase{
		{"codex compact restart keeps the state", Codex, `{"session_id":"s","hook_event_name":"SessionStart","source":"compact"}`, Ignore, ""},
		{"codex resume", Codex, `{"session_id":"s","hook_event_name":"SessionStart","source":"resume"}`, Set, statusfile.Idle},
		{"codex session end", Codex, `{"session_id":"s","hook_event_name":"SessionEnd"}`, Remove, ""},
		{"codex unknown event", Codex, `{"session_id":"s","hook_event_name":"Future"}`, Ignore, ""},
		{"gemini other notification", Gemini, `{"session_id":"s","hook_event_name":"Notification","notification_type":"Other"}`, Ignore, ""},
		{"gemini unknown event", Gemini, `{"session_id":"s","hook_event_name":"Future"}`, Ignore, ""},
	})
}

// badInputs are payloads no mapper takes: not a JSON object, or without a
// session id.
var badInputs = []string{"", "   ", "null", "[]", `"x"`, "{", `{"session_id":5}`, `{"hook_event_name":"Stop"}`, `{"session_id":"","hook_event_name":"Stop"}`}

// checkBadInput checks that m refuses every one of inputs with ErrBadInput.
func checkBadInput(t *testing.T, name string, m Mapper, inputs ...string) {
	t.Helper()
	for _, in := range inputs {
		if _, err := m([]byte(in)); !errors.Is(err, ErrBadInput) {
			t.Errorf("%s %q: %v, want ErrBadInput", name, in, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, name := range append([]string{"codex-notify"}, Agents...) {
		m, _ := ForAgent(name)
		checkBadInput(t, name, m, badInputs...)
	}
	if _, ok := ForAgent("opencode"); ok {
		t.Error("ForAgent(opencode): OpenCode has no hook command")
	}
}

func TestClaudeTaskEvents(t *testing.T) {
	tests := []struct {
		file string
		op   *TaskOp
	}{
		{"post-tool-use-taskcreate.json", &TaskOp{ID: "1", Create: true, Subject: "Add the hook publisher", ActiveForm: "Adding the hook publisher"}},
		{"post-tool-use-taskupdate-start-1.json", &TaskOp{ID: "1", Status: "in_progress"}},
		{"post-tool-use-taskupdate-start-2.json", &TaskOp{ID: "2", Status: "in_progress", ActiveForm: "Writing the tests"}},
		{"task-created.json", &TaskOp{ID: "3", Create: true, Subject: "Update the README"}},
		{"task-completed.json", &TaskOp{ID: "2", Subject: "Write the tests", Status: "completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := mapFixture(t, Claude, "claude", tt.file)
			if a.Kind != Set || a.Task == nil || *a.Task != *tt.op || a.Title != nil {
				t.Errorf("action %+v task %+v, want task %+v", a, a.Task, *tt.op)
			}
		})
	}
	// A PreToolUse of a task tool changes nothing yet: the tool may fail.
	a, err := Claude([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TaskUpdate","tool_input":{"taskId":"1","status":"in_progress"}}`))
	if err != nil || a.Task != nil || a.State != "working" {
		t.Errorf("PreToolUse TaskUpdate: %+v %v", a, err)
	}
}

func FuzzClaude(f *testing.F) { fuzzMapper(f, "claude", Claude) }
func FuzzCodex(f *testing.F)  { fuzzMapper(f, "codex", Codex) }
func FuzzGemini(f *testing.F) { fuzzMapper(f, "gemini", Gemini) }
func FuzzCodexNotify(f *testing.F) {
	fuzzMapper(f, "codex-notify", CodexNotify)
}

// fuzzMapper checks that no input makes a mapper panic, and that what it
// decides is something a hook command can do.
func fuzzMapper(f *testing.F, dir string, m Mapper) {
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := m(data)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error %v is not ErrBadInput", err)
			}
			return
		}
		if a.Session == "" {
			t.Fatal("action without a session")
		}
		if a.State != "" && !a.State.Known() {
			t.Fatalf("state %q", a.State)
		}
		if a.Kind != Set && (a.State != "" || a.Title != nil || a.Cwd != "" || a.Task != nil) {
			t.Fatalf("%v action carries changes: %+v", a.Kind, a)
		}
		if a.Cwd != "" && a.Cwd[0] != '/' {
			t.Fatalf("relative cwd %q", a.Cwd)
		}
		// The reason keys come only with their state.
		if a.Waiting != (statusfile.Waiting{}) && (a.State != statusfile.Blocked || a.Waiting.Kind == "") {
			t.Fatalf("waiting %+v with state %q", a.Waiting, a.State)
		}
		if a.Ended != (statusfile.Ended{}) && (a.State != statusfile.Idle || a.Ended.Reason == "") {
			t.Fatalf("ended %+v with state %q", a.Ended, a.State)
		}
	})
}

// checkWhy checks the reason keys of a: what it waits for, how its turn
// ended.
func checkWhy(t *testing.T, a Action, wait statusfile.Waiting, ended statusfile.Ended) {
	t.Helper()
	if a.Waiting != wait || a.Ended != ended {
		t.Errorf("waiting %+v, ended %+v; want %+v, %+v", a.Waiting, a.Ended, wait, ended)
	}
}

func TestReasonKeys(t *testing.T) {
	tests := []struct {
		name    string
		m       Mapper
		payload string
		wait    statusfile.Waiting
		ended   statusfile.Ended
	}{
		{"claude permission", Claude, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"Remove"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"}, statusfile.Ended{}},
		{"claude edit", Claude, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"/src/main.go","old_string":"a"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "Edit", Detail: "/src/main.go"}, statusfile.Ended{}},
		{"claude question", Claude, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which database?"}]}}`,
			statusfile.Waiting{Kind: "question", Tool: "AskUserQuestion", Detail: "Which database?"}, statusfile.Ended{}},
		{"claude elicitation", Claude, `{"session_id":"s","hook_event_name":"Elicitation","mcp_server_name":"db","message":"Pick a table"}`,
			statusfile.Waiting{Kind: "question", Detail: "Pick a table"}, statusfile.Ended{}},
		{"claude permission notification", Claude, `{"session_id":"s","hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`,
			statusfile.Waiting{Kind: "permission"}, statusfile.Ended{}},
		{"claude stop", Claude, `{"session_id":"s","hook_event_name":"Stop"}`, statusfile.Waiting{}, statusfile.Ended{Reason: "done"}},
		{"claude rate limit", Claude, `{"session_id":"s","hook_event_name":"StopFailure","error":"rate_limit"}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}},
		{"claude server error", Claude, `{"session_id":"s","hook_event_name":"StopFailure","error":"server_error"}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "failed", Detail: "server_error"}},
		{"claude failure without a kind", Claude, `{"session_id":"s","hook_event_name":"StopFailure"}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "failed"}},
		{"codex permission", Codex, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"sleep 20","description":"e2e"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "sleep 20"}, statusfile.Ended{}},
		{"codex argv", Codex, `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"shell","tool_input":{"command":["git","push"]}}`,
			statusfile.Waiting{Kind: "permission", Tool: "shell", Detail: "git push"}, statusfile.Ended{}},
		{"codex question", Codex, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_input":{"questions":[{"id":"c","question":"Pick one?"}]}}`,
			statusfile.Waiting{Kind: "question", Tool: "request_user_input", Detail: "Pick one?"}, statusfile.Ended{}},
		{"codex interrupt", Codex, `{"session_id":"s","hook_event_name":"Interrupt"}`, statusfile.Waiting{}, statusfile.Ended{Reason: "cancelled"}},
		{"codex stop", Codex, `{"session_id":"s","hook_event_name":"Stop"}`, statusfile.Waiting{}, statusfile.Ended{Reason: "done"}},
		{"codex stop failure", Codex, `{"session_id":"s","hook_event_name":"StopFailure","error":"rate_limit"}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "rate_limited", Detail: "rate_limit"}},
		{"gemini exec", Gemini, `{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission","details":{"type":"exec","title":"Confirm Shell Command","command":"touch a","rootCommand":"touch"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "Shell", Detail: "touch a"}, statusfile.Ended{}},
		{"gemini edit", Gemini, `{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission","details":{"type":"edit","title":"Confirm Edit","fileName":"a.go","filePath":"/src/a.go"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "Edit", Detail: "/src/a.go"}, statusfile.Ended{}},
		{"gemini mcp", Gemini, `{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission","details":{"type":"mcp","title":"Confirm MCP","serverName":"db","toolName":"query"}}`,
			statusfile.Waiting{Kind: "permission", Tool: "query"}, statusfile.Ended{}},
		{"gemini ask_user", Gemini, `{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission","details":{"type":"ask_user","title":"Ask User"}}`,
			statusfile.Waiting{Kind: "question"}, statusfile.Ended{}},
		{"gemini done", Gemini, `{"session_id":"s","hook_event_name":"AfterAgent","prompt_response":"All pass."}`, statusfile.Waiting{}, statusfile.Ended{Reason: "done"}},
		{"gemini no response", Gemini, `{"session_id":"s","hook_event_name":"AfterAgent","prompt_response":"[no response text]"}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "failed", Detail: "no response"}},
		{"gemini cancelled tool", Gemini, `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"Command was cancelled by user before it could complete.","returnDisplay":"Command cancelled by user."}}`,
			statusfile.Waiting{}, statusfile.Ended{Reason: "cancelled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkWhy(t, mapPayload(t, tt.m, tt.payload), tt.wait, tt.ended)
		})
	}
}

func TestTaskToolOp(t *testing.T) {
	tests := []struct {
		name, tool, input, response string
		want                        *TaskOp
	}{
		{"create", "TaskCreate", `{"subject":"S","description":"D","activeForm":"Sing"}`, `{"task":{"id":"7","subject":"S"}}`,
			&TaskOp{ID: "7", Create: true, Subject: "S", ActiveForm: "Sing"}},
		{"create, numeric id", "TaskCreate", `{"subject":"S"}`, `{"task":{"id":7}}`, &TaskOp{ID: "7", Create: true, Subject: "S"}},
		{"create, subject from the response", "TaskCreate", `{}`, `{"task":{"id":"7","subject":"R"}}`, &TaskOp{ID: "7", Create: true, Subject: "R"}},
		{"create without id", "TaskCreate", `{"subject":"S"}`, `{"message":"created"}`, nil},
		{"create without response", "TaskCreate", `{"subject":"S"}`, ``, nil},
		{"update", "TaskUpdate", `{"taskId":"1","status":"in_progress"}`, ``, &TaskOp{ID: "1", Status: "in_progress"}},
		{"update by id", "TaskUpdate", `{"id":"2","status":"completed","subject":"X"}`, ``, &TaskOp{ID: "2", Status: "completed", Subject: "X"}},
		{"update by task_id", "TaskUpdate", `{"task_id":3,"status":"deleted"}`, ``, &TaskOp{ID: "3", Status: "deleted"}},
		{"update, unknown status", "TaskUpdate", `{"taskId":"1","status":"blocked","subject":"Y"}`, ``, &TaskOp{ID: "1", Subject: "Y"}},
		{"update without id", "TaskUpdate", `{"status":"completed"}`, ``, nil},
		{"bad input", "TaskUpdate", `[1]`, ``, nil},
		{"other tool", "TaskList", `{}`, `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TaskToolOp(tt.tool, []byte(tt.input), []byte(tt.response))
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("%+v, want nil", *got)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("%+v, want %+v", got, *tt.want)
			}
		})
	}
}

func TestGeminiTodoTitle(t *testing.T) {
	tests := []struct {
		name, input string
		title       *string
	}{
		{"in progress", `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":[{"description":"a","status":"completed"},{"description":"b","status":"in_progress"}]}}`, ptr("b")},
		{"none in progress", `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":[{"description":"a","status":"completed"}]}}`, ptr("")},
		{"not a list", `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":"x"}}`, nil},
		{"before the tool ran", `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"write_todos","tool_input":{"todos":[{"description":"b","status":"in_progress"}]}}`, nil},
		{"another tool", `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_file","tool_input":{"todos":[{"description":"b","status":"in_progress"}]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAction(t, mapPayload(t, Gemini, tt.input), Set, "s", statusfile.Working, tt.title)
		})
	}
}
