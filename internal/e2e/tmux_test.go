//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmux is a private tmux server with one window, 200x50, running one
// command: the agent, as a user would see it.
type tmux struct {
	t    testing.TB
	sock string
	dir  string   // where the command started
	env  []string // its whole environment
}

// startTmux runs argv in dir with env (the whole environment) in a new
// tmux server, and kills the server when the test ends. The pane stays
// after the command exits, so that its end can be seen.
func startTmux(t testing.TB, dir string, env, argv []string) *tmux {
	t.Helper()
	tm := &tmux{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock"), dir: dir, env: env}
	args := []string{"new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e", "-c", dir}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, argv...)
	cmd := tm.cmd(args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		// The agent, and whatever it started, may still write into the
		// test's HOME while they exit: wait for every one of them before
		// the directory is removed. Their pids are taken first, since the
		// pane's death hands its children to init.
		pid := tm.pid()
		var tree []int
		if pid > 0 {
			tree = append([]int{pid}, descendants(pid)...)
		}
		tm.cmd("kill-server").Run()
		waitGone(tree[:min(1, len(tree))], 5*time.Second)
		killTree(tree)
	})
	tm.run("set-option", "-g", "remain-on-exit", "on")
	return tm
}

// descendants returns pid's children, theirs, and so on (Linux).
func descendants(pid int) []int {
	var all []int
	for queue := childrenOf(pid); len(queue) > 0; queue = queue[1:] {
		all = append(all, queue[0])
		queue = append(queue, childrenOf(queue[0])...)
	}
	return all
}

// killTree stops every process in pids and, while stopped, their
// descendants too (so that none starts another), kills them all, and
// waits until they are gone (at most 5 s).
func killTree(pids []int) {
	var all []int
	for queue := pids; len(queue) > 0; queue = queue[1:] {
		if exited(queue[0]) {
			continue
		}
		syscall.Kill(queue[0], syscall.SIGSTOP)
		all = append(all, queue[0])
		queue = append(queue, childrenOf(queue[0])...)
	}
	for _, p := range all {
		syscall.Kill(p, syscall.SIGKILL)
	}
	waitGone(all, 5*time.Second)
}

// waitGone waits until every process in pids has exited, at most d.
func waitGone(pids []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for _, p := range pids {
		for !exited(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// exited reports whether pid has exited: no such process, or a zombie.
func exited(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

func (tm *tmux) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("tmux", append([]string{"-S", tm.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	return cmd
}

// run runs a tmux command and returns its output.
func (tm *tmux) run(args ...string) string {
	out, err := tm.cmd(args...).CombinedOutput()
	if err != nil {
		tm.t.Logf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// send types keys, as tmux send-keys takes them ("Enter", "Escape", "C-c",
// or literal text with -l).
func (tm *tmux) send(keys ...string) {
	tm.run(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// typeLine types text literally, then Enter.
func (tm *tmux) typeLine(text string) {
	tm.run("send-keys", "-t", "e2e", "-l", text)
	time.Sleep(150 * time.Millisecond) // a paste detector must not take Enter as part of it
	tm.send("Enter")
}

// capture returns the visible screen.
func (tm *tmux) capture() string {
	out, _ := tm.cmd("capture-pane", "-p", "-t", "e2e").Output()
	return string(out)
}

// pid is the pane's process: the agent.
func (tm *tmux) pid() int {
	out, _ := tm.cmd("display-message", "-p", "-t", "e2e", "#{pane_pid}").Output()
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// dead reports whether the agent has exited.
func (tm *tmux) dead() bool {
	out, _ := tm.cmd("display-message", "-p", "-t", "e2e", "#{pane_dead}").Output()
	return strings.TrimSpace(string(out)) == "1"
}

// traceHooks makes every hook command in settings also append its payload,
// one line each, to $AGENTSTATUS_E2E_TRACE/<name>.jsonl: what the real
// agent sent, for the hook traces of conformance/hooktraces. Without
// AGENTSTATUS_E2E_TRACE it does nothing.
// installedHook is the hook command `statuspub install` wrote into an
// agent's settings (data) for the adapter sub, such as "qwen-hook": the
// installed statuspub's absolute path, then sub.
func installedHook(data []byte, sub string) string {
	re := regexp.MustCompile(`"([^"\\]*statuspub ` + regexp.QuoteMeta(sub) + `)"`)
	if m := re.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return "statuspub " + sub
}

func traceHooks(t testing.TB, settings, command, name string) {
	dir := os.Getenv("AGENTSTATUS_E2E_TRACE")
	if dir == "" {
		return
	}
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, name+".jsonl")
	command = installedHook(data, strings.TrimPrefix(command, "statuspub "))
	traced := fmt.Sprintf("tee -a %s | %s; echo >> %s", log, command, log)
	quoted, _ := json.Marshal(traced)
	data = bytes.ReplaceAll(data, []byte(`"`+command+`"`), quoted)
	if err := os.WriteFile(settings, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
