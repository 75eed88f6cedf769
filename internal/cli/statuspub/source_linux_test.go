package statuspub_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// claudeSessionFile writes Claude Code's session file for the stand-in
// agent the way Claude Code does: rewritten in place, not renamed.
func claudeSessionFile(t *testing.T, path string, pid int, session, status string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	since := time.Now().UnixMilli() // a new one at every change of status
	if status == "rewritten" {
		status, since = "busy", 1
	}
	// The keys of Claude Code 2.1.332's file (internal/agenthook/testdata/claude-session).
	fmt.Fprintf(f, `{"pid":%d,"sessionId":%q,"cwd":"/home/user/my-project","startedAt":1796130510824,"procStart":"94251","version":"2.1.332","kind":"interactive","entrypoint":"cli","status":%q,"updatedAt":1796130514358,"statusUpdatedAt":%d}`, pid, session, status, since)
}

// Claude Code runs no hook when the user denies a permission, approves
// one, or presses Esc: the record follows the agent's own session file
// there (SPEC.md §13.3), and a later hook still wins over it.
func TestOwnerFollowsClaudeSessionFile(t *testing.T) {
	const hb = 500 * time.Millisecond
	dir := filepath.Join(t.TempDir(), "home", "agent-status")
	config := filepath.Join(t.TempDir(), "claude")
	a := startAgent(t, append(hbEnv(hb), "CLAUDE_CONFIG_DIR="+config)...)
	sessions := filepath.Join(config, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(sessions, fmt.Sprint(a.pid)+".json")
	claudeSessionFile(t, file, a.pid, claudeSession, "idle")
	hook := func(name string) {
		t.Helper()
		input, err := os.ReadFile(filepath.Join("testdata", "claude", name))
		if err != nil {
			t.Fatal(err)
		}
		if rep := a.hook(nil, bin+" claude-hook --dir "+dir, string(input)); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("%s: %+v", name, rep)
		}
	}
	waitState := func(what string, want statusfile.State) {
		t.Helper()
		waitFor(t, what, 10*time.Second, func() bool {
			rec, ok := record(t, dir, claudeSession)
			return ok && rec.State == want
		})
	}
	hook("session-start.json")
	waitOneOwner(t, dir, claudeSession)
	hook("user-prompt-submit.json")
	hook("permission-request-bash.json")
	waitState("blocked at the dialog", statusfile.Blocked)

	claudeSessionFile(t, file, a.pid, claudeSession, "busy") // approved: no hook
	waitState("working once the tool is approved", statusfile.Working)
	claudeSessionFile(t, file, a.pid, claudeSession, "waiting")
	waitState("blocked at the next dialog", statusfile.Blocked)
	claudeSessionFile(t, file, a.pid, claudeSession, "idle") // denied: no hook
	waitState("idle once denied", statusfile.Idle)

	// What another session writes (after /clear the process writes the
	// next session's id) and what says nothing are not followed.
	claudeSessionFile(t, file, a.pid, "0b4c1b0e-0000-4000-8000-000000000000", "busy")
	claudeSessionFile(t, file, a.pid, claudeSession, "shell")
	// A hook started after the file changed wins over it; the file says
	// the same a moment later, as Claude Code's does.
	hook("user-prompt-submit.json")
	waitState("working after a newer hook", statusfile.Working)
	rec := waitBeat(t, dir, claudeSession, mustRecord(t, dir, claudeSession).UpdatedAt)
	if rec.State != statusfile.Working {
		t.Errorf("the file's older content came back: %+v", rec)
	}
	claudeSessionFile(t, file, a.pid, claudeSession, "busy")
	claudeSessionFile(t, file, a.pid, claudeSession, "idle") // Esc while streaming
	waitState("idle after Esc", statusfile.Idle)
	waitState("idle after Esc", statusfile.Idle)
	// A file rewritten for another reason, its status unchanged since a
	// transition, does not undo a newer hook.
	claudeSessionFile(t, file, a.pid, claudeSession, "rewritten")
	waitState("working", statusfile.Working)
	hook("permission-request-bash.json")
	claudeSessionFile(t, file, a.pid, claudeSession, "rewritten")
	rec = waitBeat(t, dir, claudeSession, mustRecord(t, dir, claudeSession).UpdatedAt)
	if rec.State != statusfile.Blocked {
		t.Errorf("a rewrite of the file undid a newer hook: %+v", rec)
	}
	// Two quick transitions seen as one read still count as a change.
	hook("user-prompt-submit.json")
	claudeSessionFile(t, file, a.pid, claudeSession, "idle")
	waitState("idle after Esc", statusfile.Idle)
}
