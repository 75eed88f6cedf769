package statuspub_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// agentSession is a scripted session of one agent: its payload fixtures
// (internal/agenthook/testdata, shapes from each agent's documentation),
// each with the state every reader must see afterwards.
type agentSession struct {
	cmd, agent, dir, session string
	// shell is how the agent runs a hook command: Codex runs
	// `$SHELL -lc CMD` (codex-rs/hooks/src/engine/command_runner.rs),
	// Gemini CLI `bash -c CMD` (packages/core/src/hooks/hookRunner.ts).
	shell []string
	steps []struct {
		file  string
		state statusfile.State
	}
}

func steps(pairs ...any) []struct {
	file  string
	state statusfile.State
} {
	var out []struct {
		file  string
		state statusfile.State
	}
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, struct {
			file  string
			state statusfile.State
		}{pairs[i].(string), pairs[i+1].(statusfile.State)})
	}
	return out
}

var (
	idle, working, blocked = statusfile.Idle, statusfile.Working, statusfile.Blocked
)

// A scripted session per agent drives the real statuspub under a stand-in
// agent that runs each hook as that agent does; after every step statusls
// --json shows the expected state, with the agent's pid (not a shell's).
// Then the agent dies and its record goes.
func TestAgentSessionsEndToEnd(t *testing.T) {
	testmain.SkipShort(t, "waits for each owner's liveness check to see its agent die")
	t.Parallel()
	sessions := []agentSession{
		{cmd: "codex-hook", agent: "codex", dir: "codex", session: "019a7c1e-3f2b-7d10-9c4e-5b6a7d8e9f01",
			shell: []string{"bash", "-lc"},
			steps: steps(
				"session-start.json", idle,
				"user-prompt-submit.json", working,
				"pre-tool-use.json", working,
				"pre-compact.json", working, // compaction mid-turn: kept
				"post-compact.json", working,
				"permission-request.json", blocked,
				"post-tool-use.json", working,
				"subagent-start.json", working,
				"subagent-stop.json", working, // not the session's stop
				"stop.json", idle,
				"user-prompt-submit.json", working,
				"interrupt.json", idle,
				"user-prompt-submit.json", working,
				"stop-failure.json", idle,
			)},
		{cmd: "gemini-hook", agent: "gemini", dir: "gemini", session: "8d3f6a2c-1b4e-4c5d-9e7f-0a1b2c3d4e5f",
			shell: []string{"bash", "-c"},
			steps: steps(
				"session-start.json", idle,
				"before-agent.json", working,
				"before-model.json", working,
				"after-model.json", working, // every streamed chunk: never publishes
				"before-tool-selection.json", working,
				"before-tool.json", working,
				"notification-tool-permission.json", blocked,
				"after-tool.json", working,
				"pre-compress.json", working,
				"after-model.json", working,
				"after-agent.json", idle,
			)},
	}
	for _, s := range sessions {
		t.Run(s.cmd, func(t *testing.T) {
			dir := filepath.Join(statuspub.TempDir(t), "agent-status")
			a := startAgent(t)
			for i, st := range s.steps {
				input := fixture(t, "..", "..", "agenthook", "testdata", s.dir, st.file)
				rep := a.hook(s.shell, bin+" "+s.cmd+" --dir "+dir, input)
				if rep.Code != 0 || rep.Stderr != "" || rep.Stdout != "" {
					t.Fatalf("step %d %s: %+v", i, st.file, rep)
				}
				want := map[string]any{"session": s.session, "state": string(st.state), "agent": s.agent,
					"pid": float64(a.pid), "cwd": "/home/user/my-project", "fresh": true, "alive": true}
				if got := statuslsJSON(t, dir); len(got) != 1 || !sameFields(got[0], want) {
					t.Fatalf("step %d %s: statusls --json shows %v, want one session with %v", i, st.file, got, want)
				}
			}
			// The same hook run without a shell (exec form) finds the
			// same agent.
			input := fixture(t, "..", "..", "agenthook", "testdata", s.dir, s.steps[1].file)
			if rep := a.hook([]string{bin, s.cmd, "--dir"}, dir, input); rep.Code != 0 || rep.Stderr != "" {
				t.Fatalf("exec form: %+v", rep)
			}
			if rec := mustRecord(t, dir, s.session); rec.PID != a.pid || rec.State != s.steps[1].state {
				t.Errorf("exec form: %+v, want pid %d", rec, a.pid)
			}
			a.kill()
			waitRecordGone(t, "record removed after the agent died", 20*time.Second, dir, s.session)
			waitNoOwner(t, dir)
		})
	}
	// SessionEnd removes the record at once.
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	a := startAgent(t)
	for _, f := range []string{"session-start.json", "session-end.json"} {
		input := fixture(t, "..", "..", "agenthook", "testdata", "gemini", f)
		if rep := a.hook([]string{"bash", "-c"}, bin+" gemini-hook --dir "+dir, input); rep.Code != 0 {
			t.Fatalf("%s: %+v", f, rep)
		}
	}
	if got := statuslsJSON(t, dir); len(got) != 0 {
		t.Errorf("after SessionEnd statusls shows %v", got)
	}
	waitNoOwner(t, dir)
}

// Qwen Code runs its StopFailure hook under a short-lived helper of its
// own (a detached node process that waits for the hook): the record stays
// bound to the agent, in either order of StopFailure and the idle_prompt
// Notification, survives the helper's exit, and goes only when the agent
// exits (SPEC.md H4, H6).
func TestHookUnderAHelper(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	const session = "7e751eb0-cf3e-4174-b1fb-19d6018741ca"
	type hook struct {
		file   string
		helper bool
	}
	prompt, failure, idlePrompt := hook{"real-user-prompt-submit.json", false},
		hook{"real-stop-failure-400.json", true}, hook{"real-notification-idle-prompt.json", false}
	for _, tt := range []struct {
		name  string
		hooks []hook
	}{
		{"StopFailure last", []hook{prompt, idlePrompt, failure}},
		{"StopFailure first", []hook{prompt, failure, idlePrompt}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(statuspub.TempDir(t), "agent-status")
			a := startAgent(t, hbEnv(hb)...)
			owner := 0
			for i, h := range tt.hooks {
				input := fixture(t, "..", "..", "agenthook", "testdata", "qwen", h.file)
				rep := a.run(agentRequest{Shell: []string{"bash", "-c"}, Cmd: bin + " qwen-hook --dir " + dir, Stdin: input, Helper: h.helper})
				if rep.Code != 0 || rep.Stderr != "" || rep.Stdout != "" {
					t.Fatalf("hook %d %s: %+v", i, h.file, rep)
				}
				if rec := mustRecord(t, dir, session); rec.PID != a.pid {
					t.Fatalf("after %s: the record is bound to %d, want the agent %d", h.file, rec.PID, a.pid)
				}
				if i == 0 {
					owner = waitOneOwner(t, dir, session)
				}
			}
			// The helper has exited with its hook: the owner, checking
			// the agent four times a heartbeat, would have removed a
			// record bound to it by now.
			rec := mustRecord(t, dir, session)
			for range 3 {
				rec = waitBeat(t, dir, session, rec.UpdatedAt)
			}
			if rec.PID != a.pid || rec.State != idle || rec.Ended.Reason != "failed" {
				t.Errorf("record %+v, want idle, ended failed, the agent's pid %d", rec, a.pid)
			}
			if got := waitOneOwner(t, dir, session); got != owner {
				t.Errorf("owner %d replaced by %d: the record was removed and made again", owner, got)
			}
			a.kill()
			waitRecordGone(t, "record removed after the agent died", 20*time.Second, dir, session)
			waitNoOwner(t, dir)
		})
	}
}
