package statuspub_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testmain"
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
	testmain.SkipShort(t, "waits for the owner's heartbeats while it follows a session file")
	t.Parallel()
	const hb = 500 * time.Millisecond
	c := newClaudeAgent(t, hb)
	c.makeSessions()
	dir, hook, sessionFile, waitState := c.dir, c.hook, c.sessionFile, c.waitState
	sessionFile(claudeSession, "idle")
	hook("session-start.json")
	waitOneOwner(t, dir, claudeSession)
	hook("user-prompt-submit.json")
	hook("permission-request-bash.json")
	waitState("blocked at the dialog", statusfile.Blocked)

	sessionFile(claudeSession, "busy") // approved: no hook
	waitState("working once the tool is approved", statusfile.Working)
	sessionFile(claudeSession, "waiting")
	waitState("blocked at the next dialog", statusfile.Blocked)
	sessionFile(claudeSession, "idle") // denied: no hook
	waitState("idle once denied", statusfile.Idle)

	// What another session writes (after /clear the process writes the
	// next session's id) and what says nothing are not followed.
	sessionFile("0b4c1b0e-0000-4000-8000-000000000000", "busy")
	sessionFile(claudeSession, "shell")
	// A hook started after the file changed wins over it; the file says
	// the same a moment later, as Claude Code's does.
	hook("user-prompt-submit.json")
	waitState("working after a newer hook", statusfile.Working)
	rec := waitBeat(t, dir, claudeSession, mustRecord(t, dir, claudeSession).UpdatedAt)
	if rec.State != statusfile.Working {
		t.Errorf("the file's older content came back: %+v", rec)
	}
	sessionFile(claudeSession, "busy")
	sessionFile(claudeSession, "idle") // Esc while streaming
	waitState("idle after Esc", statusfile.Idle)
	waitState("idle after Esc", statusfile.Idle)
	// A file rewritten for another reason, its status unchanged since a
	// transition, does not undo a newer hook.
	sessionFile(claudeSession, "rewritten")
	waitState("working", statusfile.Working)
	hook("permission-request-bash.json")
	sessionFile(claudeSession, "rewritten")
	rec = waitBeat(t, dir, claudeSession, mustRecord(t, dir, claudeSession).UpdatedAt)
	if rec.State != statusfile.Blocked {
		t.Errorf("a rewrite of the file undid a newer hook: %+v", rec)
	}
	// Two quick transitions seen as one read still count as a change.
	hook("user-prompt-submit.json")
	sessionFile(claudeSession, "idle")
	waitState("idle after Esc", statusfile.Idle)
}

// Codex 0.171.0 runs no hook when a turn fails (the model's HTTP error):
// the rollout file, the hooks' transcript_path, says it, and the owner
// follows it line by line (SPEC.md §13.3).
func TestOwnerFollowsCodexRollout(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner's heartbeats while it follows a rollout")
	t.Parallel()
	const hb = 500 * time.Millisecond
	c := newCodexRollout(t, hb)
	dir, session, hook, appendLine, waitState := c.dir, c.session, c.hook, c.appendLine, c.waitState
	appendLine(`{"timestamp":"2026-12-01T13:01:04.000Z","ordinal":1,"type":"session_meta","payload":{}}` + "\n")
	hook("SessionStart")
	waitOneOwner(t, dir, session)
	hook("UserPromptSubmit")
	waitState("working", statusfile.Working)
	// A line of another kind, then the failed turn's task_complete (as
	// Codex 0.171.0 wrote it), written in two pieces.
	appendLine(`{"timestamp":"2026-12-01T13:03:20.000Z","ordinal":100,"type":"response_item","payload":{"type":"message"}}` + "\n")
	appendLine(`{"timestamp":"2026-12-01T13:03:20.999Z","ordinal":101,"type":"event_msg","payload":{"type":"task_complete",`)
	time.Sleep(2 * hb) // the unfinished line says nothing yet
	if rec := mustRecord(t, dir, session); rec.State != statusfile.Working {
		t.Fatalf("an unfinished line was read: %+v", rec)
	}
	appendLine(`"turn_id":"t1","last_agent_message":null,"error":{"message":"scripted failure 400"}}}` + "\n")
	waitState("idle after the failed turn", statusfile.Idle)
	hook("UserPromptSubmit")
	waitState("working again", statusfile.Working)
	appendLine(`{"timestamp":"2026-12-01T13:04:00.000Z","ordinal":102,"type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t2","reason":"interrupted"}}` + "\n")
	waitState("idle after Esc", statusfile.Idle)
}

// A transcript_path outside Codex's sessions directory, or not named for
// the session, is not followed (SPEC.md H17).
func TestCodexRolloutElsewhereNotFollowed(t *testing.T) {
	t.Parallel()
	const session = "01a231b1-c6f9-7bf0-9830-be11eaed1adf"
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	codexHome := filepath.Join(t.TempDir(), "codex")
	a := startAgent(t, append(hbEnv(500*time.Millisecond), "CODEX_HOME="+codexHome)...)
	elsewhere := filepath.Join(t.TempDir(), "rollout-x-"+session+".jsonl")
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/home/user/my-project","hook_event_name":"UserPromptSubmit"}`, session, elsewhere)
	if rep := a.hook(nil, bin+" codex-hook --dir "+dir, payload); rep.Code != 0 || rep.Stderr != "" {
		t.Fatalf("%+v", rep)
	}
	lock, _ := lockNames(session)
	data, err := os.ReadFile(filepath.Join(dir, lock))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "source") {
		t.Errorf("a transcript outside $CODEX_HOME/sessions became the source: %s", data)
	}
}

// Codex's /clear starts a new thread in the same process, and the old one
// stays loaded, with no SessionEnd, for about 60 s: its record goes when
// the new session starts.
func TestCodexClearEndsTheOldSession(t *testing.T) {
	t.Parallel()
	const old, cleared = "01a231b1-c6f9-7bf0-9830-be11eaed1adf", "01a231b5-0000-7000-8000-00000000c1ea"
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	a := startAgent(t, hbEnv(500*time.Millisecond)...)
	start := func(session, source string) {
		t.Helper()
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":"/home/user/my-project","hook_event_name":"SessionStart","source":%q}`, session, source)
		if rep := a.hook(nil, bin+" codex-hook --dir "+dir, payload); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("%+v", rep)
		}
	}
	start(old, "startup")
	mustRecord(t, dir, old)
	start(cleared, "clear")
	if rec, ok := record(t, dir, old); ok {
		t.Errorf("the thread /clear left is still listed: %+v", rec)
	}
	if rec := mustRecord(t, dir, cleared); rec.State != statusfile.Idle || rec.PID != a.pid {
		t.Errorf("the new thread: %+v", rec)
	}
}

// A source whose directory does not exist when the owner starts (a new
// HOME: Claude Code makes sessions/ as it starts) is followed once it
// appears (SPEC.md H18).
func TestOwnerFollowsASourceMadeLater(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner's once-a-second liveness check to find a directory made later")
	t.Parallel()
	// A long heartbeat: the owner also looks at every heartbeat, and the
	// test is about the liveness checks, once a second.
	const hb = 9 * time.Second
	c := newClaudeAgent(t, hb)
	c.hook("user-prompt-submit.json")
	waitOneOwner(t, c.dir, claudeSession)
	c.makeSessions()
	c.sessionFile(claudeSession, "busy")
	// The owner finds the directory at a liveness check (every second);
	// until then a change is not seen, so write one after it has surely
	// looked, and well before its next heartbeat.
	time.Sleep(2500 * time.Millisecond)
	c.sessionFile(claudeSession, "idle")
	waitFor(t, "idle from a source made after the owner started", 4*time.Second, func() bool {
		rec, ok := record(t, c.dir, claudeSession)
		return ok && rec.State == statusfile.Idle
	})
}

// A log replaced by another file is followed from the new file's end:
// what the new file already holds is not news (SPEC.md H18).
func TestOwnerFollowsAReplacedLogFromItsEnd(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner's heartbeats while it follows a replaced log")
	t.Parallel()
	const hb = 500 * time.Millisecond
	c := newCodexRollout(t, hb)
	dir, session, rollout, hook := c.dir, c.session, c.path, c.hook
	aborted := `{"timestamp":"2026-12-01T13:04:00.000Z","ordinal":%d,"type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t2","reason":"interrupted"}}` + "\n"
	c.appendLine(`{"ordinal":1,"type":"session_meta","payload":{}}` + "\n")
	hook("UserPromptSubmit")
	waitOneOwner(t, dir, session)
	// Once the owner follows the file (it starts to in its first step,
	// just after it takes its lock; an abort it reads shows it), a new
	// turn.
	time.Sleep(hb)
	c.appendLine(fmt.Sprintf(aborted, 2))
	c.waitState("idle from the rollout", statusfile.Idle)
	hook("UserPromptSubmit")
	// Another file, already holding an abort, renamed over the rollout.
	other := rollout + ".new"
	if err := os.WriteFile(other, []byte(fmt.Sprintf(aborted, 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, rollout); err != nil {
		t.Fatal(err)
	}
	rec := waitBeat(t, dir, session, mustRecord(t, dir, session).UpdatedAt)
	if rec.State != statusfile.Working {
		t.Fatalf("what the replacing file already held was read: %+v", rec)
	}
	c.appendLine(fmt.Sprintf(aborted, 51))
	c.waitState("idle from a line appended to the new file", statusfile.Idle)
}

// codexRollout is a stand-in Codex session with its rollout file where
// Codex 0.171.0 keeps it, for the owner to follow.
type codexRollout struct {
	t       *testing.T
	a       *agent
	dir     string // the status directory
	session string // recorded in internal/agenthook/testdata/codex
	path    string // the rollout
}

func newCodexRollout(t *testing.T, hb time.Duration) *codexRollout {
	c := &codexRollout{t: t, dir: filepath.Join(statuspub.TempDir(t), "home", "agent-status"),
		session: "01a231b1-c6f9-7bf0-9830-be11eaed1adf"}
	codexHome := filepath.Join(t.TempDir(), "codex")
	c.a = startAgent(t, append(hbEnv(hb), "CODEX_HOME="+codexHome)...)
	day := filepath.Join(codexHome, "sessions", "2026", "12", "01")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	c.path = filepath.Join(day, "rollout-2026-12-01T13-01-04-"+c.session+".jsonl")
	return c
}

// hook runs codex-hook for event, as Codex 0.171.0 sends it.
func (c *codexRollout) hook(event string) {
	c.t.Helper()
	payload := fmt.Sprintf(`{"session_id":%q,"turn_id":"t1","transcript_path":%q,"cwd":"/home/user/my-project","hook_event_name":%q,"model":"gpt-e2e","permission_mode":"default","source":"startup"}`, c.session, c.path, event)
	if rep := c.a.hook(nil, bin+" codex-hook --dir "+c.dir, payload); rep.Code != 0 || rep.Stderr != "" {
		c.t.Fatalf("%s: %+v", event, rep)
	}
}

// appendLine appends to the rollout, as Codex does.
func (c *codexRollout) appendLine(line string) {
	c.t.Helper()
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		c.t.Fatal(err)
	}
}

// waitState waits until the record's state is want.
func (c *codexRollout) waitState(what string, want statusfile.State) {
	c.t.Helper()
	waitRecordState(c.t, c.dir, c.session, what, want)
}

// waitRecordState waits until session's record in dir has the state want.
func waitRecordState(t *testing.T, dir, session, what string, want statusfile.State) {
	t.Helper()
	waitFor(t, what, 10*time.Second, func() bool {
		rec, ok := record(t, dir, session)
		return ok && rec.State == want
	})
}

// claudeAgent is a stand-in Claude Code process with a CLAUDE_CONFIG_DIR
// of its own, whose sessions directory it makes when told.
type claudeAgent struct {
	t      *testing.T
	a      *agent
	dir    string // the status directory
	config string // CLAUDE_CONFIG_DIR
}

func newClaudeAgent(t *testing.T, hb time.Duration) *claudeAgent {
	c := &claudeAgent{t: t, dir: filepath.Join(statuspub.TempDir(t), "home", "agent-status"),
		config: filepath.Join(t.TempDir(), "claude")}
	c.a = startAgent(t, append(hbEnv(hb), "CLAUDE_CONFIG_DIR="+c.config)...)
	return c
}

// makeSessions makes the sessions directory, as Claude Code does when it
// starts.
func (c *claudeAgent) makeSessions() {
	c.t.Helper()
	if err := os.MkdirAll(filepath.Join(c.config, "sessions"), 0o700); err != nil {
		c.t.Fatal(err)
	}
}

// sessionFile writes the agent's session file (see claudeSessionFile).
func (c *claudeAgent) sessionFile(session, status string) {
	c.t.Helper()
	claudeSessionFile(c.t, filepath.Join(c.config, "sessions", fmt.Sprint(c.a.pid)+".json"), c.a.pid, session, status)
}

// waitState waits until the record of claudeSession has the state want.
func (c *claudeAgent) waitState(what string, want statusfile.State) {
	c.t.Helper()
	waitRecordState(c.t, c.dir, claudeSession, what, want)
}

// hook runs claude-hook with the payload testdata/claude/name.
func (c *claudeAgent) hook(name string) {
	c.t.Helper()
	if rep := c.a.claudeHook(c.dir, name); rep.Code != 0 || rep.Stderr != "" {
		c.t.Fatalf("%s: %+v", name, rep)
	}
}
