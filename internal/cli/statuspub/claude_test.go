package statuspub

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

const claudeSession = "4f0c9a3e-5b7d-4e21-9d6a-1c2b3a4d5e6f"

func TestClaudeAction(t *testing.T) {
	keep := (*string)(nil)
	tests := []struct {
		file    string
		kind    actionKind
		session string
		state   statusfile.State
		title   *string
	}{
		{"session-start.json", actSet, claudeSession, statusfile.Idle, keep},
		{"session-start-compact.json", actSet, claudeSession, "", keep},
		{"user-prompt-submit.json", actSet, claudeSession, statusfile.Working, keep},
		{"pre-tool-use-todowrite.json", actSet, claudeSession, statusfile.Working, ptr("Add the hook publisher")},
		{"post-tool-use-todowrite.json", actSet, claudeSession, statusfile.Working, ptr("Add the hook publisher")},
		{"pre-tool-use-bash.json", actSet, claudeSession, statusfile.Working, keep},
		{"permission-request-bash.json", actSet, claudeSession, statusfile.Blocked, keep},
		{"notification-permission.json", actSet, claudeSession, statusfile.Blocked, keep},
		{"post-tool-use-bash.json", actSet, claudeSession, statusfile.Working, keep},
		{"post-tool-use-failure.json", actSet, claudeSession, statusfile.Working, keep},
		{"post-tool-use-todowrite-next.json", actSet, claudeSession, statusfile.Working, ptr("Write the tests")},
		{"post-tool-use-todowrite-done.json", actSet, claudeSession, statusfile.Working, ptr("")},
		{"post-tool-use-todowrite-legacy.json", actSet, "9ecf22fa-edf8-4332-ae85-b6d5456eda64", statusfile.Working, ptr("write a readme")},
		{"stop.json", actSet, claudeSession, statusfile.Idle, keep},
		{"stop-failure.json", actSet, claudeSession, statusfile.Idle, keep},
		{"notification-idle.json", actSet, claudeSession, statusfile.Idle, keep},
		{"notification-elicitation.json", actSet, claudeSession, statusfile.Blocked, keep},
		{"notification-legacy-permission.json", actSet, claudeSession, statusfile.Blocked, keep},
		{"notification-legacy-idle.json", actSet, claudeSession, statusfile.Idle, keep},
		{"notification-auth-success.json", actIgnore, claudeSession, "", keep},
		{"subagent-stop.json", actIgnore, claudeSession, "", keep},
		{"pre-compact.json", actIgnore, claudeSession, "", keep},
		{"session-end.json", actClear, claudeSession, "", keep},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "claude", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a, err := claudeAction(data)
			if err != nil {
				t.Fatal(err)
			}
			checkAction(t, a, tt.kind, tt.session, tt.state, tt.title)
			if a.kind == actSet && a.cwd != "/home/user/my-project" {
				t.Errorf("cwd %q", a.cwd)
			}
		})
	}
}

func checkAction(t *testing.T, a hookAction, kind actionKind, session string, state statusfile.State, title *string) {
	t.Helper()
	if a.kind != kind || a.session != session || a.state != state {
		t.Errorf("action %v %q %q, want %v %q %q", a.kind, a.session, a.state, kind, session, state)
	}
	switch {
	case title == nil && a.title != nil:
		t.Errorf("title set to %q, want kept", *a.title)
	case title != nil && a.title == nil:
		t.Errorf("title kept, want %q", *title)
	case title != nil && *a.title != *title:
		t.Errorf("title %q, want %q", *a.title, *title)
	}
}

func TestClaudeActionEdgeCases(t *testing.T) {
	keep := (*string)(nil)
	tests := []struct {
		name  string
		input string
		kind  actionKind
		state statusfile.State
		title *string
		cwd   string
	}{
		{"unknown event", `{"session_id":"s","hook_event_name":"MessageDisplay"}`, actIgnore, "", keep, ""},
		{"no event", `{"session_id":"s"}`, actIgnore, "", keep, ""},
		{"relative cwd ignored", `{"session_id":"s","cwd":"rel/dir","hook_event_name":"Stop"}`, actSet, statusfile.Idle, keep, ""},
		{"TodoWrite without todos keeps the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{}}`, actSet, statusfile.Working, keep, ""},
		{"TodoWrite with a bad list keeps the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":"x"}}`, actSet, statusfile.Working, keep, ""},
		{"TodoWrite empty list clears the title", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[]}}`, actSet, statusfile.Working, ptr(""), ""},
		{"first in_progress item wins", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"},{"content":"c","status":"in_progress"}]}}`, actSet, statusfile.Working, ptr("b"), ""},
		{"activeForm when content is empty", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"","status":"in_progress","activeForm":"Doing b"}]}}`, actSet, statusfile.Working, ptr("Doing b"), ""},
		{"failed TodoWrite keeps the title", `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"x","status":"in_progress"}]}}`, actSet, statusfile.Working, keep, ""},
		{"other tool's todos ignored", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"todos":[{"content":"x","status":"in_progress"}]}}`, actSet, statusfile.Working, keep, ""},
		{"notification of unknown type", `{"session_id":"s","hook_event_name":"Notification","notification_type":"quota_auto_resume_fired","message":"needs your permission"}`, actIgnore, "", keep, ""},
		{"legacy approval text", `{"session_id":"s","hook_event_name":"Notification","message":"Claude Code needs your approval for the plan"}`, actSet, statusfile.Blocked, keep, ""},
		{"legacy plan mode text", `{"session_id":"s","hook_event_name":"Notification","message":"Claude Code wants to enter plan mode"}`, actSet, statusfile.Blocked, keep, ""},
		{"legacy unrelated text", `{"session_id":"s","hook_event_name":"Notification","message":"Task finished"}`, actIgnore, "", keep, ""},
		{"answered elicitation", `{"session_id":"s","hook_event_name":"Notification","notification_type":"elicitation_response"}`, actSet, statusfile.Working, keep, ""},
		{"unknown keys", `{"session_id":"s","hook_event_name":"Stop","future":{"x":[1,2]},"cwd":"/w"}`, actSet, statusfile.Idle, keep, "/w"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := claudeAction([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			checkAction(t, a, tt.kind, "s", tt.state, tt.title)
			if a.cwd != tt.cwd {
				t.Errorf("cwd %q, want %q", a.cwd, tt.cwd)
			}
		})
	}
}

func TestHookActionBadInput(t *testing.T) {
	for _, in := range []string{"", "   ", "null", "[]", `"x"`, "{", `{"session_id":5}`, `{"hook_event_name":"Stop"}`, `{"session_id":"","hook_event_name":"Stop"}`} {
		if _, err := claudeAction([]byte(in)); !errors.Is(err, ErrBadHookInput) {
			t.Errorf("claude %q: %v, want ErrBadHookInput", in, err)
		}
		if _, err := codexAction([]byte(in)); !errors.Is(err, ErrBadHookInput) {
			t.Errorf("codex %q: %v, want ErrBadHookInput", in, err)
		}
	}
}

func TestCodexAction(t *testing.T) {
	const thread = "b5f6c1c2-1111-2222-3333-444455556666"
	tests := []struct {
		file  string
		kind  actionKind
		state statusfile.State
		cwd   string
	}{
		{"turn-complete.json", actSet, statusfile.Idle, "/Users/alice/projects/example"},
		{"turn-complete-client.json", actSet, statusfile.Idle, "/Users/example/project"},
		{"unknown-type.json", actIgnore, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "codex", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a, err := codexAction(data)
			if err != nil {
				t.Fatal(err)
			}
			checkAction(t, a, tt.kind, thread, tt.state, nil)
			if a.cwd != tt.cwd {
				t.Errorf("cwd %q, want %q", a.cwd, tt.cwd)
			}
		})
	}
	a, err := codexAction([]byte(`{"type":"agent-turn-start","thread-id":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	checkAction(t, a, actSet, "t", statusfile.Working, nil)
}

// FuzzClaudeAction checks that no input makes the adapter panic, and that
// what it decides is something set or clear can do.
func FuzzClaudeAction(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claude", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := claudeAction(data)
		checkFuzzAction(t, a, err)
	})
}

func FuzzCodexAction(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "codex", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := codexAction(data)
		checkFuzzAction(t, a, err)
	})
}

func checkFuzzAction(t *testing.T, a hookAction, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrBadHookInput) {
			t.Fatalf("error %v is not ErrBadHookInput", err)
		}
		return
	}
	if a.session == "" {
		t.Fatal("action without a session")
	}
	if a.state != "" && !a.state.Known() {
		t.Fatalf("state %q", a.state)
	}
	if a.kind != actSet && (a.state != "" || a.title != nil || a.cwd != "") {
		t.Fatalf("%v action carries changes: %+v", a.kind, a)
	}
	if a.cwd != "" && a.cwd[0] != '/' {
		t.Fatalf("relative cwd %q", a.cwd)
	}
}
