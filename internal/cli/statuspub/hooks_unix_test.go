//go:build unix

package statuspub_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/statustest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/statusfile"
)

// fakeAgentEnv makes the test binary a stand-in agent (see fakeAgent).
const fakeAgentEnv = "STATUSPUB_TEST_FAKE_AGENT"

// agentRequest asks the stand-in agent to run one hook.
type agentRequest struct {
	Shell []string `json:"shell"` // e.g. ["sh", "-c"]
	Cmd   string   `json:"cmd"`
	Stdin string   `json:"stdin"`
	Env   []string `json:"env"`
	// Helper runs the hook through a short-lived helper process, as
	// Qwen Code runs StopFailure: the same executable as the agent,
	// started detached (a session of its own), waiting for the hook and
	// exiting with it (see hookHelper).
	Helper bool `json:"helper"`
}

// hookHelperEnv makes the test binary a hook's helper (see hookHelper).
const hookHelperEnv = "STATUSPUB_TEST_HOOK_HELPER"

// hookHelper is what the test binary does as the stand-in agent's helper:
// it runs argv with its own standard streams and exits with its status.
func hookHelper(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	return 0
}

type agentReply struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Millis int64  `json:"millis"`
}

// fakeAgent is what the test binary does as a stand-in agent: like Claude
// Code, a long-lived process that is not a shell and runs each hook as
// `sh -c CMD` with the hook input on stdin, waiting for the hook's output
// to close. It reads one agentRequest per line and answers each with an
// agentReply.
func fakeAgent(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req agentRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return 2
		}
		cmd := exec.Command(req.Shell[0], append(req.Shell[1:], req.Cmd)...)
		cmd.Env = append(os.Environ(), req.Env...)
		if req.Helper {
			self, err := os.Executable()
			if err != nil {
				return 2
			}
			cmd = exec.Command(self, append(req.Shell, req.Cmd)...)
			cmd.Env = append(os.Environ(), append(req.Env, hookHelperEnv+"=1")...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		cmd.Stdin = strings.NewReader(req.Stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		rep := agentReply{Stdout: stdout.String(), Stderr: stderr.String(), Millis: time.Since(start).Milliseconds()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			rep.Code = ee.ExitCode()
		} else if err != nil {
			rep.Code, rep.Stderr = -1, err.Error()
		}
		enc.Encode(rep)
	}
	return 0
}

// agent is a running stand-in agent.
type agent struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	pid   int
	alive bool
}

func startAgent(t *testing.T, env ...string) *agent {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	// A HOME of its own: the hooks run under bash -lc too, and a login
	// shell reads the dotfiles of HOME, which on a developer's machine may
	// take seconds (a version manager's set-up) or print.
	home := t.TempDir()
	cmd.Env = append(append(os.Environ(), fakeAgentEnv+"=1", "HOME="+home), env...)
	cmd.Stderr = os.Stderr
	in, outPipe := testbin.StartPiped(t, cmd)
	a := &agent{t: t, cmd: cmd, in: in, out: bufio.NewScanner(outPipe), pid: cmd.Process.Pid, alive: true}
	t.Cleanup(a.kill)
	return a
}

// hook runs cmd under the agent through shell (sh -c by default).
func (a *agent) hook(shell []string, cmd, stdin string, env ...string) agentReply {
	a.t.Helper()
	return a.run(agentRequest{Shell: shell, Cmd: cmd, Stdin: stdin, Env: env})
}

// claudeHook has the agent run claude-hook --dir dir as Claude Code does
// (sh -c), with the payload testdata/claude/file.
func (a *agent) claudeHook(dir, file string) agentReply {
	a.t.Helper()
	return a.hook(nil, bin+" claude-hook --dir "+dir, fixture(a.t, "testdata", "claude", file))
}

// run has the agent run the hook req.
func (a *agent) run(req agentRequest) agentReply {
	a.t.Helper()
	if req.Shell == nil {
		req.Shell = []string{"sh", "-c"}
	}
	cmd := req.Cmd
	line, _ := json.Marshal(req)
	if _, err := a.in.Write(append(line, '\n')); err != nil {
		a.t.Fatal(err)
	}
	got := make(chan bool, 1)
	go func() { got <- a.out.Scan() }()
	select {
	case ok := <-got:
		if !ok {
			a.t.Fatalf("stand-in agent died: %v", a.out.Err())
		}
	case <-time.After(20 * time.Second):
		a.t.Fatalf("hook %q did not return within 20 s (does something hold its output open?)", cmd)
	}
	var rep agentReply
	if err := json.Unmarshal(a.out.Bytes(), &rep); err != nil {
		a.t.Fatal(err)
	}
	return rep
}

// kill ends the stand-in agent the hard way, as a crash would, and reaps it.
func (a *agent) kill() {
	if a.alive {
		a.alive = false
		a.cmd.Process.Kill()
		a.cmd.Wait()
	}
}

// sleeper is a stand-in agent process that does nothing: the --pid of sets
// that do not care how the pid is found. It is killed when the test or
// benchmark is done (or earlier by the test: killing it twice is harmless);
// the sleep only bounds its life should the test binary die first.
func sleeper(tb testing.TB) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// pub runs statuspub with args, stdin and extra environment; it returns the
// exit code and stderr.
func pub(t *testing.T, stdin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("statuspub %q did not exit within 20 s", args)
		return -1, ""
	}
}

// mustPub runs statuspub and fails the test unless it exits 0 silently.
func mustPub(t *testing.T, stdin string, env []string, args ...string) {
	t.Helper()
	if code, stderr := pub(t, stdin, env, args...); code != 0 || stderr != "" {
		t.Fatalf("statuspub %q: exit %d, stderr %q", args, code, stderr)
	}
}

// fixture is the content of the file at the joined path, a hook payload
// from this package's testdata or internal/agenthook's.
func fixture(tb testing.TB, elem ...string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// record reads a session's record; ok is false when there is none.
func record(t *testing.T, dir, session string) (statusfile.Status, bool) {
	t.Helper()
	return statustest.Read(t, dir, session)
}

func mustRecord(t *testing.T, dir, session string) statusfile.Status {
	t.Helper()
	rec, ok := record(t, dir, session)
	if !ok {
		t.Fatalf("no record for %q", session)
	}
	return rec
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	testbin.WaitFor(t, what, timeout, cond)
}

// waitRecordGone waits until session's record in dir has been removed.
func waitRecordGone(t *testing.T, what string, timeout time.Duration, dir, session string) {
	t.Helper()
	waitFor(t, what, timeout, func() bool {
		_, ok := record(t, dir, session)
		return !ok
	})
}

// lockNames are the lock files of a session (see lock_unix.go).
func lockNames(session string) (string, string) {
	base := strings.TrimSuffix(statusfile.FileName(session), ".json")
	return "." + base + ".lock", "." + base + ".owner"
}

// ownerPID asks the kernel which process holds the session's owner lock
// (F_GETLK), as clear does; 0 when none.
func ownerPID(t *testing.T, dir, session string) int {
	t.Helper()
	_, name := lockNames(session)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}

// dirNames lists a directory, dot-files included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSetKeepsWhatIsOnDisk(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	d := []string{"--dir", dir, "--session", "k-1", "--pid", "0"} // pid 0: no owner
	type want struct {
		state        statusfile.State
		title, agent string
		cwd          string
	}
	wd, _ := os.Getwd()
	steps := []struct {
		args []string
		want want
	}{
		{nil, want{statusfile.Idle, "", "statuspub", wd}},
		{[]string{"--state", "working"}, want{statusfile.Working, "", "statuspub", wd}},
		{[]string{"--title", "Fix \x1b[31mthe\x1b[0m tests", "--agent", "my-agent", "--cwd", "/srv/w"}, want{statusfile.Working, "Fix the tests", "my-agent", "/srv/w"}},
		{[]string{"--state", "blocked"}, want{statusfile.Blocked, "Fix the tests", "my-agent", "/srv/w"}},
		{[]string{"--no-title"}, want{statusfile.Blocked, "", "my-agent", "/srv/w"}},
		{[]string{"--title", "Again", "--state", "idle"}, want{statusfile.Idle, "Again", "my-agent", "/srv/w"}},
		{[]string{"--title", ""}, want{statusfile.Idle, "", "my-agent", "/srv/w"}},
	}
	for i, st := range steps {
		before := time.Now().Truncate(time.Millisecond)
		mustPub(t, "", nil, append(append([]string{"set"}, d...), st.args...)...)
		rec := mustRecord(t, dir, "k-1")
		got := want{rec.State, rec.Title, rec.Agent, rec.Cwd}
		if got != st.want {
			t.Errorf("step %d %q: %+v, want %+v", i, st.args, got, st.want)
		}
		if rec.UpdatedAt.Before(before) || rec.PID != 0 {
			t.Errorf("step %d: updatedAt %v (before %v), pid %d", i, rec.UpdatedAt, before, rec.PID)
		}
	}
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "k-1")
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left after clear: %v", names)
	}
}

// set's --waiting-for and --ended imply their state, and go with it.
func TestSetWhy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	d := []string{"--dir", dir, "--session", "w-1", "--pid", "0"}
	steps := []struct {
		env   []string
		args  []string
		state statusfile.State
		why   string
	}{
		{nil, []string{"--state", "working"}, statusfile.Working, ""},
		{nil, []string{"--waiting-for", "permission", "--tool", "Bash", "--detail", "rm -rf build"}, statusfile.Blocked, "Bash: rm -rf build"},
		{nil, []string{"--title", "kept"}, statusfile.Blocked, "Bash: rm -rf build"},
		{nil, []string{"--state", "working"}, statusfile.Working, ""},
		{nil, []string{"--state", "blocked"}, statusfile.Blocked, ""},
		{nil, []string{"--waiting-for", "question", "--detail", "Which database?", "--state", "blocked"}, statusfile.Blocked, "question: Which database?"},
		{nil, []string{"--ended", "rate_limited", "--detail", "rate_limit"}, statusfile.Idle, "rate limited"},
		{nil, []string{"--ended", "failed", "--detail", "server_error"}, statusfile.Idle, "failed: server_error"},
		{nil, []string{"--ended", "failed", "--detail", "server_error", "--no-detail"}, statusfile.Idle, "failed"},
		{[]string{"AGENTSTATUS_NO_DETAIL=1"}, []string{"--waiting-for", "permission", "--tool", "Bash", "--detail", "rm -rf build"}, statusfile.Blocked, "Bash"},
		{[]string{"AGENTSTATUS_NO_DETAIL=0"}, []string{"--waiting-for", "permission", "--tool", "Bash", "--detail", "rm -rf build"}, statusfile.Blocked, "Bash: rm -rf build"},
		{nil, []string{"--state", "working"}, statusfile.Working, ""},
	}
	for i, st := range steps {
		mustPub(t, "", st.env, append(append([]string{"set"}, d...), st.args...)...)
		rec := mustRecord(t, dir, "w-1")
		if rec.State != st.state || rec.Why() != st.why {
			t.Errorf("step %d %q: %s %q, want %s %q", i, st.args, rec.State, rec.Why(), st.state, st.why)
		}
	}
	for _, args := range [][]string{
		{"--waiting-for", "permision"},
		{"--waiting-for", "permission", "--state", "idle"},
		{"--ended", "done", "--state", "blocked"},
		{"--ended", "done", "--waiting-for", "question"},
		{"--tool", "Bash"},
		{"--detail", "x"},
		{"--ended", "finished"},
	} {
		code, stderr := pub(t, "", nil, append(append([]string{"set"}, d...), args...)...)
		if code != 2 || !strings.HasPrefix(stderr, "statuspub: ") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
}

func TestSetUsage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	for _, args := range [][]string{
		{"set"},
		{"set", "--dir", dir},
		{"set", "--dir", dir, "--session", "x", "--state", "sleeping"},
		{"set", "--dir", dir, "--session", "x", "--title", "a", "--no-title"},
		{"set", "--dir", dir, "--session", "x", "extra"},
		{"set", "--dir", dir, "--session", "a\nb"},
		{"set", "--dir", dir, "--session", "x", "--pid", "-1"},
		{"set", "--dir", dir, "--session", "x", "--pid", "4294967296"},
		{"set", "--dir", dir, "--session", "x", "--bogus"},
		{"clear"},
		{"clear", "--dir", dir, "--session", "x", "extra"},
	} {
		code, stderr := pub(t, "", nil, args...)
		if code != 2 || !strings.HasPrefix(stderr, "statuspub: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and a message", args, code, stderr)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("usage errors wrote %v", names)
	}
}

// A refused write prints one line and exits 0, or 1 with --strict; nothing
// is written.
func TestSetRefused(t *testing.T) {
	t.Parallel()
	type setup struct {
		name, detail string
		make         func(t *testing.T) (home, dir string)
		clearChecked bool // clear looks at the status directory only
	}
	setups := []setup{
		{"config home writable by others", "writable by group or others", func(t *testing.T) (string, string) {
			home := filepath.Join(t.TempDir(), "home")
			os.Mkdir(home, 0o777)
			os.Chmod(home, 0o777)
			return home, filepath.Join(home, "agent-status")
		}, false},
		{"status directory readable by others", "accessible by group or others", func(t *testing.T) (string, string) {
			home := filepath.Join(t.TempDir(), "home")
			dir := filepath.Join(home, "agent-status")
			os.MkdirAll(dir, 0o700)
			os.Chmod(dir, 0o755)
			return dir, dir
		}, true},
	}
	for _, su := range setups {
		t.Run(su.name, func(t *testing.T) {
			watch, dir := su.make(t)
			cases := []struct {
				args  []string
				stdin string
			}{
				{[]string{"set", "--dir", dir, "--session", "r", "--state", "working"}, ""},
				{[]string{"claude-hook", "--dir", dir}, `{"session_id":"r","hook_event_name":"Stop"}`},
				{[]string{"codex-notify", "--dir", dir, `{"type":"agent-turn-complete","thread-id":"r"}`}, ""},
			}
			if su.clearChecked {
				cases = append(cases, struct {
					args  []string
					stdin string
				}{[]string{"clear", "--dir", dir, "--session", "r"}, ""})
			}
			for _, tc := range cases {
				for _, strict := range []bool{false, true} {
					args := tc.args
					want := 0
					if strict {
						args = append([]string{args[0], "--strict"}, args[1:]...)
						want = 1
					}
					code, stderr := pub(t, tc.stdin, nil, args...)
					if code != want {
						t.Errorf("%q: exit %d, want %d", args, code, want)
					}
					if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: "+args[0]+": ") ||
						!strings.Contains(stderr, su.detail) {
						t.Errorf("%q: stderr %q, want one line naming the refusal", args, stderr)
					}
				}
			}
			if names := dirNames(t, watch); len(names) != 0 {
				t.Errorf("wrote into a refused directory: %v", names)
			}
		})
	}
}

// Bad hook input is reported in one line, exits 0 (1 with --strict), and
// changes nothing.
func TestHookBadInput(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "b", "--pid", "0", "--state", "working", "--title", "Keep me")
	for _, tc := range []struct {
		args  []string
		stdin string
		msg   string // in stderr, when not ""
	}{
		{[]string{"claude-hook"}, "", "stdin is empty"},
		{[]string{"claude-hook"}, strings.Repeat(" ", 1<<20), "stdin is empty"},
		{[]string{"claude-hook"}, "not json", ""},
		{[]string{"claude-hook"}, `{"hook_event_name":"Stop"}`, ""},
		{[]string{"claude-hook"}, `{"session_id":"a\u0007b","hook_event_name":"Stop"}`, ""},
		// More than claude-hook reads; not blank, so it is the size
		// that refuses it.
		{[]string{"claude-hook"}, "{" + strings.Repeat(" ", 64<<20), "longer than 67108864 bytes"},
		{[]string{"codex-notify", "{"}, "", ""},
		{[]string{"codex-notify", `{"type":"agent-turn-complete"}`}, "", ""},
	} {
		for _, strict := range []bool{false, true} {
			args := append([]string{tc.args[0], "--dir", dir}, tc.args[1:]...)
			want := 0
			if strict {
				args = append([]string{args[0], "--strict"}, args[1:]...)
				want = 1
			}
			code, stderr := pub(t, tc.stdin, nil, args...)
			if code != want || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: "+tc.args[0]+": ") || !strings.Contains(stderr, tc.msg) {
				t.Errorf("%q < %.40q: exit %d, stderr %q", args, tc.stdin, code, stderr)
			}
		}
	}
	rec := mustRecord(t, dir, "b")
	if rec.State != statusfile.Working || rec.Title != "Keep me" {
		t.Errorf("bad input changed the record: %+v", rec)
	}
}

// Unknown events exit 0 and write nothing: not even a record for a new
// session.
func TestHookUnknownEvents(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	mustPub(t, `{"session_id":"u","hook_event_name":"SomethingNew","cwd":"/w"}`, nil, "claude-hook", "--dir", dir)
	mustPub(t, "", nil, "codex-notify", "--dir", dir, `{"type":"something-new","thread-id":"u"}`)
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("unknown events wrote %v", names)
	}
}

// Lock files, like status files, are private whatever the umask.
func TestLockFilesPrivate(t *testing.T) {
	t.Parallel()
	for _, mask := range []string{"000", "022", "077", "277"} {
		t.Run(mask, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			dir := filepath.Join(home, "agent-status")
			agent := sleeper(t)
			cmd := exec.Command("sh", "-c", `umask `+mask+` && exec "$0" "$@"`, bin, "set", "--dir", dir, "--session", "m", "--pid", fmt.Sprint(agent.Process.Pid))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			waitFor(t, "owner started", 10*time.Second, func() bool { return ownerPID(t, dir, "m") > 0 })
			write, owner := lockNames("m")
			for _, name := range []string{write, owner, statusfile.FileName("m")} {
				fi, err := os.Lstat(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode() != 0o600 {
					t.Errorf("%s: mode %v, want -rw-------", name, fi.Mode())
				}
			}
			for _, d := range []string{home, dir} {
				if fi, _ := os.Lstat(d); fi.Mode().Perm() != 0o700 {
					t.Errorf("%s: mode %v", d, fi.Mode())
				}
			}
			mustPub(t, "", nil, "clear", "--dir", dir, "--session", "m")
			waitFor(t, "owner gone", 10*time.Second, func() bool { return len(dirNames(t, dir)) == 0 })
		})
	}
}

// clear with no owner, no record or no directory is fine, and creates
// nothing.
func TestClearWithoutOwner(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, "agent-status")
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "c")
	if _, err := os.Lstat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("clear created the config home: %v", err)
	}
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "c", "--pid", "0")
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "c")
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "c")
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left: %v", names)
	}
}
