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

// Copilot CLI 1.0.102 ends the turn that starts a background subagent at
// once: its Stop comes while the subagent runs and says nothing of it.
// The session log does (subagent.started with executionMode background,
// then the hook.end of the session's own agentStop), and the owner
// follows it: the session works, and says what runs, until the subagent is
// done (SPEC.md Y8, §13.3). A dialog on screen stays blocked.
func TestOwnerFollowsCopilotBackgroundAgents(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a session log")
	t.Parallel()
	const session, sub = "a55af1ab-1aaa-46a3-b9e2-b6e6358043e1", "57f9125e-297d-4152-91c6-7837db72bacc"
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	copilotHome := filepath.Join(t.TempDir(), "copilot")
	a := startAgent(t, append(hbEnv(500*time.Millisecond), "COPILOT_HOME="+copilotHome)...)
	logDir := filepath.Join(copilotHome, "session-state", session)
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(logDir, "events.jsonl")
	n := 0
	line := func(typ, agent, data string) string {
		n++
		agentID := ""
		if agent != "" {
			agentID = fmt.Sprintf(`,"agentId":%q`, agent)
		}
		return fmt.Sprintf(`{"type":%q,"data":%s%s,"id":"e2e-%d","timestamp":"2026-12-03T16:04:06.649Z"}`+"\n", typ, data, agentID, n)
	}
	write := func(lines ...string) { // in one write: the owner reads them at once
		t.Helper()
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
			t.Fatal(err)
		}
	}
	appendLine := func(typ, agent, data string) { t.Helper(); write(line(typ, agent, data)) }
	hook := func(event, extra string) {
		t.Helper()
		payload := fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"timestamp":"2026-12-03T16:04:04.888Z","cwd":"/home/user/my-project"%s}`, event, session, extra)
		if rep := a.hook(nil, bin+" copilot-hook --dir "+dir, payload); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("%s: %+v", event, rep)
		}
	}
	waitRecord := func(what string, want statusfile.State, why string) {
		t.Helper()
		waitFor(t, what, 10*time.Second, func() bool {
			rec, ok := record(t, dir, session)
			return ok && rec.State == want && rec.Why() == why
		})
	}
	appendLine("session.start", "", `{"sessionId":"a55af1ab-1aaa-46a3-b9e2-b6e6358043e1"}`)
	hook("SessionStart", `,"source":"new"`)
	waitOneOwner(t, dir, session)
	hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	appendLine("subagent.started", sub, `{"agentName":"general-purpose","executionMode":"background"}`)
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after Stop", statusfile.Idle, "done")
	appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")

	// The subagent's dialog: blocked; the count stays.
	appendLine("permission.requested", sub, `{"requestId":"r1","promptRequest":{"kind":"commands","fullCommandText":"sleep 8; echo sub"}}`)
	waitRecord("blocked at the subagent's dialog", statusfile.Blocked, "1 background agent")
	appendLine("permission.completed", sub, `{"requestId":"r1","result":{"kind":"approved"}}`)
	waitRecord("working once approved", statusfile.Working, "1 background agent")

	// A second background subagent whose dialog opened before the Stop
	// hook ran (as in the recorded log): the Stop took the dialog off the
	// record, and the log puts it back, with what it asks.
	const sub2 = "6b0a1c2d-0000-4000-8000-000000000002"
	hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	appendLine("subagent.started", sub2, `{"agentName":"general-purpose","executionMode":"background"}`)
	appendLine("permission.requested", sub2, `{"requestId":"r2","promptRequest":{"kind":"commands","fullCommandText":"sleep 8; echo sub"}}`)
	waitRecord("blocked at the second subagent's dialog", statusfile.Blocked, "1 background agent")
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after Stop", statusfile.Idle, "done; 1 background agent")
	appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	waitRecord("blocked again once the Stop hook has run", statusfile.Blocked, "permission: sleep 8; echo sub; 2 background agents")
	appendLine("permission.completed", sub2, `{"requestId":"r2","result":{"kind":"approved"}}`)
	waitRecord("working once approved", statusfile.Working, "2 background agents")
	appendLine("subagent.completed", sub2, `{"agentName":"general-purpose"}`)
	waitRecord("working with one left", statusfile.Working, "1 background agent")
	appendLine("subagent.completed", sub, `{"agentName":"general-purpose"}`)
	waitRecord("working with nothing left, the agent's own turn next", statusfile.Working, "")
	hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after the agent's own turn", statusfile.Idle, "done")

	// The Stop hook's end and the subagent's dialog read at once (the
	// owner takes only the newest of what it reads): the dialog, and the
	// count.
	const sub3 = "7c1b2d3e-0000-4000-8000-000000000003"
	hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	appendLine("subagent.started", sub3, `{"agentName":"general-purpose","executionMode":"background"}`)
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after Stop", statusfile.Idle, "done")
	write(line("hook.end", "", `{"hookType":"agentStop","success":true}`), line("permission.requested", sub3, `{"requestId":"r3"}`))
	waitRecord("blocked at the dialog, with the count", statusfile.Blocked, "1 background agent")
	write(line("permission.completed", sub3, `{"requestId":"r3","result":{"kind":"approved"}}`), line("subagent.completed", sub3, `{}`))
	waitRecord("working, nothing left", statusfile.Working, "")
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after Stop", statusfile.Idle, "done")
	appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	time.Sleep(time.Second) // the owner reads the line
	if rec := mustRecord(t, dir, session); rec.State != statusfile.Idle || rec.Why() != "done" {
		t.Errorf("a Stop with nothing in the background: %+v", rec)
	}

	// The subagent's end read only after the Stop of the turn it starts
	// (as in one real run): the count goes, and the turn's end stays; it
	// once made the session working until its next event.
	const sub4 = "8d2c3e4f-0000-4000-8000-000000000004"
	hook("UserPromptSubmit", `,"prompt":"e2e:bgagent sleep 8; echo sub"`)
	appendLine("subagent.started", sub4, `{"agentName":"general-purpose","executionMode":"background"}`)
	hook("Stop", `,"stop_reason":"end_turn"`)
	appendLine("hook.end", "", `{"hookType":"agentStop","success":true}`)
	waitRecord("working once the Stop hook has run", statusfile.Working, "1 background agent")
	hook("UserPromptSubmit", `,"prompt":"<system_notification>"`)
	hook("Stop", `,"stop_reason":"end_turn"`)
	waitRecord("idle after the agent's own turn, its end not read yet", statusfile.Idle, "done; 1 background agent")
	appendLine("subagent.completed", sub4, `{"agentName":"general-purpose"}`)
	waitRecord("idle, nothing left", statusfile.Idle, "done")
}
