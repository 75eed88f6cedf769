//go:build unix

// Package examples_test runs the examples of this directory against the
// toolkit's commands, with the programs they configure (tmux, bash, zsh,
// Neovim) where those are installed. The tests named ...Statusls run the
// real statusls; the others a stand-in script, which pins down what each
// example expects of it.
package examples_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	_ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/statustest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

var binDir string

// helpers are what this test binary runs instead of the tests when its
// first argument names one ("<test binary> NAME ARGS...").
var helpers = map[string]func(args []string) int{}

func TestMain(m *testing.M) {
	if len(os.Args) >= 2 {
		if run, ok := helpers[os.Args[1]]; ok {
			os.Exit(run(os.Args[2:]))
		}
	}
	// Node reads and parses every certificate of NODE_EXTRA_CA_CERTS
	// when it starts, which doubles the start-up of the node programs the
	// tests run (hundreds of them), none of which speaks TLS.
	os.Unsetenv("NODE_EXTRA_CA_CERTS")
	// statusls-jq: statusls with the jq engine, which this binary links.
	testbin.Main(m, map[string]func() int{"statusls": statusls.Main, "statusls-jq": statusls.Main, "statuspub": statuspub.Main}, func(dir string) {
		binDir = dir
		// The tests mostly wait for the programs they drive (tmux,
		// Neovim, Node, Prometheus).
		testmain.MoreParallel(8)
	})
}

// requireTool skips the test when name is not installed, unless CI asks
// for every tool (AGENTSTATUS_REQUIRE_TOOLS=1), where it fails.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is required: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return path
}

// realStatusls returns the statusls built for the tests.
func realStatusls(t *testing.T) string {
	t.Helper()
	path := filepath.Join(binDir, "statusls")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// stubs writes executable scripts into a new directory and returns it.
func stubs(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		testbin.WriteProgram(t, filepath.Join(dir, name), "#!/bin/sh\n"+body)
	}
	return dir
}

// withPath returns the environment with dirs in front of PATH and extra
// variables.
func withPath(dirs []string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "TMUX") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator)))
	return append(env, extra...)
}

// readRecord reads a session's record in the status directory of the
// config home; ok is false when there is none.
func readRecord(t *testing.T, home, session string) (statusfile.Status, bool) {
	t.Helper()
	return statustest.Read(t, filepath.Join(home, "agent-status"), session)
}

// The hooks block lists exactly the events statuspub claude-hook acts on,
// each running the documented command; run as Claude Code runs it (sh -c,
// the payload on stdin), each leaves the expected record.
func TestClaudeCodeSettings(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("claude-code", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&settings); err != nil {
		t.Fatal(err)
	}
	// What each event must leave; "" means no record.
	want := map[string]statusfile.State{
		"SessionStart": statusfile.Idle, "UserPromptSubmit": statusfile.Working,
		"PreToolUse": statusfile.Working, "PostToolUse": statusfile.Working, "PostToolUseFailure": statusfile.Working,
		"PermissionRequest": statusfile.Blocked, "PermissionDenied": statusfile.Working, "Notification": statusfile.Blocked,
		"Stop": statusfile.Idle, "StopFailure": statusfile.Idle, "SessionEnd": "",
		"TaskCreated": statusfile.Working, "TaskCompleted": statusfile.Working, // state kept
	}
	for event := range settings.Hooks {
		if _, ok := want[event]; !ok {
			t.Errorf("settings.json hooks %s, which claude-hook ignores", event)
		}
	}
	home := filepath.Join(t.TempDir(), "home")
	env := withPath([]string{binDir}, location.ConfigHomeEnv+"="+home)
	order := []string{"SessionStart", "UserPromptSubmit", "TaskCreated", "TaskCompleted", "PreToolUse", "PermissionRequest", "PermissionDenied", "Notification",
		"PostToolUse", "PostToolUseFailure", "StopFailure", "Stop", "SessionEnd"}
	if len(order) != len(want) {
		t.Fatal("order and want disagree")
	}
	for _, event := range order {
		groups, ok := settings.Hooks[event]
		if !ok || len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: want one matcher group with one handler, got %+v", event, groups)
			continue
		}
		h := groups[0].Hooks[0]
		if h.Type != "command" || h.Command != "statuspub claude-hook" || h.Timeout <= 0 || h.Timeout > 60 {
			t.Errorf("%s: handler %+v", event, h)
		}
		if m := groups[0].Matcher; m != nil && *m != "*" && *m != "" {
			t.Errorf("%s: matcher %q does not match every tool", event, *m)
		}
		payload := map[string]any{"session_id": "ex-claude", "cwd": "/home/user/project", "hook_event_name": event,
			"transcript_path": "/home/user/.claude/projects/x/ex-claude.jsonl"}
		switch event {
		case "SessionStart":
			payload["source"] = "startup"
		case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied":
			payload["tool_name"], payload["tool_input"] = "Bash", map[string]any{"command": "make"}
		case "Notification":
			payload["notification_type"], payload["message"] = "permission_prompt", "Claude needs your permission to use Bash"
		case "TaskCreated", "TaskCompleted":
			payload["task_id"], payload["task_subject"] = "1", "Write the README"
		}
		input, _ := json.Marshal(payload)
		cmd := exec.Command("sh", "-c", h.Command)
		cmd.Env, cmd.Stdin = env, bytes.NewReader(input)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("%s: %v %q", event, err, out)
		}
		rec, ok := readRecord(t, home, "ex-claude")
		switch {
		case want[event] == "" && ok:
			t.Errorf("%s: record left: %+v", event, rec)
		case want[event] != "" && (!ok || rec.State != want[event] || rec.Agent != "claude-code" || rec.Cwd != "/home/user/project"):
			t.Errorf("%s: record %+v (present %v), want %s", event, rec, ok, want[event])
		}
	}
}

// The notify line, run as Codex runs it: the program directly, the
// notification's JSON appended as the last argument.
func TestCodexConfig(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^notify\s*=\s*(\[.*\])\s*$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no notify line")
	}
	var argv []string // a TOML array of basic strings is JSON
	if err := json.Unmarshal(m[1], &argv); err != nil || len(argv) < 2 || argv[0] != "statuspub" {
		t.Fatalf("notify = %s: %v", m[1], err)
	}
	home := filepath.Join(t.TempDir(), "home")
	payload := `{"type":"agent-turn-complete","thread-id":"ex-codex","turn-id":"1","cwd":"/home/user/project","input-messages":["hi"],"last-assistant-message":"done"}`
	cmd := exec.Command(filepath.Join(binDir, argv[0]), append(argv[1:], payload)...)
	cmd.Env = withPath(nil, location.ConfigHomeEnv+"="+home)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("%v %q", err, out)
	}
	t.Cleanup(func() {
		exec.Command(filepath.Join(binDir, "statuspub"), "clear", "--config-home", home, "--session", "ex-codex").Run()
	})
	rec, ok := readRecord(t, home, "ex-codex")
	if !ok || rec.State != statusfile.Idle || rec.Agent != "codex" || rec.Cwd != "/home/user/project" {
		t.Errorf("record %+v (present %v)", rec, ok)
	}
}

// tmuxServers numbers the tmux servers the tests start side by side.
var tmuxServers atomic.Int64

// tmuxStatusRight runs tmux with the example configuration inside another
// tmux, as a terminal would show it, and waits until the inner status line
// shows want.
func tmuxStatusRight(t *testing.T, env []string, want string) {
	t.Helper()
	requireTool(t, "tmux")
	conf, _ := filepath.Abs(filepath.Join("tmux", "agentstatus.tmux.conf"))
	sock := fmt.Sprintf("agentstatus-test-%d-%d", os.Getpid(), tmuxServers.Add(1))
	tmux := func(args ...string) (string, error) {
		cmd := exec.Command("tmux", append([]string{"-L", sock + "-outer", "-f", "/dev/null"}, args...)...)
		cmd.Env = append(env, "SHELL=/bin/sh") // tmux runs commands with $SHELL -c
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The panes run cat, not the user's shell, and commands through
	// /bin/sh: the user's shell reads the user's dotfiles, and one killed
	// by kill-server in the middle of them can leave their state behind
	// (a stale pyenv rehash lock made every later login shell on the
	// machine wait 60 s).
	inner := "tmux -L " + sock + "-inner -f " + conf + " new-session cat"
	if out, err := tmux("new-session", "-d", "-x", "120", "-y", "10", inner); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("tmux", "-L", sock+"-inner", "kill-server").Run()
		tmux("kill-server")
	})
	var screen string
	testbin.WaitFor(t, "tmux status line showing "+want, 15*time.Second, func() bool {
		screen, _ = tmux("capture-pane", "-p", "-t", "0")
		lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		return strings.Contains(lines[len(lines)-1], want)
	})
}

func TestTmuxStatusRight(t *testing.T) {
	testmain.SkipShort(t, "starts tmux servers and waits for their status line")
	t.Parallel()
	// The stand-in answers the program the recipe gives it, and checks
	// it is the one of the file, whole.
	stub := stubs(t, map[string]string{"statusls": `[ "$1 $2 $3" = "--sort attention --jq" ] && [ "$4" = "$WANT_JQ" ] && [ $# = 4 ] && echo "2 blocked (Bash, question) · 2 working"`})
	tmuxStatusRight(t, withPath([]string{stub}, "WANT_JQ="+tmuxJQ(t)), "2 blocked (Bash, question) · 2 working")
}

// tmuxJQ is the jq program of the tmux recipe.
func tmuxJQ(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("tmux", "agentstatus.tmux.conf"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^set-environment -g AGENTSTATUS_TMUX_JQ '([^']*)'$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no AGENTSTATUS_TMUX_JQ line")
	}
	return string(m[1])
}

// The recipe's program, run by the real statusls over sessions with and
// without reasons: one word per blocked session (in file-name order), the tool of a permission
// prompt, else the kind of wait; "#" doubled for tmux.
func TestTmuxReasonsStatusls(t *testing.T) {
	testmain.SkipShort(t, "starts tmux servers and waits for their status line")
	t.Parallel()
	real := realStatusls(t)
	now := time.Now()
	for _, tc := range []struct {
		name     string
		sessions []statusfile.Status
		want     string
	}{
		{"none", nil, ""},
		{"no reasons", []statusfile.Status{{Session: "w", State: "working"}, {Session: "b", State: "blocked"}}, "1 blocked · 1 working"},
		{"reasons", []statusfile.Status{
			{Session: "a", State: "blocked", WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"}},
			{Session: "b", State: "working"},
			{Session: "c", State: "blocked", WaitingFor: statusfile.Waiting{Kind: "question", Detail: "Which database?"}},
			{Session: "d", State: "idle", Ended: statusfile.Ended{Reason: "cancelled"}},
			{Session: "e", State: "blocked"},
			{Session: "f", State: "blocked", WaitingFor: statusfile.Waiting{Kind: "permission"}},
		}, "4 blocked (permission, question, Bash) · 1 working · 1 idle"},
		{"a hostile tool", []statusfile.Status{
			{Session: "a", State: "blocked", WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "#[fg=red]#{host}#(touch pwned)"}},
		}, "1 blocked (##[fg=red]##{host}##(touch pwned))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "agent-status")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.sessions {
				s.Schema, s.Agent, s.UpdatedAt = statusfile.Schema, "claude-code", now
				if _, err := statusfile.WriteFile(dir, s); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(real, "--dir", dir, "--sort", "attention", "--jq", tmuxJQ(t))
			cmd.Env = withPath([]string{filepath.Dir(real)})
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != tc.want+"\n" {
				t.Errorf("%v: %q, want %q", err, out, tc.want+"\n")
			}
		})
	}
}

// TestTmuxKeepsUserOptions: the recipe appends to the user's status-right
// and leaves the global status-interval as it was.
func TestTmuxKeepsUserOptions(t *testing.T) {
	testmain.SkipShort(t, "starts a tmux server")
	t.Parallel()
	requireTool(t, "tmux")
	conf, _ := filepath.Abs(filepath.Join("tmux", "agentstatus.tmux.conf"))
	user := filepath.Join(t.TempDir(), "tmux.conf")
	os.WriteFile(user, []byte("set -g status-right 'MINE %H:%M'\nset -g status-right-length 20\nsource-file "+conf+"\n"), 0o600)
	sock := fmt.Sprintf("agentstatus-test-opts-%d-%d", os.Getpid(), tmuxServers.Add(1))
	tmux := func(args ...string) string {
		cmd := exec.Command("tmux", append([]string{"-L", sock, "-f", user}, args...)...)
		cmd.Env = append(os.Environ(), "SHELL=/bin/sh") // see tmuxStatusRight
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("new-session", "-d", "-x", "120", "-y", "10", "cat") // cat: see tmuxStatusRight
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	if got, want := tmux("show", "-gv", "status-right"), `MINE %H:%M #(statusls --sort attention --jq "$AGENTSTATUS_TMUX_JQ")`; got != want {
		t.Errorf("status-right %q, want %q", got, want)
	}
	if got := tmux("show", "-gv", "status-right-length"); got != "80" {
		t.Errorf("status-right-length %s, want 80", got)
	}
	if got := tmux("show", "-gv", "status-interval"); got != "15" {
		t.Errorf("status-interval %s, want tmux's default 15", got)
	}
}

// publishBlocked publishes a blocked session and a working one into a new
// config home, bound to a process that lives as long as the test.
func publishBlocked(t *testing.T) string {
	t.Helper()
	home, pid := standInAgent(t)
	for _, s := range [][]string{{"ex-1", "blocked"}, {"ex-2", "working"}} {
		out, err := exec.Command(filepath.Join(binDir, "statuspub"), "set", "--config-home", home, "--session", s[0],
			"--state", s[1], "--pid", pid).CombinedOutput()
		if err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	return home
}

// standInAgent starts a process for statuspub set's records to live in,
// killed when the test ends, and returns a config home for them and its
// pid.
func standInAgent(t *testing.T) (home, pid string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home")
	// Runs after the agent is killed (cleanups run last first): the
	// owners statuspub set started then remove their files; wait for
	// them, so that the temporary directory is removed after them.
	t.Cleanup(func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if os.RemoveAll(home) == nil {
				return
			}
		}
	})
	agent := exec.Command("sleep", "300")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	return home, strconv.Itoa(agent.Process.Pid)
}

func TestTmuxStatusRightStatusls(t *testing.T) {
	testmain.SkipShort(t, "starts tmux servers and waits for their status line")
	t.Parallel()
	real := realStatusls(t)
	home := publishBlocked(t)
	// And one that says what it waits for.
	if _, err := statusfile.WriteFile(filepath.Join(home, "agent-status"), statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code",
		Session: "ex-3", State: statusfile.Blocked, UpdatedAt: time.Now(), WaitingFor: statusfile.Waiting{Kind: "question", Detail: "Which database?"}}); err != nil {
		t.Fatal(err)
	}
	tmuxStatusRight(t, withPath([]string{filepath.Dir(real)}, location.ConfigHomeEnv+"="+home), "2 blocked (question) · 1 working")
}

// promptOf sources the prompt segment in shell (bash or zsh) with prompt
// as the user's prompt, and prints the prompt as the shell would show it.
func promptOf(t *testing.T, shell string, env []string) string {
	t.Helper()
	requireTool(t, shell)
	script, _ := filepath.Abs(filepath.Join("shell", "agentstatus.sh"))
	var cmd *exec.Cmd
	switch shell {
	case "bash":
		// ${PS1@P} expands PS1 as bash does before showing it.
		cmd = exec.Command("bash", "--norc", "--noprofile", "-c", `PS1='\u$ '; . "$0"; . "$0"; printf '%s' "${PS1@P}"`, script)
	case "zsh":
		// A prompt is substituted (PROMPT_SUBST), then its % sequences expanded.
		cmd = exec.Command("zsh", "-f", "-c", `PROMPT='%n%# '; . "$0"; . "$0"; print -rn -- "${(%)${(e)PROMPT}}"`, script)
	}
	cmd.Env = append(env, "USER=tester", "LOGNAME=tester")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() != 0 {
		t.Fatalf("%s: %v %q", shell, err, stderr.String())
	}
	return string(out)
}

func TestPromptSegment(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			cases := []struct {
				name, stub, want string
			}{
				{"sessions", `echo "1 blocked · 2 working"`, "[1 blocked · 2 working] "},
				{"none", `exit 0`, ""},
				{"failing", `echo "statusls: broken" >&2; exit 1`, ""},
				{"output taken literally", `echo '$(echo pwned) 1 100%n'`, "[$(echo pwned) 1 100%n] "},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					stub := stubs(t, map[string]string{"statusls": c.stub})
					got := promptOf(t, shell, withPath([]string{stub}))
					if !strings.HasPrefix(got, c.want) || strings.Contains(strings.TrimPrefix(got, c.want), "[") {
						t.Errorf("prompt %q, want it to start with %q once", got, c.want)
					}
				})
			}
			// Several machines: a host left out (exit status 5) still
			// shows the others.
			for _, c := range []struct{ hosts, args string }{
				{"devbox,gpu", "--summary --local --host devbox,gpu --host-timeout 2s"},
				{"all", "--summary --local --all-hosts --host-timeout 2s"},
			} {
				t.Run("hosts "+c.hosts, func(t *testing.T) {
					stub := stubs(t, map[string]string{"statusls": `[ "$*" = "` + c.args + `" ] || exit 2
echo "1 blocked · 1 idle"; exit 5`})
					got := promptOf(t, shell, withPath([]string{stub}, "AGENTSTATUS_HOSTS="+c.hosts))
					if !strings.HasPrefix(got, "[1 blocked · 1 idle] ") {
						t.Errorf("prompt %q", got)
					}
				})
			}
			t.Run("not installed", func(t *testing.T) {
				got := promptOf(t, shell, withPath([]string{t.TempDir()}, "PATH=/nonexistent"))
				if strings.Contains(got, "[") {
					t.Errorf("prompt %q", got)
				}
			})
		})
	}
}

func TestPromptSegmentStatusls(t *testing.T) {
	t.Parallel()
	real := realStatusls(t)
	home := publishBlocked(t)
	got := promptOf(t, "bash", withPath([]string{filepath.Dir(real)}, location.ConfigHomeEnv+"="+home))
	if !strings.HasPrefix(got, "[1 blocked · 1 working] ") {
		t.Errorf("prompt %q", got)
	}
}

// nvimSummary runs Neovim headless with the example module, whose watcher
// is cmd, and waits for the statusline to show want. It returns the
// statusline as Neovim renders it.
func nvimSummary(t *testing.T, env []string, cmd []string, want string) string {
	t.Helper()
	shown, _, _ := nvimRun(t, env, cmd, want)
	return shown
}

// nvimRun is nvimSummary that also returns the module's reasons(), as
// JSON, and what :AgentStatus echoes.
func nvimRun(t *testing.T, env []string, cmd []string, want string) (shown, reasons, listed string) {
	t.Helper()
	requireTool(t, "nvim")
	rtp, _ := filepath.Abs("nvim")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	lua := `
local m = require('agentstatus')
m.setup({ cmd = vim.json.decode(os.getenv('AGENTSTATUS_TEST_CMD')) })
vim.o.statusline = "%{v:lua.require'agentstatus'.statusline()}"
local want = os.getenv('AGENTSTATUS_TEST_WANT')
local ok = vim.wait(15000, function() return m.statusline() == want end, 20)
local shown = vim.api.nvim_eval_statusline(vim.o.statusline, {}).str
local reasons = next(m.reasons()) and vim.json.encode(m.reasons()) or "{}"
local listed = vim.api.nvim_exec("AgentStatus", true)
vim.fn.writefile({ tostring(ok), m.statusline(), shown, reasons, vim.json.encode(listed) }, os.getenv('AGENTSTATUS_TEST_OUT'))
m.stop()
vim.cmd('qa!')
`
	script := filepath.Join(dir, "test.lua")
	if err := os.WriteFile(script, []byte(lua), 0o600); err != nil {
		t.Fatal(err)
	}
	cmdJSON, _ := json.Marshal(cmd)
	nv := exec.Command("nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "set rtp+="+rtp, "-c", "luafile "+script)
	nv.Env = append(env, "AGENTSTATUS_TEST_CMD="+string(cmdJSON), "AGENTSTATUS_TEST_WANT="+want, "AGENTSTATUS_TEST_OUT="+out)
	if o, err := nv.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v %s", err, o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 5 || lines[0] != "true" {
		t.Fatalf("statusline() %q, want %q", lines[1:], want)
	}
	if err := json.Unmarshal([]byte(lines[4]), &listed); err != nil {
		t.Fatalf(":AgentStatus: %v %q", err, lines[4])
	}
	return lines[2], lines[3], listed
}

func TestNeovimModule(t *testing.T) {
	testmain.SkipShort(t, "starts headless Neovim and waits for its summary")
	t.Parallel()
	// A stand-in for statusls watch --json: a snapshot, then changes, a line
	// split across two writes, a line that is not JSON, then it stays.
	events := `{"event":"snapshot","seq":1,"at":"2026-07-17T12:00:00.000Z","session":"a","agent":"claude-code","state":"working","task":null}
{"event":"snapshot","seq":2,"at":"2026-07-17T12:00:00.000Z","session":"b","agent":"codex","state":"idle","task":null}
{"event":"added","seq":3,"at":"2026-07-17T12:00:01.000Z","session":"c","agent":"pi","state":"blocked","task":{"title":"Approve?"},"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":null}}
{"event":"updated","seq":4,"at":"2026-07-17T12:00:02.000Z","session":"b","agent":"codex","state":"working","task":null}
not json
{"event":"stale","seq":5,"at":"2026-07-17T12:00:40.000Z","session":"a","agent":"claude-code","state":"working","task":null}
{"event":"added","seq":6,"at":"2026-07-17T12:00:41.000Z","session":"d","agent":"x","state":"review%x","task":null}
{"event":"added","seq":7,"at":"2026-07-17T12:00:42.000Z","session":"e","agent":"x","state":"idle","task":null}
{"event":"removed","seq":8,"at":"2026-07-17T12:00:43.000Z","session":"e"}
{"event":"added","seq":9,"at":"2026-07-17T12:00:44.000Z","session":"f","agent":"x","state":"blocked","waitingFor":{"kind":"question","tool":null,"detail":"Which database?","since":null},"ended":null}
{"event":"added","seq":10,"at":"2026-07-17T12:00:45.000Z","session":"g","agent":"x","state":"idle","waitingFor":null,"ended":{"reason":"cancelled","detail":null,"at":null}}
{"event":"added","seq":11,"at":"2026-07-17T12:00:46.000Z","session":"h","agent":"x","state":"working","waitingFor":"odd","ended":{"reason":"done"}}
`
	eventsFile := filepath.Join(t.TempDir(), "events")
	os.WriteFile(eventsFile, []byte(events), 0o600)
	stub := stubs(t, map[string]string{"statusls": `[ "$*" = "watch --json" ] || exit 2
head -c 100 "$EVENTS"; sleep 0.2; tail -c +101 "$EVENTS"; exec sleep 60`})
	want := "2 blocked (Bash, question) · 2 working · 1 idle · 1 review%x"
	shown, reasons, listed := nvimRun(t, withPath(nil, "EVENTS="+eventsFile), []string{filepath.Join(stub, "statusls"), "watch", "--json"}, want)
	if shown != want {
		t.Errorf("statusline shows %q", shown)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(reasons), &got); err != nil {
		t.Fatalf("reasons %q: %v", reasons, err)
	}
	if w := map[string]string{"c": "Bash: rm -rf build", "f": "question: Which database?", "g": "cancelled"}; !maps.Equal(got, w) {
		t.Errorf("reasons %v, want %v", got, w)
	}
	if w := "working  b\nblocked  c  Bash: rm -rf build\nreview%x  d\nblocked  f  question: Which database?\nidle  g  cancelled\nworking  h"; listed != w {
		t.Errorf(":AgentStatus\n%s\nwant\n%s", listed, w)
	}
}

// The multi-host form: sessions of several hosts with the same id are
// counted apart, and an offline host is shown until it is back.
func TestNeovimModuleHosts(t *testing.T) {
	testmain.SkipShort(t, "starts headless Neovim and waits for its summary")
	t.Parallel()
	events := `{"host":null,"event":"snapshot","seq":1,"at":"2026-07-17T12:00:00.000Z","session":"a","state":"working"}
{"host":"devbox","event":"snapshot","seq":2,"at":"2026-07-17T12:00:00.000Z","session":"a","state":"blocked"}
{"host":"gpu","event":"host-offline","seq":3,"at":"2026-07-17T12:00:00.000Z","session":null,"error":"ssh failed"}
{"host":"old","event":"host-offline","seq":4,"at":"2026-07-17T12:00:00.000Z","session":null,"error":"ssh failed"}
{"host":null,"event":"synced","seq":5,"at":"2026-07-17T12:00:00.000Z","session":null}
{"host":"old","event":"host-online","seq":6,"at":"2026-07-17T12:00:09.000Z","session":null}
{"host":"devbox","event":"added","seq":7,"at":"2026-07-17T12:00:10.000Z","session":"b","state":"idle"}
`
	eventsFile := filepath.Join(t.TempDir(), "events")
	os.WriteFile(eventsFile, []byte(events), 0o600)
	stub := stubs(t, map[string]string{"statusls": `[ "$*" = "watch --json --local --all-hosts" ] || exit 2
cat "$EVENTS"; exec sleep 60`})
	want := "1 blocked · 1 working · 1 idle · 1 host offline"
	if shown := nvimSummary(t, withPath(nil, "EVENTS="+eventsFile), []string{filepath.Join(stub, "statusls"), "watch", "--json", "--local", "--all-hosts"}, want); shown != want {
		t.Errorf("statusline shows %q", shown)
	}
}

func TestNeovimModuleStatusls(t *testing.T) {
	testmain.SkipShort(t, "starts headless Neovim over statusls watch and waits for its summary")
	t.Parallel()
	real := realStatusls(t)
	home := publishBlocked(t)
	nvimSummary(t, withPath(nil, location.ConfigHomeEnv+"="+home), []string{real, "watch", "--json"}, "1 blocked · 1 working")
}

// The module's words are statusls's: over the real statusls watch --json,
// reasons() holds what Status.Why says for every kind of record.
func TestNeovimModuleReasonsStatusls(t *testing.T) {
	testmain.SkipShort(t, "starts headless Neovim over statusls watch and waits for its summary")
	t.Parallel()
	real := realStatusls(t)
	dir := filepath.Join(t.TempDir(), "agent-status")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	w := func(kind, tool, detail string) statusfile.Waiting {
		return statusfile.Waiting{Kind: kind, Tool: tool, Detail: detail, Since: now}
	}
	e := func(reason, detail string) statusfile.Ended {
		return statusfile.Ended{Reason: reason, Detail: detail, At: now}
	}
	records := []statusfile.Status{
		{Session: "p1", State: "blocked", WaitingFor: w("permission", "Bash", "rm -rf build")},
		{Session: "p2", State: "blocked", WaitingFor: w("permission", "Edit", "")},
		{Session: "p3", State: "blocked", WaitingFor: w("permission", "", "main.go")},
		{Session: "q1", State: "blocked", WaitingFor: w("question", "", "Which database?")},
		{Session: "q2", State: "blocked", WaitingFor: w("question", "", "")},
		{Session: "a1", State: "blocked", WaitingFor: w("auth", "", "")},
		{Session: "n1", State: "blocked", WaitingFor: w("newer-kind", "x", "y")},
		{Session: "b0", State: "blocked"},
		{Session: "e1", State: "idle", Ended: e("done", "end_turn")},
		{Session: "e2", State: "idle", Ended: e("cancelled", "")},
		{Session: "e3", State: "idle", Ended: e("failed", "server_error")},
		{Session: "e4", State: "idle", Ended: e("failed", "")},
		{Session: "e5", State: "idle", Ended: e("rate_limited", "429")},
		{Session: "e6", State: "idle", Ended: e("newer-reason", "why")},
		{Session: "w1", State: "working"},
	}
	want := map[string]string{}
	for _, r := range records {
		r.Schema, r.Agent, r.UpdatedAt = statusfile.Schema, "claude-code", now
		if _, err := statusfile.WriteFile(dir, r); err != nil {
			t.Fatal(err)
		}
		if why := r.Why(); why != "" {
			want[r.Session] = why
		}
	}
	_, reasons, _ := nvimRun(t, withPath(nil, "STATUS_DIR="+dir), []string{real, "watch", "--json"},
		"8 blocked (auth, newer-kind, Bash, Edit, permission, question, question) · 1 working · 6 idle")
	var got map[string]string
	if err := json.Unmarshal([]byte(reasons), &got); err != nil {
		t.Fatalf("reasons %q: %v", reasons, err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("reasons\n%v\nwant (Status.Why)\n%v", got, want)
	}
}

// The notify scripts run statusls watch with their flags and command; the
// command, run by the shell with the record in STATUS_* variables as
// statusls runs it, sends the reason to notify-send and, with
// AGENTSTATUS_PUSH_URL, to curl, every value as text.
func TestNotify(t *testing.T) {
	t.Parallel()
	stub := stubs(t, map[string]string{
		// Plays statusls: records its arguments, then runs the --exec
		// command once, as for one session it was told about.
		"statusls": `printf '%s\n' "$@" >"$OUT/statusls.args"
while [ $# -gt 0 ]; do [ "$1" = --exec ] && cmd=$2; shift; done
exec sh -c "$cmd"`,
		"notify-send": `printf '%s\n' "$@" >"$OUT/notify.args"`,
		"curl":        `printf '%s\n' "$@" >"$OUT/curl.args"; cat >"$OUT/curl.stdin"`,
	})
	title := "Deploy $(touch pwned) `touch pwned2` \"quoted\" 100%"
	for _, tc := range []struct {
		name, script string
		env          []string
		statusls     string   // its arguments before the command
		notify       []string // notify-send's arguments; nil: not run
		push         string   // curl's stdin; "": not run
		curl         []string // curl's arguments after the fixed ones
	}{
		{"blocked", "notify-blocked.sh", []string{"STATUS_AGENT=claude-code", "STATUS_TITLE=" + title, "STATUS_CWD=/w", "STATUS_STATE=blocked", "STATUS_SESSION=s", "STATUS_WHY=Bash: rm -rf build"},
			"watch --on blocked --after 30s --cooldown 5m --exec",
			[]string{"--app-name=agentstatus", "--urgency=critical", "--", "claude-code is waiting for you", "Bash: rm -rf build", title}, "", nil},
		{"blocked, no reason, no title", "notify-blocked.sh", []string{"STATUS_AGENT=codex", "STATUS_TITLE=", "STATUS_WHY=", "STATUS_CWD=/home/u/p", "STATUS_SESSION=s", "AGENTSTATUS_AFTER=1m", "AGENTSTATUS_COOLDOWN=0s"},
			"watch --on blocked --after 1m --cooldown 0s --exec",
			[]string{"--app-name=agentstatus", "--urgency=critical", "--", "codex is waiting for you", "waiting", "/home/u/p"}, "", nil},
		{"done", "notify-done.sh", []string{"STATUS_AGENT=claude-code", "STATUS_TITLE=Fix the tests", "STATUS_STATE=idle", "STATUS_SESSION=s", "STATUS_WHY=rate limited"},
			"watch --on idle --after-working 2m --cooldown 5m --exec",
			[]string{"--app-name=agentstatus", "--urgency=normal", "--", "claude-code: rate limited", "Fix the tests"}, "", nil},
		{"push and desktop", "notify-blocked.sh", []string{"STATUS_AGENT=pi", "STATUS_TITLE=@/etc/passwd", "STATUS_WHY=question: Which database?", "STATUS_SESSION=s",
			"AGENTSTATUS_PUSH_URL=https://ntfy.example/agents", "AGENTSTATUS_PUSH_AUTH=Bearer tk_x"},
			"watch --on blocked --after 30s --cooldown 5m --exec",
			[]string{"--app-name=agentstatus", "--urgency=critical", "--", "pi is waiting for you", "question: Which database?", "@/etc/passwd"},
			"pi is waiting for you\nquestion: Which database?\n@/etc/passwd\n",
			[]string{"-H", "Authorization: Bearer tk_x", "-H", "Content-Type: text/plain; charset=utf-8", "--data-binary", "@-", "--", "https://ntfy.example/agents"}},
		{"push only", "notify-done.sh", []string{"STATUS_AGENT=codex", "STATUS_WHY=failed: server_error", "STATUS_CWD=/w", "STATUS_SESSION=s",
			"AGENTSTATUS_PUSH_URL=https://ntfy.example/agents", "AGENTSTATUS_NO_DESKTOP=1", "AGENTSTATUS_WORKED=10m"},
			"watch --on idle --after-working 10m --cooldown 5m --exec",
			nil, "codex: failed: server_error\n/w\n",
			[]string{"-H", "Content-Type: text/plain; charset=utf-8", "--data-binary", "@-", "--", "https://ntfy.example/agents"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script, _ := filepath.Abs(filepath.Join("notify", tc.script))
			cmd := exec.Command(script)
			cmd.Dir = dir
			cmd.Env = withPath([]string{stub}, append(tc.env, "OUT="+dir)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			read := func(name string) []string {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					return nil
				}
				return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			}
			if got := read("statusls.args"); len(got) < 2 || strings.Join(got[:len(got)-1], " ") != tc.statusls {
				t.Errorf("statusls %q, want %s CMD", got, tc.statusls)
			}
			if got := read("notify.args"); !slices.Equal(got, tc.notify) {
				t.Errorf("notify-send %q, want %q", got, tc.notify)
			}
			stdin, _ := os.ReadFile(filepath.Join(dir, "curl.stdin"))
			if string(stdin) != tc.push {
				t.Errorf("pushed %q, want %q", stdin, tc.push)
			}
			if got := read("curl.args"); tc.curl != nil && (len(got) < len(tc.curl) || !slices.Equal(got[len(got)-len(tc.curl):], tc.curl)) {
				t.Errorf("curl %q, want it to end with %q", got, tc.curl)
			}
			for _, f := range []string{"pwned", "pwned2"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("the title ran a command (%s exists)", f)
				}
			}
		})
	}
}

// With the real statusls: a session that has waited for a minute already
// is notified at once, with what it waits for.
func TestNotifyBlockedStatusls(t *testing.T) {
	testmain.SkipShort(t, "runs statusls watch and waits for its command to run")
	t.Parallel()
	real := realStatusls(t)
	dir := t.TempDir()
	stub := stubs(t, map[string]string{"notify-send": `printf '%s\n' "$@" >>"$OUT/notify.args"`})
	home := filepath.Join(t.TempDir(), "home")
	script, _ := filepath.Abs(filepath.Join("notify", "notify-blocked.sh"))
	watch := exec.Command(script)
	watch.Env = withPath([]string{stub, filepath.Dir(real)}, "OUT="+dir, location.ConfigHomeEnv+"="+home)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Kill(); watch.Wait() })
	statusDir := filepath.Join(home, "agent-status")
	if err := os.MkdirAll(statusDir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := statusfile.WriteFile(statusDir, statusfile.Status{Schema: statusfile.Schema, Agent: "claude-code", Session: "n-1",
		State: statusfile.Blocked, Title: "Clean up", UpdatedAt: now,
		WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: now.Add(-time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	testbin.WaitFor(t, "a notification", 15*time.Second, func() bool {
		sent, _ := os.ReadFile(filepath.Join(dir, "notify.args"))
		return strings.Contains(string(sent), "claude-code is waiting for you\nBash: rm -rf build\nClean up\n")
	})
}
