package agenthook

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Payloads recorded from Codex 0.171.0 (the TUI, with and without its
// app-server daemon) against a scripted model on 127.0.0.1.
func TestCodexReal(t *testing.T) {
	const (
		session = "01a231b1-c6f9-7bf0-9830-be11eaed1adf"
		cwd     = "/tmp/cx/proj"
	)
	tests := []struct {
		file    string
		kind    Kind
		session string
		state   statusfile.State
	}{
		{"real-session-start.json", Set, session, statusfile.Idle},
		{"real-session-start-clear.json", Set, "01a231b5-411f-79e3-925f-7f9cd87100f6", statusfile.Idle},
		{"real-user-prompt-submit.json", Set, session, statusfile.Working},
		{"real-pre-tool-use.json", Set, session, statusfile.Working},
		{"real-permission-request.json", Set, session, statusfile.Blocked},
		{"real-post-tool-use.json", Set, session, statusfile.Working},
		{"real-stop.json", Set, session, statusfile.Idle},
		// Esc during a tool, during streaming, and the denial of a
		// permission (Esc at the dialog) all send Interrupt.
		{"real-interrupt.json", Set, session, statusfile.Idle},
		// The question of request_user_input shows as the tool starts; no
		// PermissionRequest comes. Its PostToolUse is the answer.
		{"real-pre-tool-use-question.json", Set, session, statusfile.Blocked},
		{"real-post-tool-use-question.json", Set, session, statusfile.Working},
		{"real-session-end.json", Remove, "01a231b5-d427-72d1-b32d-f47a61036ebb", ""},
		// A subagent's start and end (spawn_agent), sent when registered
		// (statuspub install does not): not the session's turn.
		{"real-subagent-start.json", Ignore, "01a23d75-064b-7c02-8e64-4ccf568d028e", ""},
		{"real-subagent-stop.json", Ignore, "01a23d75-064b-7c02-8e64-4ccf568d028e", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := mapFixture(t, Codex, "codex", tt.file)
			checkAction(t, a, tt.kind, tt.session, tt.state, nil)
			if a.Kind == Set && a.Cwd != cwd {
				t.Errorf("cwd %q", a.Cwd)
			}
		})
	}
}

// The rollout lines recorded from Codex 0.171.0: one of each kind in a
// session that had a text turn, an approved tool, a denial (Esc at the
// dialog), a failed turn (HTTP 400), one that failed after retries (HTTP
// 500), and a question in Plan mode.
func TestCodexRolloutEvent(t *testing.T) {
	want := map[int]statusfile.State{
		1:   statusfile.Working, // task_started
		13:  statusfile.Idle,    // task_complete
		64:  statusfile.Idle,    // turn_aborted "interrupted": the denial
		101: statusfile.Idle,    // task_complete with error: HTTP 400
		107: statusfile.Idle,    // task_complete with error: HTTP 500 after retries
	}
	wantEnded := map[int]statusfile.Ended{
		13:  {Reason: "done"},
		64:  {Reason: "cancelled"},
		101: {Reason: "failed"},
		107: {Reason: "failed", Detail: "internal_server_error"},
	}
	f, err := os.Open(filepath.Join("testdata", "codex-rollout", "daemon-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, MaxCodexRolloutLine)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		var l struct{ Ordinal int }
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		state, ok := CodexRolloutEvent(line)
		w, wok := want[l.Ordinal]
		if ok != wok || state != w {
			t.Errorf("line %d: %q %v, want %q %v", l.Ordinal, state, ok, w, wok)
		}
		if e, we := CodexRolloutEnded(line), wantEnded[l.Ordinal]; e.Reason != we.Reason || we.Detail != "" && e.Detail != we.Detail {
			t.Errorf("line %d: ended %+v, want %+v", l.Ordinal, e, we)
		}
		n++
	}
	if err := sc.Err(); err != nil || n != 15 {
		t.Fatalf("%d lines, %v", n, err)
	}
}

func TestCodexRolloutEventEdges(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		ok    bool
		state statusfile.State // when ok; Idle unless set
	}{
		{"empty", "", false, ""},
		{"blank", "  \n", false, ""},
		{"not an object", `["event_msg"]`, false, ""},
		{"truncated (a line being written)", `{"type":"event_msg","payload":{"type":"turn_abor`, false, ""},
		{"aborted with a trailing newline", `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}` + "\n", true, ""},
		{"aborted for another reason", `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"replaced"}}`, true, ""},
		{"not an event_msg", `{"type":"response_item","payload":{"type":"turn_aborted"}}`, false, ""},
		{"task started (also /compact's, which no hook announces)", `{"type":"event_msg","payload":{"type":"task_started"}}`, true, statusfile.Working},
		{"payload not an object", `{"type":"event_msg","payload":"task_complete"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, ok := CodexRolloutEvent([]byte(tt.line))
			want := cmp.Or(tt.state, statusfile.Idle)
			if ok != tt.ok || (ok && state != want) || (!ok && state != "") {
				t.Errorf("%q %v, want ok %v", state, ok, tt.ok)
			}
		})
	}
	long := append([]byte(`{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"`), bytes.Repeat([]byte("x"), MaxCodexRolloutLine)...)
	long = append(long, `"}}`...)
	if _, ok := CodexRolloutEvent(long); ok {
		t.Error("a line longer than MaxCodexRolloutLine was parsed")
	}
}

func FuzzCodexRolloutEvent(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "codex-rollout", "daemon-session.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		state, ok := CodexRolloutEvent(line)
		if ok != (state != "") || (ok && state != statusfile.Idle && state != statusfile.Working) {
			t.Fatalf("%q %v", state, ok)
		}
		// Every line that says idle says how the turn ended.
		if e := CodexRolloutEnded(line); state == statusfile.Idle && e.Reason == "" {
			t.Fatalf("idle without a reason: %q", line)
		}
	})
}

func TestCodexRolloutState(t *testing.T) {
	line := []byte(`{"timestamp":"2026-12-01T13:02:30.535Z","ordinal":64,"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`)
	st, since, ok := CodexRolloutState(line, "s", 1)
	if !ok || st != statusfile.Idle || since != "64" {
		t.Errorf("%q %q %v", st, since, ok)
	}
	if _, _, ok := CodexRolloutState([]byte(`{"ordinal":65,"type":"event_msg","payload":{"type":"token_count"}}`), "s", 1); ok {
		t.Error("token_count mapped")
	}
}

func TestCodexRolloutPath(t *testing.T) {
	const (
		home    = "/home/u/.codex"
		session = "01a231b1-c6f9-7bf0-9830-be11eaed1adf"
		real    = "/home/u/.codex/sessions/2026/12/01/rollout-2026-12-01T13-01-04-01a231b1-c6f9-7bf0-9830-be11eaed1adf.jsonl"
	)
	tests := []struct {
		name, home, path, session string
		ok                        bool
	}{
		{"as Codex names it", home, real, session, true},
		{"CODEX_HOME with a trailing slash", home + "/", real, session, true},
		{"another session's", home, real, "01a231b5-411f-79e3-925f-7f9cd87100f6", false},
		{"outside sessions/", home, "/home/u/.codex/rollout-2026-" + session + ".jsonl", session, false},
		{"another home", "/home/v/.codex", real, session, false},
		{"not clean", home, "/home/u/.codex/sessions/../../../etc/rollout-x-" + session + ".jsonl", session, false},
		{"relative", home, "sessions/rollout-x-" + session + ".jsonl", session, false},
		{"relative home", ".codex", real, session, false},
		{"no session", home, real, "", false},
		{"not a rollout", home, "/home/u/.codex/sessions/2026/12/01/notes-" + session + ".jsonl", session, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := CodexRolloutPath(tt.home, tt.path, tt.session)
			if ok != tt.ok || (ok && p != tt.path) {
				t.Errorf("%q %v, want ok %v", p, ok, tt.ok)
			}
		})
	}
}
