package statuspub_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// ownerProcs lists the live (not zombie) `statuspub owner` processes of the
// status directory dir.
func ownerProcs(t *testing.T, dir string) []int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, p := range procs {
		cmdline, err := os.ReadFile(p + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if len(argv) < 4 || argv[0] != bin || argv[1] != "owner" || argv[3] != dir {
			continue
		}
		stat, err := os.ReadFile(p + "/stat")
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		pids = append(pids, pid)
	}
	return pids
}

// waitOneOwner waits until exactly one owner process runs for dir and holds
// the owner lock of session, and returns its pid.
func waitOneOwner(t *testing.T, dir, session string) int {
	t.Helper()
	var pid int
	waitFor(t, "exactly one owner holding the lock", 10*time.Second, func() bool {
		procs := ownerProcs(t, dir)
		pid = ownerPID(t, dir, session)
		return len(procs) == 1 && procs[0] == pid
	})
	return pid
}

// waitNoOwner waits until no owner runs for dir and its lock files are gone.
func waitNoOwner(t *testing.T, dir string) {
	t.Helper()
	waitFor(t, "owner exited and lock files removed", 10*time.Second, func() bool {
		return len(ownerProcs(t, dir)) == 0 && len(dirNames(t, dir)) == 0
	})
}

// waitBeat waits until the heartbeat has rewritten the record after at.
func waitBeat(t *testing.T, dir, session string, at time.Time) statusfile.Status {
	t.Helper()
	var rec statusfile.Status
	waitFor(t, "a heartbeat", 10*time.Second, func() bool {
		var ok bool
		rec, ok = record(t, dir, session)
		if !ok {
			t.Fatal("record gone while waiting for a heartbeat")
		}
		return rec.UpdatedAt.After(at)
	})
	return rec
}

func hbEnv(d time.Duration) []string { return []string{"STATUSPUB_HEARTBEAT=" + d.String()} }

func TestOwnerHeartbeatsAndFollowsTheAgent(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	agent := sleeper(t)
	pid := fmt.Sprint(agent.Process.Pid)
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "o", "--pid", pid, "--state", "working", "--title", "Build")
	owner := waitOneOwner(t, dir, "o")
	if owner == os.Getpid() || owner == agent.Process.Pid {
		t.Fatalf("owner pid %d", owner)
	}
	// The owner is detached: a session leader of its own.
	if sid, _ := syscall.Getpgid(owner); sid != owner {
		t.Errorf("owner's process group %d, want its own %d", sid, owner)
	}
	rec := mustRecord(t, dir, "o")
	for range 3 {
		next := waitBeat(t, dir, "o", rec.UpdatedAt)
		if next.State != statusfile.Working || next.Title != "Build" || next.PID != agent.Process.Pid {
			t.Fatalf("heartbeat changed the record: %+v", next)
		}
		if gap := next.UpdatedAt.Sub(rec.UpdatedAt); gap > statusfile.HeartbeatInterval {
			t.Errorf("heartbeat gap %v", gap)
		}
		rec = next
	}
	// A second set while the owner runs starts no other owner.
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "o", "--pid", pid, "--state", "blocked")
	if got := waitOneOwner(t, dir, "o"); got != owner {
		t.Errorf("owner %d replaced by %d", owner, got)
	}

	agent.Process.Kill()
	agent.Wait()
	killed := time.Now()
	waitRecordGone(t, "record removed after the agent died", 10*time.Second, dir, "o")
	// How soon is measured, not asserted: the wait above is the test.
	t.Logf("record removed %v after the agent died (heartbeat %v)", time.Since(killed), hb)
	waitNoOwner(t, dir)
}

// clear removes the record at once and the owner exits without waiting for
// its next heartbeat (9 s by default): clear nudges it.
func TestClearStopsTheOwner(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	agent := sleeper(t)
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "c", "--pid", fmt.Sprint(agent.Process.Pid))
	waitOneOwner(t, dir, "c")
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "c")
	if _, ok := record(t, dir, "c"); ok {
		t.Fatal("record still there after clear returned")
	}
	start := time.Now()
	waitNoOwner(t, dir)
	if took := time.Since(start); took >= statusfile.DefaultHeartbeat {
		t.Errorf("owner took %v to exit after clear, as long as a heartbeat", took)
	}
}

// A set right after a clear must not be left without an owner, whichever
// way the owner's exit and the set interleave.
func TestClearThenSet(t *testing.T) {
	testmain.SkipShort(t, "waits for three heartbeats after forty sets and clears")
	t.Parallel()
	const hb = 100 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	pid := fmt.Sprint(sleeper(t).Process.Pid)
	for i := range 20 {
		mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "cs", "--pid", pid, "--title", fmt.Sprint("round ", i))
		mustPub(t, "", hbEnv(hb), "clear", "--dir", dir, "--session", "cs")
	}
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "cs", "--pid", pid, "--title", "last")
	waitOneOwner(t, dir, "cs")
	rec := mustRecord(t, dir, "cs")
	for range 3 {
		rec = waitBeat(t, dir, "cs", rec.UpdatedAt)
		if rec.Title != "last" {
			t.Fatalf("record %+v", rec)
		}
	}
	mustPub(t, "", nil, "clear", "--dir", dir, "--session", "cs")
	waitNoOwner(t, dir)
}

// 50 sets at once for one session leave one owner, and a set that runs
// after them all is what is on disk. Heartbeats (every 20 ms) run through
// it all, and a reader never sees a torn or invalid file.
func TestConcurrentSets(t *testing.T) {
	t.Parallel()
	const hb = 20 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	agent := sleeper(t)
	pid := fmt.Sprint(agent.Process.Pid)

	stop := make(chan struct{})
	readerDone := make(chan string)
	go func() {
		var bad string
		path := filepath.Join(dir, statusfile.FileName("race"))
		for {
			select {
			case <-stop:
				readerDone <- bad
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				if _, derr := statusfile.Decode(data); derr != nil && bad == "" {
					bad = fmt.Sprintf("%v: %q", derr, data)
				}
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "set", "--dir", dir, "--session", "race", "--pid", pid,
				"--state", "working", "--title", fmt.Sprint("set ", i))
			cmd.Env = append(os.Environ(), hbEnv(hb)...)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
				errs <- fmt.Sprintf("set %d: %v %q", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "race", "--pid", pid, "--state", "blocked", "--title", "final")
	rec := mustRecord(t, dir, "race")
	if rec.State != statusfile.Blocked || rec.Title != "final" {
		t.Fatalf("on disk after the last set: %+v", rec)
	}
	waitOneOwner(t, dir, "race")
	for range 5 {
		rec = waitBeat(t, dir, "race", rec.UpdatedAt)
		if rec.State != statusfile.Blocked || rec.Title != "final" {
			t.Fatalf("a heartbeat put back an older record: %+v", rec)
		}
	}
	close(stop)
	if bad := <-readerDone; bad != "" {
		t.Errorf("a reader saw an invalid file: %s", bad)
	}
	agent.Process.Kill()
	agent.Wait()
	waitNoOwner(t, dir)
}

// A set that arrives while a heartbeat holds the write lock waits for it,
// so the heartbeat's write (of the record it read before the set) cannot
// undo the set. The test plays the heartbeat by the lock-file protocol,
// holding the lock until the set is seen waiting in /proc/locks.
func TestSetWaitsForHeartbeat(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "w", "--pid", "0", "--state", "working", "--title", "old")

	write, _ := lockNames("w")
	lock := statuspub.FlockFile(t, filepath.Join(dir, write))
	defer lock.Close()
	old := mustRecord(t, dir, "w") // the heartbeat's read

	cmd := exec.Command(bin, "set", "--dir", dir, "--session", "w", "--pid", "0", "--state", "blocked", "--title", "new")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var st syscall.Stat_t
	syscall.Fstat(int(lock.Fd()), &st)
	waitFor(t, "set waiting for the write lock", 10*time.Second, func() bool {
		locks, _ := os.ReadFile("/proc/locks")
		for _, line := range strings.Split(string(locks), "\n") {
			if strings.Contains(line, "->") && strings.Contains(line, " "+strconv.Itoa(cmd.Process.Pid)+" ") &&
				strings.Contains(line, ":"+strconv.FormatUint(st.Ino, 10)+" ") {
				return true
			}
		}
		return false
	})
	if rec := mustRecord(t, dir, "w"); rec.State != old.State || rec.Title != old.Title {
		t.Fatalf("set wrote while the lock was held: %+v", rec)
	}
	old.UpdatedAt = time.Time{} // the heartbeat's write: a fresh updatedAt, nothing else
	if _, err := statusfile.WriteFile(dir, old); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	select {
	case err := <-done:
		if err != nil || out.Len() != 0 {
			t.Fatalf("set: %v %q", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("set still waiting after the lock was released")
	}
	if rec := mustRecord(t, dir, "w"); rec.State != statusfile.Blocked || rec.Title != "new" {
		t.Errorf("on disk %+v, want the set's record", rec)
	}
}

// After every set, the next heartbeat of the real owner keeps what that set
// wrote: the owner re-reads the record under the lock instead of writing a
// copy it kept.
func TestHeartbeatKeepsEverySet(t *testing.T) {
	t.Parallel()
	const hb = 15 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	agent := sleeper(t)
	pid := fmt.Sprint(agent.Process.Pid)
	states := []string{"working", "blocked", "idle"}
	for i := range 15 {
		state, title := states[i%3], fmt.Sprint("step ", i)
		mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "h", "--pid", pid, "--state", state, "--title", title)
		rec := mustRecord(t, dir, "h")
		if string(rec.State) != state || rec.Title != title {
			t.Fatalf("step %d: on disk %+v", i, rec)
		}
		rec = waitBeat(t, dir, "h", rec.UpdatedAt)
		if string(rec.State) != state || rec.Title != title {
			t.Fatalf("step %d: the heartbeat wrote %+v, want %s %q", i, rec, state, title)
		}
	}
	agent.Process.Kill()
	agent.Wait()
	waitNoOwner(t, dir)
}

// A set that binds the record to another process (the agent restarted
// under the same session) moves the owner to that process.
func TestOwnerFollowsANewAgent(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	first, second := sleeper(t), sleeper(t)
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "f", "--pid", fmt.Sprint(first.Process.Pid))
	owner := waitOneOwner(t, dir, "f")
	mustPub(t, "", hbEnv(hb), "set", "--dir", dir, "--session", "f", "--pid", fmt.Sprint(second.Process.Pid), "--title", "second")
	first.Process.Kill()
	first.Wait()
	rec := mustRecord(t, dir, "f")
	for range 3 {
		rec = waitBeat(t, dir, "f", rec.UpdatedAt)
	}
	if rec.PID != second.Process.Pid || rec.Title != "second" {
		t.Errorf("record %+v", rec)
	}
	if got := waitOneOwner(t, dir, "f"); got != owner {
		t.Errorf("owner %d replaced by %d", owner, got)
	}
	second.Process.Kill()
	second.Wait()
	waitNoOwner(t, dir)
}

// A set for an explicit --pid that no process has writes nothing and
// says so: exit 0, or 1 with --strict (never 2, a usage error).
func TestSetDeadPID(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	agent := exec.Command("true")
	if err := agent.Run(); err != nil {
		t.Fatal(err)
	}
	pid := fmt.Sprint(agent.Process.Pid)
	for _, tt := range []struct {
		strict bool
		code   int
	}{{false, 0}, {true, 1}} {
		args := []string{"set", "--dir", dir, "--session", "d", "--pid", pid}
		if tt.strict {
			args = append(args, "--strict")
		}
		code, stderr := pub(t, "", nil, args...)
		if code != tt.code || !strings.Contains(stderr, "no such process") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("strict %v: exit %d, stderr %q", tt.strict, code, stderr)
		}
		if _, ok := record(t, dir, "d"); ok {
			t.Errorf("strict %v: record written for a dead pid", tt.strict)
		}
	}
}

// Without --pid, the agent is the first ancestor that is not a shell,
// whether the hook's shell stays (dash, or any shell with more to do) or
// execs the hook (bash with one command).
func TestDefaultAgentPID(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	a := startAgent(t)
	set := bin + " set --dir " + dir + " --session p"
	tests := []struct {
		name  string
		shell []string
		cmd   string
	}{
		{"sh -c", []string{"sh", "-c"}, set},
		{"sh -c, more to do", []string{"sh", "-c"}, set + "; true"},
		{"sh -c exec", []string{"sh", "-c"}, "exec " + set},
		{"bash -c", []string{"bash", "-c"}, set},
		{"bash -c, more to do", []string{"bash", "-c"}, set + "; true"},
		{"sh under bash", []string{"bash", "-c"}, "sh -c '" + set + "; true'; true"},
		{"no shell (exec form)", []string{bin, "set", "--dir", dir, "--session"}, "p"},
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		tests = append(tests, struct {
			name  string
			shell []string
			cmd   string
		}{"zsh -c", []string{"zsh", "-c"}, set + "; true"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rep := a.hook(tt.shell, tt.cmd, ""); rep.Code != 0 || rep.Stderr != "" {
				t.Fatalf("hook: %+v", rep)
			}
			if rec := mustRecord(t, dir, "p"); rec.PID != a.pid {
				t.Errorf("pid %d, want the agent's %d", rec.PID, a.pid)
			}
		})
	}
	a.kill()
	waitNoOwner(t, dir)
}

const claudeSession = "4f0c9a3e-5b7d-4e21-9d6a-1c2b3a4d5e6f"

// claudeStep is one hook invocation and the record it must leave.
type claudeStep struct {
	file  string
	state statusfile.State
	title string
}

// A realistic Claude Code session, one hook at a time, under a stand-in
// agent that runs each hook as `sh -c`: the record after every step, the
// heartbeat, then the agent killed and the record gone within one heartbeat.
func TestClaudeSessionEndToEnd(t *testing.T) {
	testmain.SkipShort(t, "waits for the owner's heartbeats and its liveness check")
	t.Parallel()
	const hb = 500 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "home", "agent-status")
	a := startAgent(t, hbEnv(hb)...)
	steps := []claudeStep{
		{"session-start.json", statusfile.Idle, ""},
		{"user-prompt-submit.json", statusfile.Working, ""},
		{"pre-tool-use-todowrite.json", statusfile.Working, "Add the hook publisher"},
		{"post-tool-use-todowrite.json", statusfile.Working, "Add the hook publisher"},
		{"pre-tool-use-bash.json", statusfile.Working, "Add the hook publisher"},
		{"permission-request-bash.json", statusfile.Blocked, "Add the hook publisher"},
		{"notification-permission.json", statusfile.Blocked, "Add the hook publisher"},
		{"post-tool-use-bash.json", statusfile.Working, "Add the hook publisher"},
		{"subagent-stop.json", statusfile.Working, "Add the hook publisher"}, // ignored
		{"post-tool-use-todowrite-next.json", statusfile.Working, "Write the tests"},
		{"post-tool-use-failure.json", statusfile.Working, "Write the tests"},
		{"pre-compact.json", statusfile.Working, "Write the tests"}, // ignored
		{"session-start-compact.json", statusfile.Working, "Write the tests"},
		{"notification-elicitation.json", statusfile.Blocked, "Write the tests"},
		{"user-prompt-submit.json", statusfile.Working, "Write the tests"},
		{"post-tool-use-todowrite-done.json", statusfile.Working, ""},
		{"stop.json", statusfile.Idle, ""},
		{"notification-idle.json", statusfile.Idle, ""},
		{"notification-auth-success.json", statusfile.Idle, ""}, // ignored
	}
	var owner int
	for i, st := range steps {
		rep := a.claudeHook(dir, st.file)
		if rep.Code != 0 || rep.Stderr != "" || rep.Stdout != "" {
			t.Fatalf("step %d %s: %+v", i, st.file, rep)
		}
		rec := mustRecord(t, dir, claudeSession)
		if rec.State != st.state || rec.Title != st.title || rec.Agent != "claude-code" ||
			rec.PID != a.pid || rec.Cwd != "/home/user/my-project" || rec.Session != claudeSession {
			t.Fatalf("step %d %s: %+v, want %s %q, agent pid %d", i, st.file, rec, st.state, st.title, a.pid)
		}
		// What every reader sees: statusls --json lists the session, fresh.
		var title any
		if st.title != "" {
			title = st.title
		}
		want := map[string]any{"session": claudeSession, "state": string(st.state), "title": title, "agent": "claude-code",
			"pid": float64(a.pid), "cwd": "/home/user/my-project", "fresh": true, "alive": true}
		if got := statuslsJSON(t, dir); len(got) != 1 || !sameFields(got[0], want) {
			t.Fatalf("step %d %s: statusls --json shows %v, want one session with %v", i, st.file, got, want)
		}
		if i == 0 {
			owner = waitOneOwner(t, dir, claudeSession)
		}
	}
	if got := waitOneOwner(t, dir, claudeSession); got != owner {
		t.Errorf("owner %d replaced by %d during the session", owner, got)
	}
	rec := mustRecord(t, dir, claudeSession)
	rec = waitBeat(t, dir, claudeSession, rec.UpdatedAt)
	if rec.State != statusfile.Idle || rec.Title != "" {
		t.Errorf("after a heartbeat: %+v", rec)
	}

	a.kill()
	killed := time.Now()
	waitRecordGone(t, "record removed after the agent died", 10*time.Second, dir, claudeSession)
	// How soon is measured, not asserted: the wait above is the test.
	t.Logf("record removed %v after the agent died (heartbeat %v)", time.Since(killed), hb)
	waitNoOwner(t, dir)
}

// The same with the task tools of newer Claude Code versions: the task list
// lives in a private dot-file between hooks, and goes with the record.
func TestClaudeTaskToolsEndToEnd(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	a := startAgent(t)
	steps := []claudeStep{
		{"session-start.json", statusfile.Idle, ""},
		{"user-prompt-submit.json", statusfile.Working, ""},
		{"post-tool-use-taskcreate.json", statusfile.Working, ""},
		{"post-tool-use-taskcreate-2.json", statusfile.Working, ""},
		{"post-tool-use-taskupdate-start-1.json", statusfile.Working, "Add the hook publisher"},
		{"pre-tool-use-bash.json", statusfile.Working, "Add the hook publisher"},
		{"permission-request-bash.json", statusfile.Blocked, "Add the hook publisher"},
		{"post-tool-use-bash.json", statusfile.Working, "Add the hook publisher"},
		{"post-tool-use-taskupdate-done-1.json", statusfile.Working, ""},
		{"task-created.json", statusfile.Working, ""},
		{"post-tool-use-taskupdate-start-2.json", statusfile.Working, "Write the tests"},
		{"task-completed.json", statusfile.Working, ""},
		{"stop.json", statusfile.Idle, ""},
	}
	_, owner := lockNames(claudeSession)
	tasks := strings.TrimSuffix(owner, ".owner") + ".tasks"
	for i, st := range steps {
		if rep := a.claudeHook(dir, st.file); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("step %d %s: %+v", i, st.file, rep)
		}
		rec := mustRecord(t, dir, claudeSession)
		if rec.State != st.state || rec.Title != st.title {
			t.Fatalf("step %d %s: %s %q, want %s %q", i, st.file, rec.State, rec.Title, st.state, st.title)
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, tasks))
	if err != nil || fi.Mode() != 0o600 {
		t.Errorf("task list: %v %v", fi, err)
	}
	if rep := a.claudeHook(dir, "session-end.json"); rep.Code != 0 {
		t.Fatalf("SessionEnd: %+v", rep)
	}
	if _, err := os.Lstat(filepath.Join(dir, tasks)); err == nil {
		t.Error("task list left after SessionEnd")
	}
	waitNoOwner(t, dir)
}

// SessionEnd removes the record before the hook returns, and the owner exits.
func TestClaudeSessionEnd(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	a := startAgent(t)
	for _, file := range []string{"session-start.json", "user-prompt-submit.json", "session-end.json"} {
		if rep := a.claudeHook(dir, file); rep.Code != 0 || rep.Stderr != "" {
			t.Fatalf("%s: %+v", file, rep)
		}
		if file == "user-prompt-submit.json" {
			waitOneOwner(t, dir, claudeSession)
		}
	}
	if _, ok := record(t, dir, claudeSession); ok {
		t.Fatal("record still there after SessionEnd returned")
	}
	waitNoOwner(t, dir)
}

// Codex runs its notify program directly, the JSON as its last argument.
func TestCodexNotify(t *testing.T) {
	t.Parallel()
	const hb = 500 * time.Millisecond
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	a := startAgent(t, hbEnv(hb)...)
	input := fixture(t, "testdata", "codex", "turn-complete.json")
	if rep := a.hook([]string{bin, "codex-notify", "--dir", dir}, input, ""); rep.Code != 0 || rep.Stderr != "" {
		t.Fatalf("%+v", rep)
	}
	const thread = "b5f6c1c2-1111-2222-3333-444455556666"
	rec := mustRecord(t, dir, thread)
	if rec.State != statusfile.Idle || rec.Agent != "codex" || rec.PID != a.pid || rec.Cwd != "/Users/alice/projects/example" || rec.Title != "" {
		t.Errorf("%+v", rec)
	}
	waitOneOwner(t, dir, thread)
	a.kill()
	waitNoOwner(t, dir)
}

// The owner exits when its status directory is removed under it, with the
// agent alive or not: there is nothing left to keep fresh, and an owner
// that retried forever would outlive everything (as it did after test
// runs whose temporary directories were removed first).
func TestOwnerExitsWhenTheDirectoryGoes(t *testing.T) {
	t.Parallel()
	for _, agentDies := range []bool{false, true} {
		t.Run(fmt.Sprint("agent dies ", agentDies), func(t *testing.T) {
			dir := filepath.Join(statuspub.TempDir(t), "agent-status")
			agent := sleeper(t)
			mustPub(t, "", []string{"STATUSPUB_HEARTBEAT=100ms"}, "set", "--dir", dir, "--session", "gone", "--pid", fmt.Sprint(agent.Process.Pid))
			owner := waitOneOwner(t, dir, "gone")
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if agentDies {
				agent.Process.Kill()
				agent.Wait()
			}
			waitFor(t, "the owner exits", 10*time.Second, func() bool {
				stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", owner))
				return err != nil || bytes.Contains(stat, []byte(") Z "))
			})
		})
	}
}

// statuslsJSON runs the toolkit's statusls --json on dir.
func statuslsJSON(t *testing.T, dir string) []map[string]any {
	t.Helper()
	out, err := exec.Command(filepath.Join(filepath.Dir(bin), "statusls"), "--json", "--dir", dir).Output()
	if err != nil {
		t.Fatalf("statusls --json: %v", err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("statusls --json printed %q: %v", out, err)
	}
	return got
}

// sameFields reports whether got has every key of want with its value.
func sameFields(got, want map[string]any) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// An owner whose agent dies exits even when the record it would remove
// cannot be read (here: garbage in its place).
func TestOwnerExitsWhenTheRecordIsUnreadable(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	agent := sleeper(t)
	mustPub(t, "", hbEnv(100*time.Millisecond), "set", "--dir", dir, "--session", "u", "--pid", fmt.Sprint(agent.Process.Pid))
	owner := waitOneOwner(t, dir, "u")
	if err := os.WriteFile(filepath.Join(dir, statusfile.FileName("u")), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	agent.Process.Kill()
	agent.Wait()
	waitFor(t, "the owner exits", 10*time.Second, func() bool { return !processRuns(owner) })
}

// A set that says the session has no process (--pid 0) unbinds the owner:
// it stops refreshing the record, which goes stale, and exits.
func TestOwnerLeavesARecordWithoutPID(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	agent := sleeper(t)
	mustPub(t, "", hbEnv(100*time.Millisecond), "set", "--dir", dir, "--session", "z", "--pid", fmt.Sprint(agent.Process.Pid))
	owner := waitOneOwner(t, dir, "z")
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "z", "--pid", "0")
	waitFor(t, "the owner exits", 10*time.Second, func() bool { return !processRuns(owner) })
	if rec := mustRecord(t, dir, "z"); rec.PID != 0 {
		t.Errorf("record %+v, want pid 0 kept", rec)
	}
}

// processRuns reports whether pid is a process that has not exited.
func processRuns(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !bytes.Contains(stat, []byte(") Z "))
}

// An owner whose status directory was renamed away exits without writing
// or removing anything by the old path, where another directory may be
// now (its locks and reads are bound to the directory it opened).
func TestOwnerLeavesARenamedDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "agent-status")
	agent := sleeper(t)
	mustPub(t, "", hbEnv(100*time.Millisecond), "set", "--dir", dir, "--session", "r", "--pid", fmt.Sprint(agent.Process.Pid))
	owner := waitOneOwner(t, dir, "r")
	moved := filepath.Join(base, "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the owner exits", 10*time.Second, func() bool { return !processRuns(owner) })
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old path was written again: %v", err)
	}
	if _, ok := record(t, moved, "r"); !ok {
		t.Error("the record in the renamed directory was removed")
	}
}

// A set for a session without a process starts no owner and leaves no
// lock file behind: only the record.
func TestSetWithoutOwnerLeavesNoLockFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(statuspub.TempDir(t), "agent-status")
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "n", "--pid", "0", "--state", "working")
	if names := dirNames(t, dir); len(names) != 1 || names[0] != statusfile.FileName("n") {
		t.Errorf("status directory holds %v, want only the record", names)
	}
}

// An owner stopped by a signal removes the record it kept (as when the
// machine shuts down with the agent still running).
func TestOwnerRemovesTheRecordOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := filepath.Join(statuspub.TempDir(t), "agent-status")
			agent := sleeper(t)
			mustPub(t, "", nil, "set", "--dir", dir, "--session", "s", "--pid", fmt.Sprint(agent.Process.Pid))
			owner := waitOneOwner(t, dir, "s")
			if err := syscall.Kill(owner, sig); err != nil {
				t.Fatal(err)
			}
			waitNoOwner(t, dir)
			if _, ok := record(t, dir, "s"); ok {
				t.Errorf("record left after %v", sig)
			}
		})
	}
}
