package statuspub_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/statusfile"
)

// serve --heartbeat-owner: killed with SIGKILL together with its parent (a
// terminal's whole process tree killed at once), serve leaves the record to
// a detached owner that is no process of that tree, which keeps it fresh
// while the agent lives and removes it when the agent dies (SPEC.md H4).
func TestServeHeartbeatOwnerOutlivesServe(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	agent := sleeper(t)
	serve := exec.Command(bin, "serve", "--dir", dir, "--session", "oc-1", "--agent", "opencode",
		"--pid", strconv.Itoa(agent.Process.Pid), "--heartbeat-owner")
	serve.Env = append(os.Environ(), hbEnv(hb)...)
	stdin, _ := serve.StdinPipe()
	stdout, _ := serve.StdoutPipe()
	stderr := &testbin.Buffer{}
	serve.Stderr = stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	answers := bufio.NewScanner(stdout)
	send := func(line string) {
		t.Helper()
		fmt.Fprintln(stdin, line)
		if !answers.Scan() || answers.Text() != `{"ok":true}` {
			t.Fatalf("%s: answer %q; stderr: %s", line, answers.Text(), stderr)
		}
	}
	send(`{"state":"working","title":"Fix the tests"}`)
	send(`{"waitingFor":{"kind":"permission","tool":"bash","detail":"git push"}}`)
	rec := mustRecord(t, dir, "oc-1")
	if rec.State != statusfile.Blocked || rec.Title != "Fix the tests" || rec.Why() != "bash: git push" ||
		rec.PID != agent.Process.Pid || rec.Agent != "opencode" {
		t.Fatalf("record %+v (why %q)", rec, rec.Why())
	}
	owner := waitOneOwner(t, dir, "oc-1")
	if ppid := parentOf(t, owner); ppid == serve.Process.Pid {
		t.Errorf("the owner %d is serve's child: it would die with serve's process tree; stderr: %s", owner, stderr)
	}

	serve.Process.Kill()
	serve.Wait()
	// Still kept fresh, unchanged, after serve's death.
	next := waitBeat(t, dir, "oc-1", rec.UpdatedAt)
	if next.State != statusfile.Blocked || next.Why() != "bash: git push" {
		t.Fatalf("after serve died: %+v", next)
	}
	agent.Process.Kill()
	agent.Wait()
	killed := time.Now()
	waitRecordGone(t, "record removed after the agent died", 10*time.Second, dir, "oc-1")
	t.Logf("record removed %v after the agent died", time.Since(killed))
	waitNoOwner(t, dir)
}

// At the end of its input serve --heartbeat-owner removes the record at
// once and the owner exits, as plain serve removes its file.
func TestServeHeartbeatOwnerEOF(t *testing.T) {
	t.Parallel()
	home := filepath.Join(statuspub.TempDir(t), "home")
	s := startServe(t, home, "--heartbeat-owner", "--state", "working")
	s.waitFile()
	if ans := s.send(`{"ended":{"reason":"done"}}`); !isOK(ans) {
		t.Fatal(ans)
	}
	if rec := s.record(); rec.State != statusfile.Idle || rec.Why() != "done" || rec.PID != os.Getpid() {
		t.Fatalf("record %+v", rec)
	}
	s.stdin.Close()
	if code := s.wait(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, s.stderr)
	}
	if _, err := os.Lstat(s.path); err == nil {
		t.Error("record left after the end of input")
	}
	waitNoOwner(t, filepath.Join(home, "agent-status"))
}

// parentOf is pid's parent.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
