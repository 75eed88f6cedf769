package agenthook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// The session and process of the recorded files in testdata/claude-session.
const (
	recordedSession = "e5704b5e-41e2-49d0-a709-b291697fe9f7"
	recordedPID     = 24461
)

func TestClaudeSessionState(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "claude-session", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	idle := string(read("idle.json"))
	tests := []struct {
		name    string
		data    string
		session string
		pid     int
		want    statusfile.State
		ok      bool
	}{
		{"idle", idle, recordedSession, recordedPID, statusfile.Idle, true},
		{"busy", string(read("busy.json")), recordedSession, recordedPID, statusfile.Working, true},
		{"waiting", string(read("waiting.json")), recordedSession, recordedPID, statusfile.Blocked, true},
		{"shell says nothing", string(read("shell.json")), recordedSession, recordedPID, "", false},
		{"another session (after /clear)", idle, "0b4c1b0e-0000-4000-8000-000000000000", recordedPID, "", false},
		{"another process", idle, recordedSession, recordedPID + 1, "", false},
		{"torn mid-write", idle[:len(idle)/2], recordedSession, recordedPID, "", false},
		{"empty", "", recordedSession, recordedPID, "", false},
		{"pid as a string", strings.Replace(idle, `"pid":24461`, `"pid":"24461"`, 1), recordedSession, recordedPID, "", false},
		{"no status (an SDK session)", strings.Replace(idle, `"status":"idle",`, ``, 1), recordedSession, recordedPID, "", false},
		{"unknown status", strings.Replace(idle, `"status":"idle"`, `"status":"dreaming"`, 1), recordedSession, recordedPID, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, since, ok := SourceState(SourceClaudeSession, []byte(tt.data), tt.session, tt.pid)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
			if ok && since != "1796130514358" {
				t.Errorf("since %q, want the file's statusUpdatedAt", since)
			}
		})
	}
	if _, _, ok := SourceState("no-such-kind", []byte(idle), recordedSession, recordedPID); ok {
		t.Error("an unknown source kind said something")
	}
}

func FuzzSourceState(f *testing.F) {
	for _, name := range []string{"idle.json", "busy.json", "waiting.json", "shell.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "claude-session", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(SourceClaudeSession, data)
	}
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		st, _, ok := SourceState(kind, data, recordedSession, recordedPID)
		if ok != (st != "") || (ok && !st.Known()) {
			t.Fatalf("%q %v: a state must be one of v1's exactly when ok", st, ok)
		}
	})
}

// Every session Codex's TUI starts replaces the process's other one: /clear
// (source clear) and /new (source startup, a new id in the same process),
// which leave the old thread loaded with no SessionEnd; a first start has
// none to replace. Its rollout is the source. Compaction starts nothing.
func TestCodexReplacesAndSource(t *testing.T) {
	for _, tt := range []struct {
		file     string
		replaces bool
	}{
		{"real-session-start-clear.json", true},
		{"real-session-start.json", true},
		{"real-session-start-new.json", true},
		{"real-user-prompt-submit.json", false},
	} {
		a := mapFixture(t, Codex, "codex", tt.file)
		if a.Replaces != tt.replaces {
			t.Errorf("%s: replaces %v", tt.file, a.Replaces)
		}
		if a.Source == nil || a.Source.Kind != SourceCodexRollout || !strings.HasSuffix(a.Source.Path, "-"+a.Session+".jsonl") {
			t.Errorf("%s: source %+v", tt.file, a.Source)
		}
	}
}

func TestCodexCompactStartsNothing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "codex", "real-session-start-compact.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Codex(data)
	if err != nil || a.Kind != Ignore || a.Replaces {
		t.Errorf("SessionStart compact: %+v, %v", a, err)
	}
}

func TestGeminiChatPath(t *testing.T) {
	const session = "c70e0ba5-1b2c-4d3e-8f90-123456789abc"
	good := "/home/u/.gemini/tmp/my-project/chats/session-2026-12-01T13-00-c70e0ba5.jsonl"
	for _, tt := range []struct {
		home, path string
		ok         bool
	}{
		{"/home/u", good, true},
		{"/home/u/", good, true},
		{"/home/v", good, false}, // another home
		{"/home/u", "/home/u/.gemini/tmp/../../../etc/session-x-c70e0ba5.jsonl", false},           // not clean
		{"/home/u", "/home/u/.gemini/tmp/p/chats/session-2026-12-01T13-00-deadbeef.jsonl", false}, // another session
		{"/home/u", "/home/u/.gemini/tmp/p/chats/session-2026-12-01T13-00-c70e0ba5.json", false},  // not the recording
		{"/home/u", "/home/u/.gemini/settings-c70e0ba5.jsonl", false},
		{"", good, false},
		{"relative", good, false},
	} {
		_, ok := GeminiChatPath(tt.home, tt.path, session)
		if ok != tt.ok {
			t.Errorf("GeminiChatPath(%q, %q) ok %v, want %v", tt.home, tt.path, ok, tt.ok)
		}
	}
	if _, ok := GeminiChatPath("/home/u", good, "short"); ok {
		t.Error("a session id shorter than the name's prefix was accepted")
	}
}

// A turn a source ends with no hook: Claude Code's and Gemini CLI's files
// go idle without a hook only on an interrupt; Codex's line says how.
func TestSourceEnded(t *testing.T) {
	for _, tt := range []struct {
		kind string
		data string
		want statusfile.Ended
	}{
		{SourceClaudeSession, `{"status":"idle"}`, statusfile.Ended{Reason: "cancelled"}},
		{SourceGeminiChat, `{"type":"info","content":"Request cancelled."}`, statusfile.Ended{Reason: "cancelled"}},
		{SourceCodexRollout, `{"type":"event_msg","payload":{"type":"task_complete"}}`, statusfile.Ended{Reason: "done"}},
		{SourceCodexRollout, `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`, statusfile.Ended{Reason: "cancelled"}},
		{SourceCodexRollout, `{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"x","codex_error_info":"usage_limit_exceeded"}}}`,
			statusfile.Ended{Reason: "rate_limited", Detail: "usage_limit_exceeded"}},
		{SourceCodexRollout, `{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"x","codex_error_info":{"http_connection_failed":{"http_status_code":502}}}}}`,
			statusfile.Ended{Reason: "failed", Detail: "http_connection_failed"}},
		{"unknown-kind", `{}`, statusfile.Ended{}},
	} {
		if got := SourceEnded(tt.kind, []byte(tt.data)); got != tt.want {
			t.Errorf("SourceEnded(%s, %s) = %+v, want %+v", tt.kind, tt.data, got, tt.want)
		}
	}
}
