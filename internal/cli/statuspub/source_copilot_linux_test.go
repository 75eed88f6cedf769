package statuspub_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Copilot CLI 1.0.102 ends the turn that starts a background subagent at
// once: its Stop comes while the subagent runs and says nothing of it.
// The session log does (subagent.started with executionMode background,
// then the hook.end of the session's own agentStop), and the owner
// follows it: the session works, and says what runs, until the subagent is
// done (SPEC.md Y8, §13.3). A dialog on screen stays blocked.
func TestOwnerFollowsCopilotBackgroundAgents(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a session log")
	t.Parallel()
	const sub = "57f9125e-297d-4152-91c6-7837db72bacc"
	c := newCopilotSession(t)
	c.begin()
	c.backgroundTurn(sub)
	c.waitRecord("idle after Stop", statusfile.Idle, "done")
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")

	// The subagent's dialog: blocked; the count stays.
	c.appendLine("permission.requested", sub, `{"requestId":"r1","promptRequest":{"kind":"commands","fullCommandText":"sleep 8; echo sub"}}`)
	c.waitRecord("blocked at the subagent's dialog", statusfile.Blocked, "1 background agent")
	c.appendLine("permission.completed", sub, `{"requestId":"r1","result":{"kind":"approved"}}`)
	c.waitRecord("working once approved", statusfile.Working, "1 background agent")

	// A second background subagent whose dialog opened before the Stop
	// hook ran (as in the recorded log): the Stop took the dialog off the
	// record, and the log puts it back, with what it asks.
	const sub2 = "6b0a1c2d-0000-4000-8000-000000000002"
	c.hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	c.appendLine("subagent.started", sub2, `{"agentName":"general-purpose","executionMode":"background"}`)
	c.appendLine("permission.requested", sub2, `{"requestId":"r2","promptRequest":{"kind":"commands","fullCommandText":"sleep 8; echo sub"}}`)
	c.waitRecord("blocked at the second subagent's dialog", statusfile.Blocked, "1 background agent")
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.waitRecord("idle after Stop", statusfile.Idle, "done; 1 background agent")
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("blocked again once the Stop hook has run", statusfile.Blocked, "permission: sleep 8; echo sub; 2 background agents")
	c.appendLine("permission.completed", sub2, `{"requestId":"r2","result":{"kind":"approved"}}`)
	c.waitRecord("working once approved", statusfile.Working, "2 background agents")
	c.appendLine("subagent.completed", sub2, `{"agentName":"general-purpose"}`)
	c.waitRecord("working with one left", statusfile.Working, "1 background agent")
	c.appendLine("subagent.completed", sub, `{"agentName":"general-purpose"}`)
	c.waitRecord("working with nothing left, the agent's own turn next", statusfile.Working, "")
	c.hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.waitRecord("idle after the agent's own turn", statusfile.Idle, "done")

	// The Stop hook's end and the subagent's dialog read at once (the
	// owner takes only the newest of what it reads): the dialog, and the
	// count.
	const sub3 = "7c1b2d3e-0000-4000-8000-000000000003"
	c.backgroundTurn(sub3)
	c.waitRecord("idle after Stop", statusfile.Idle, "done")
	c.write(c.line("hook.end", "", `{"hookType":"agentStop","success":true}`), c.line("permission.requested", sub3, `{"requestId":"r3"}`))
	c.waitRecord("blocked at the dialog, with the count", statusfile.Blocked, "1 background agent")
	c.write(c.line("permission.completed", sub3, `{"requestId":"r3","result":{"kind":"approved"}}`), c.line("subagent.completed", sub3, `{}`))
	c.waitRecord("working, nothing left", statusfile.Working, "")
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.waitRecord("idle after Stop", statusfile.Idle, "done")
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	time.Sleep(time.Second) // the owner reads the line
	if rec := mustRecord(t, c.dir, copilotSessionID); rec.State != statusfile.Idle || rec.Why() != "done" {
		t.Errorf("a Stop with nothing in the background: %+v", rec)
	}

	// The subagent's end read only after the Stop of the turn it starts
	// (as in one real run): the count goes, and the turn's end stays; it
	// once made the session working until its next event.
	const sub4 = "8d2c3e4f-0000-4000-8000-000000000004"
	c.backgroundTurn(sub4)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")
	c.hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.waitRecord("idle after the agent's own turn, its end not read yet", statusfile.Idle, "done; 1 background agent")
	c.appendLine("subagent.completed", sub4, `{"agentName":"general-purpose"}`)
	c.waitRecord("idle, nothing left", statusfile.Idle, "done")
}

// A background shell (bash mode async) counts as a task, as an agent
// does; its end (the system notification) lowers the count alone, also
// when it is read after the Stop of the turn it started (as in one real
// run: that end once made the session working until its next event).
func TestOwnerFollowsCopilotBackgroundShells(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a session log")
	t.Parallel()
	c := newCopilotSession(t)
	c.begin()
	c.hook("UserPromptSubmit", `,"prompt":"e2e:background sleep 8; echo bg"`)
	c.appendLine("tool.execution_complete", "", `{"success":true,"result":{"content":"<command started in background with shellId: 0>"}}`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("working once the Stop hook has run", statusfile.Working, "1 background task")
	c.hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.waitRecord("idle after the agent's own turn, its end not read yet", statusfile.Idle, "done; 1 background task")
	c.appendLine("system.notification", "", `{"kind":{"type":"shell_completed","shellId":"0","exitCode":0}}`)
	c.waitRecord("idle, nothing left", statusfile.Idle, "done")
	time.Sleep(time.Second) // the owner reads the line
	if rec := mustRecord(t, c.dir, copilotSessionID); rec.State != statusfile.Idle {
		t.Errorf("after the shell's end: %s %q, want idle", rec.State, rec.Why())
	}
}

// An owner started while a background subagent runs (its predecessor
// killed) counts what the session log says ran before it: the subagent's
// end takes it off, and the session's Stop then says nothing runs. Started
// at the log's end, it once knew nothing of the subagent, and the record
// said "done; 1 background agent" after the agent's own turn, for good.
// The agent's next process (a resume, whose log says session.resume)
// runs none of the old one's.
func TestOwnerRestartedCountsCopilotBackgroundAgents(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a session log")
	t.Parallel()
	const sub = "57f9125e-297d-4152-91c6-7837db72bacc"
	c := newCopilotSession(t)
	first := c.begin()
	c.backgroundTurn(sub)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")

	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the owner gone", 10*time.Second, func() bool { return ownerPID(t, c.dir, copilotSessionID) == 0 })
	// The subagent's dialog: its notification starts the next owner.
	c.appendLine("permission.requested", sub, `{"requestId":"r1","promptRequest":{"kind":"commands","fullCommandText":"sleep 8; echo sub"}}`)
	c.hook("Notification", `,"notification_type":"permission_prompt","message":"Run command: sleep 8; echo sub"`)
	if next := waitOneOwner(t, c.dir, copilotSessionID); next == first {
		t.Fatalf("the owner %d still runs", next)
	}
	c.waitRecord("blocked at the subagent's dialog", statusfile.Blocked, "permission: sleep 8; echo sub; 1 background agent")
	time.Sleep(time.Second) // the owner follows the log from its first step
	c.appendLine("permission.completed", sub, `{"requestId":"r1","result":{"kind":"approved"}}`)
	c.waitRecord("working once approved", statusfile.Working, "1 background agent")
	c.appendLine("subagent.completed", sub, `{"agentName":"general-purpose"}`)
	c.waitRecord("working with nothing left, the agent's own turn next", statusfile.Working, "")
	c.hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("idle after the agent's own turn", statusfile.Idle, "done")

	// A subagent the process left running when it exited: the next
	// process, resuming the session, has none.
	const lost = "9e3d4f50-0000-4000-8000-000000000005"
	c.backgroundTurn(lost)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	c.waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")
	c.a.kill()
	waitNoOwner(t, c.dir)
	c.a = c.start()
	c.appendLine("session.resume", "", `{"eventCount":1}`)
	c.hook("SessionStart", `,"source":"resume"`)
	waitOneOwner(t, c.dir, copilotSessionID)
	time.Sleep(time.Second) // the owner follows the log from its first step
	c.hook("UserPromptSubmit", `,"prompt":"e2e:text"`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
	c.appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	time.Sleep(time.Second) // the owner reads the line
	if rec := mustRecord(t, c.dir, copilotSessionID); rec.State != statusfile.Idle || rec.Why() != "done" {
		t.Errorf("the resumed session's Stop: %s %q, want idle \"done\"", rec.State, rec.Why())
	}
}

// copilotSession is the stand-in of a Copilot CLI session: an agent
// process that runs the session's hooks, and the session log it writes.
type copilotSession struct {
	t    *testing.T
	dir  string // the status directory
	home string // COPILOT_HOME
	log  string // session-state/<id>/events.jsonl
	a    *agent
	n    int // lines written
}

// copilotSessionID is the session id of a copilotSession.
const copilotSessionID = "a55af1ab-1aaa-46a3-b9e2-b6e6358043e1"

func newCopilotSession(t *testing.T) *copilotSession {
	t.Helper()
	c := &copilotSession{t: t, dir: filepath.Join(statuspub.TempDir(t), "home", "agent-status"),
		home: filepath.Join(t.TempDir(), "copilot")}
	c.a = c.start()
	logDir := filepath.Join(c.home, "session-state", copilotSessionID)
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	c.log = filepath.Join(logDir, "events.jsonl")
	return c
}

// begin starts the session (its log's first line, SessionStart) and
// returns its owner's pid.
func (c *copilotSession) begin() int {
	c.t.Helper()
	c.appendLine("session.start", "", `{"sessionId":"`+copilotSessionID+`"}`)
	c.hook("SessionStart", `,"source":"new"`)
	return waitOneOwner(c.t, c.dir, copilotSessionID)
}

// backgroundTurn is a turn that starts the background subagent agent and
// ends (its Stop hook; the log's hook.end is the caller's).
func (c *copilotSession) backgroundTurn(agent string) {
	c.t.Helper()
	c.hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	c.appendLine("subagent.started", agent, `{"agentName":"general-purpose","executionMode":"background"}`)
	c.hook("Stop", `,"stop_reason":"end_turn"`)
}

// start starts the agent process, which runs the hooks.
func (c *copilotSession) start() *agent {
	return startAgent(c.t, append(hbEnv(500*time.Millisecond), "COPILOT_HOME="+c.home)...)
}

// line is a session log line of type typ with data, of the subagent
// agent ("": the session's own).
func (c *copilotSession) line(typ, agent, data string) string {
	c.n++
	agentID := ""
	if agent != "" {
		agentID = fmt.Sprintf(`,"agentId":%q`, agent)
	}
	return fmt.Sprintf(`{"type":%q,"data":%s%s,"id":"e2e-%d","timestamp":"2026-12-03T16:04:06.649Z"}`+"\n", typ, data, agentID, c.n)
}

// write appends lines to the log in one write: the owner reads them at
// once.
func (c *copilotSession) write(lines ...string) {
	c.t.Helper()
	f, err := os.OpenFile(c.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		c.t.Fatal(err)
	}
}

func (c *copilotSession) appendLine(typ, agent, data string) {
	c.t.Helper()
	c.write(c.line(typ, agent, data))
}

// hook runs copilot-hook with the session's event and the payload's
// fields extra (each after a comma).
func (c *copilotSession) hook(event, extra string) {
	c.t.Helper()
	payload := fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"timestamp":"2026-12-03T16:04:04.888Z","cwd":"/home/user/my-project"%s}`, event, copilotSessionID, extra)
	if rep := c.a.hook(nil, bin+" copilot-hook --dir "+c.dir, payload); rep.Code != 0 || rep.Stderr != "" {
		c.t.Fatalf("%s: %+v", event, rep)
	}
}

// waitRecord waits until the record says want, with why as its words.
func (c *copilotSession) waitRecord(what string, want statusfile.State, why string) {
	c.t.Helper()
	waitFor(c.t, what, 10*time.Second, func() bool {
		rec, ok := record(c.t, c.dir, copilotSessionID)
		return ok && rec.State == want && rec.Why() == why
	})
}
