//go:build unix

package statuspub_test

import (
	"bufio"
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

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

var bin string

func TestMain(m *testing.M) {
	if os.Getenv(fakeAgentEnv) == "1" {
		// The commands the fake agent runs are this binary too: they
		// must not be fake agents.
		os.Unsetenv(fakeAgentEnv)
		os.Exit(fakeAgent(os.Stdin, os.Stdout))
	}
	if os.Getenv(hookHelperEnv) == "1" {
		os.Unsetenv(hookHelperEnv)
		os.Exit(hookHelper(os.Args[1:]))
	}
	testbin.Main(m, map[string]func() int{"statuspub": statuspub.Main, "statusls": statusls.Main}, func(dir string) {
		bin = filepath.Join(dir, "statuspub")
		testmain.MoreParallel(8) // most tests wait for the commands they start
	})
}

// server is a running `statuspub serve`.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *testbin.Buffer
	path   string
}

func startServe(t *testing.T, home string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--config-home", home, "--session", "sess-1", "--agent", "tester"}, args...)...)
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	stdin, stdout := testbin.StartPiped(t, cmd)
	s := &server{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 100), stderr: stderr,
		path: filepath.Join(home, "agent-status", statusfile.FileName("sess-1"))}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	return s
}

// send writes a line and returns the answer.
func (s *server) send(line string) map[string]any {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	select {
	case ans, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("no answer to %s: stdout closed; stderr: %s", line, s.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ans), &m); err != nil {
			s.t.Fatalf("answer %q is not JSON: %v", ans, err)
		}
		return m
	case <-time.After(10 * time.Second):
		s.t.Fatalf("no answer to %s within 10 s", line)
		return nil
	}
}

func (s *server) wait() int {
	s.t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			s.t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		s.t.Fatal("statuspub did not exit within 10 s")
		return -1
	}
}

func (s *server) record() statusfile.Status {
	s.t.Helper()
	data, err := os.ReadFile(s.path)
	if err != nil {
		s.t.Fatalf("%v; stderr: %s", err, s.stderr)
	}
	rec, err := statusfile.Decode(data)
	if err != nil {
		s.t.Fatal(err)
	}
	return rec
}

// waitFile polls until the status file exists (publishing at start is
// asynchronous to the test).
func (s *server) waitFile() {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Lstat(s.path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("no status file within 10 s; stderr: %s", s.stderr)
}

func isOK(m map[string]any) bool { return m["ok"] == true }

func TestServeLineProtocol(t *testing.T) {
	t.Parallel()
	for _, mode := range [][]string{nil, {"--heartbeat-owner"}} {
		t.Run(strings.Join(append([]string{"serve"}, mode...), " "), func(t *testing.T) { testServeLineProtocol(t, mode...) })
	}
}

func testServeLineProtocol(t *testing.T, args ...string) {
	home := filepath.Join(t.TempDir(), "home")
	s := startServe(t, home, args...)
	s.waitFile()
	rec := s.record()
	if rec.State != statusfile.Idle || rec.Title != "" || rec.Agent != "tester" || rec.Session != "sess-1" {
		t.Errorf("initial record %+v", rec)
	}
	if rec.PID != os.Getpid() {
		t.Errorf("pid %d, want the parent's %d", rec.PID, os.Getpid())
	}
	steps := []struct {
		line      string
		ok        bool
		state     statusfile.State
		title     string
		errSubstr string
	}{
		{`{"state":"working","title":"Fix the tests"}`, true, statusfile.Working, "Fix the tests", ""},
		{`{"state":"blocked"}`, true, statusfile.Blocked, "Fix the tests", ""},
		{`{"title":"\u001b[31mred\u001b[0m \u202e title"}`, true, statusfile.Blocked, "red title", ""},
		{`{"title":null}`, true, statusfile.Blocked, "", ""},
		{`{"title":"again","extra":[1,2]}`, true, statusfile.Blocked, "again", ""},
		{`not json`, false, statusfile.Blocked, "again", "JSON object"},
		{`[1]`, false, statusfile.Blocked, "again", "JSON object"},
		{`{"state":"sleeping","title":"no"}`, false, statusfile.Blocked, "again", "unknown state"},
		{`{"state":3}`, false, statusfile.Blocked, "again", "state"},
		{`{"title":5}`, false, statusfile.Blocked, "again", "title"},
		{`{}`, true, statusfile.Blocked, "again", ""},
		{`{"state":"idle"}`, true, statusfile.Idle, "again", ""},
		{`{"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build"}}`, true, statusfile.Blocked, "again", ""},
		{`{"waitingFor":{"kind":"permission","tool":"Bash"},"state":"idle"}`, false, statusfile.Blocked, "again", "blocked"},
		{`{"waitingFor":{"kind":"permision"}}`, false, statusfile.Blocked, "again", "waitingFor"},
		{`{"waitingFor":"permission"}`, false, statusfile.Blocked, "again", "waitingFor"},
		{`{"waitingFor":{"kind":"question","detail":5}}`, false, statusfile.Blocked, "again", "waitingFor"},
		{`{"ended":{"reason":"cancelled","detail":null},"title":"done"}`, true, statusfile.Idle, "done", ""},
		{`{"ended":{"reason":"done"},"waitingFor":{"kind":"question"}}`, false, statusfile.Idle, "done", "exclude"},
		{`{"waitingFor":null,"state":"working"}`, true, statusfile.Working, "done", ""},
	}
	whys := map[string]string{
		`{"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build"}}`: "Bash: rm -rf build",
		`{"ended":{"reason":"cancelled","detail":null},"title":"done"}`:              "cancelled",
	}
	for _, st := range steps {
		ans := s.send(st.line)
		if isOK(ans) != st.ok {
			t.Fatalf("%s: answer %v", st.line, ans)
		}
		if !st.ok && !strings.Contains(fmt.Sprint(ans["error"]), st.errSubstr) {
			t.Errorf("%s: error %q does not mention %q", st.line, ans["error"], st.errSubstr)
		}
		// The answer comes once the change is on disk.
		rec := s.record()
		if rec.State != st.state || rec.Title != st.title {
			t.Errorf("after %s: on disk %s %q, want %s %q", st.line, rec.State, rec.Title, st.state, st.title)
		}
		if why, ok := whys[st.line]; ok && rec.Why() != why {
			t.Errorf("after %s: why %q, want %q", st.line, rec.Why(), why)
		}
	}
	s.stdin.Close()
	if code := s.wait(); code != 0 {
		t.Errorf("exit %d on EOF; stderr: %s", code, s.stderr)
	}
	if _, err := os.Lstat(s.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file left after EOF: %v", err)
	}
}

func TestServeSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServe(t, filepath.Join(t.TempDir(), "home"), "--state", "working")
			s.waitFile()
			if ans := s.send(`{"title":"x"}`); !isOK(ans) {
				t.Fatal(ans)
			}
			s.cmd.Process.Signal(sig)
			if code := s.wait(); code != 0 {
				t.Errorf("exit %d on %v", code, sig)
			}
			if _, err := os.Lstat(s.path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("file left after %v: %v", sig, err)
			}
		})
	}
}

func TestServeRefusedKeepsRunning(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	os.Mkdir(home, 0o777)
	os.Chmod(home, 0o777)
	s := startServe(t, home)
	for i := 0; i < 3; i++ {
		ans := s.send(`{"state":"working"}`)
		if isOK(ans) || !strings.Contains(fmt.Sprint(ans["error"]), "writable by group or others") {
			t.Fatalf("answer %v, want a refusal", ans)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("wrote into a refused config home: %v", entries)
	}
	if !strings.Contains(s.stderr.String(), "statuspub: ") {
		t.Errorf("refusal not reported on stderr: %q", s.stderr)
	}
	s.stdin.Close()
	if code := s.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestServeUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"serve"}, {"serve", "--session", "x", "--state", "nope"}, {"bogus"}, {"serve", "--session", "a\nb"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit 2", args, err)
		}
		if !strings.HasPrefix(string(out), "statuspub: ") {
			t.Errorf("%q: message %q", args, out)
		}
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(home, "agent-status", statusfile.FileName("job"))
	// The command checks its own status file: working, with its own pid.
	script := `for i in $(seq 200); do
	  if [ -f "$1" ] && grep -q '"state":"working"' "$1" && grep -q "\"pid\":$$," "$1"; then exit 3; fi
	  sleep 0.05
	done
	exit 4`
	cmd := exec.Command(bin, "run", "--config-home", home, "--session", "job", "--title", "nightly", "--", "sh", "-c", script, "sh", path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3 (the command saw its status); output: %s", err, out)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file left after the command exited: %v", err)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, "agent-status")
	cmd := exec.Command(bin, "run", "--config-home", home, "--session", "sleeper", "--", "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if entries, _ := os.ReadDir(dir); len(entries) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no status file within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %v, want %d (sleep killed by the forwarded SIGTERM)", err, 128+int(syscall.SIGTERM))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

func TestRunNotFound(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(bin, "run", "--config-home", t.TempDir(), "--", "/nonexistent/cmd")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 {
		t.Errorf("exit %v, want 127", err)
	}
}

// The program at the other end (OpenCode's plugin host, an editor) may
// exit with lines not yet answered. serve must still read them, stop at
// the end of input and remove the record: an answer to a closed pipe is
// an error it ignores, not a SIGPIPE that kills it before the removal.
func TestServeAnswersIntoAClosedPipe(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	cmd := exec.Command(bin, "serve", "--config-home", home, "--session", "sess-1", "--agent", "tester")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close() // nobody reads the answers any more
	s := &server{t: t, cmd: cmd, stdin: stdin, stderr: stderr, path: filepath.Join(home, "agent-status", statusfile.FileName("sess-1"))}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	s.waitFile()
	io.WriteString(stdin, `{"state":"working"}`+"\n"+`{"title":"last words"}`+"\n")
	stdin.Close()
	if code := s.wait(); code != 0 {
		t.Errorf("exit %d (%v); stderr: %s", code, cmd.ProcessState, stderr)
	}
	if _, err := os.Lstat(s.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("record left behind: %v", err)
	}
}
