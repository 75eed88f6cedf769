package statuspub_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Qwen Code 0.24.4 gives its turn up while a background shell runs
// (run_shell_command with is_background): its Stop lists background agents
// only, and no hook comes when the shell ends, though its end starts a
// turn of Qwen Code's own. The shell's status file says it, and the owner
// follows the session's directory of them: the session works, and says
// what runs, until the shell ends and the agent's own turn ends (SPEC.md
// Y8, §13.3).
func TestOwnerFollowsQwenBackgroundShells(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner while it follows a directory")
	t.Parallel()
	const session = "fa09e783-9a23-4fe2-ad22-62fcd85b2523"
	const cwd = "/home/user/proj"
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	qwenHome := filepath.Join(t.TempDir(), "qwen")
	a := startAgent(t, append(hbEnv(500*time.Millisecond), "QWEN_HOME="+qwenHome)...)
	shells, ok := agenthook.QwenShellsPath(qwenHome, cwd, session)
	if !ok {
		t.Fatal("no path")
	}
	// As Qwen Code writes it: a temporary file renamed over the last.
	shell := func(id, status string, pid int) {
		t.Helper()
		if err := os.MkdirAll(shells, 0o700); err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf(`{"id":%q,"status":%q,"command":"timeout 8 tail -f /dev/null","cwd":%q,"startTime":"2026-12-03T16:02:27.812Z","updatedAt":"2026-12-03T16:02:27.812Z","pid":%d}`, id, status, cwd, pid)
		tmp := filepath.Join(shells, ".shell-"+id+".status.tmp")
		if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(shells, "shell-"+id+".status")); err != nil {
			t.Fatal(err)
		}
	}
	hook := func(event, extra string) {
		t.Helper()
		payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/user/.qwen/projects/-home-user-proj/chats/%s.jsonl","cwd":%q,"hook_event_name":%q,"timestamp":"2026-12-03T16:02:21.024Z","permission_mode":"default"%s}`, session, session, cwd, event, extra)
		if rep := a.hook(nil, bin+" qwen-hook --dir "+dir, payload); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("%s: %+v", event, rep)
		}
	}
	stop := func(tasks string) {
		t.Helper()
		hook("Stop", `,"last_assistant_message":"done.","background_tasks":[`+tasks+`]`)
	}
	idlePrompt := func() { t.Helper(); hook("Notification", `,"notification_type":"idle_prompt"`) }
	waitRecord := func(what string, want statusfile.State, why string) {
		t.Helper()
		waitFor(t, what, 10*time.Second, func() bool {
			rec, ok := record(t, dir, session)
			return ok && rec.State == want && rec.Why() == why
		})
	}
	live := os.Getpid() // a process that runs for the whole test

	hook("SessionStart", `,"source":"startup"`)
	waitOneOwner(t, dir, session)
	// The first shell makes the directory, which the owner looks for
	// every second: the Stop may come before it sees the shell.
	hook("UserPromptSubmit", `,"prompt":"e2e:background timeout 8 tail -f /dev/null"`)
	shell("bg_00000001", "running", live)
	hook("PostToolUse", `,"tool_name":"run_shell_command"`)
	stop("")
	idlePrompt()
	waitRecord("working while the shell runs", statusfile.Working, "1 background task")
	shell("bg_00000001", "failed", live)
	waitRecord("the count goes, the agent's own turn next", statusfile.Working, "")
	stop("")
	idlePrompt()
	waitRecord("idle after the agent's own turn", statusfile.Idle, "done")

	// The owner follows the directory now: it counts the shell during
	// the turn, and the Stop keeps the session working.
	hook("UserPromptSubmit", `,"prompt":"e2e:background timeout 8 tail -f /dev/null"`)
	shell("bg_00000002", "running", live)
	waitRecord("working, the turn goes on", statusfile.Working, "1 background task")
	stop("")
	waitRecord("working after the Stop", statusfile.Working, "1 background task")
	idlePrompt()
	time.Sleep(time.Second) // the owner has nothing new to say
	if rec := mustRecord(t, dir, session); rec.State != statusfile.Working || rec.Why() != "1 background task" {
		t.Errorf("after idle_prompt: %+v", rec)
	}

	// A background agent too: both are counted.
	hook("UserPromptSubmit", `,"prompt":"e2e:background agent pwd"`)
	stop(`{"id":"a1","status":"running","agent_type":"general-purpose"}`)
	waitRecord("working, both counted", statusfile.Working, "1 background agent, 1 background task")
	shell("bg_00000002", "completed", live)
	waitRecord("the shell's end changes the count alone", statusfile.Working, "1 background agent")
	stop(`{"id":"a1","status":"completed","agent_type":"general-purpose"}`)
	waitRecord("idle, nothing left", statusfile.Idle, "done")

	// A dialog stays on when a shell starts.
	hook("UserPromptSubmit", `,"prompt":"e2e:background sleep 8"`)
	hook("PermissionRequest", `,"tool_name":"run_shell_command","tool_input":{"command":"sleep 8"}`)
	waitRecord("blocked", statusfile.Blocked, "run_shell_command: sleep 8")
	shell("bg_00000003", "running", live)
	waitRecord("blocked, with the count", statusfile.Blocked, "run_shell_command: sleep 8; 1 background task")
	shell("bg_00000003", "cancelled", live)
	waitRecord("blocked, nothing left", statusfile.Blocked, "run_shell_command: sleep 8")
	stop("")
	waitRecord("idle", statusfile.Idle, "done")

	// A file a killed Qwen Code left says running for a shell that is
	// gone: not counted.
	shell("bg_00000004", "running", deadPID(t))
	hook("UserPromptSubmit", `,"prompt":"e2e:text"`)
	stop("")
	time.Sleep(time.Second)
	if rec := mustRecord(t, dir, session); rec.State != statusfile.Idle || rec.Why() != "done" {
		t.Errorf("a shell whose process is gone: %+v", rec)
	}
}

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
