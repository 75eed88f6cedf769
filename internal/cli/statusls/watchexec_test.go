//go:build unix

package statusls

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/statusfile"
)

// lines reads a file of lines; none when it does not exist yet.
func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestWatchExec: the command runs once each time a session enters an --on
// state (the snapshot counts), not on heartbeats, title changes or states
// it is not given, with the sanitized record in its environment and its
// event on stdin.
func TestWatchExec(t *testing.T) {
	dir := privateDir(t)
	work := t.TempDir()
	clock := clocktest.New(now)
	pre := statusfile.Status{Agent: "pi", Session: "pre", Cwd: "/work/pre", State: statusfile.Blocked, PID: 4242, Title: "Already blocked", UpdatedAt: now}
	put(t, dir, pre)
	s := statusfile.Status{Agent: "claude-code", Session: "s", Cwd: "/work/s", State: statusfile.Working, UpdatedAt: now}
	put(t, dir, s)
	// stdin first: the test waits for each line of runs, and commands run
	// concurrently, so a command appending to stdin after runs could be
	// overtaken by the next one.
	cmd := `cd "$OUT" && cat >>stdin && printf '%s|%s|%s|%s|%s|%s\n' "$STATUS_SESSION" "$STATUS_AGENT" "$STATUS_STATE" "$STATUS_TITLE" "$STATUS_CWD" "$STATUS_PID" >>runs`
	r := start(t, clock, cmdOpts{environ: []string{"OUT=" + work}},
		"watch", "--json", "--heartbeats", "--dir", dir, "--on", "blocked,other:review", "--exec", cmd)
	runs := filepath.Join(work, "runs")
	want := []string{"pre|pi|blocked|Already blocked|/work/pre|4242"}
	// expect waits for the runs so far, one more when more is set.
	expect := func(more string) {
		t.Helper()
		if more != "" {
			want = append(want, more)
		}
		poll(t, fmt.Sprintf("%d runs", len(want)), func() bool { return len(lines(t, runs)) >= len(want) }, func() string {
			return strings.Join(lines(t, runs), "\n") + "\n" + r.stderr.String()
		})
		if got := lines(t, runs); !slices.Equal(got, want) {
			t.Fatalf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	expect("")

	// Into blocked, with a title made to attack a terminal or a shell.
	evil := "\x1b]0;evil\x07Deploy $(touch pwned) \u202e"
	putRaw(t, dir, statusfile.FileName("s"), rawRecord("s", "blocked", evil, 7, now))
	expect("s|claude-code|blocked|Deploy $(touch pwned)|/work/s|7")
	// A heartbeat and a new title while blocked: no run. The next run
	// would show an extra one.
	putRaw(t, dir, statusfile.FileName("s"), rawRecord("s", "blocked", evil, 7, now.Add(-time.Millisecond)))
	r.waitLine(`"event":"heartbeat"`, `"session":"s"`)
	s.State, s.PID, s.Title = statusfile.Blocked, 7, "Another question"
	put(t, dir, s)
	r.waitLine(`"event":"updated"`, `"title":"Another question"`)
	// From one --on state to another: a run.
	s.State = "review"
	put(t, dir, s)
	expect("s|claude-code|review|Another question|/work/s|7")
	// Out and back in.
	s.State, s.Title = statusfile.Working, ""
	put(t, dir, s)
	r.waitLine(`"event":"updated"`, `"state":"working"`)
	s.State = statusfile.Blocked
	put(t, dir, s)
	expect("s|claude-code|blocked||/work/s|7")
	// Removed and back.
	remove(t, dir, "pre")
	r.waitLine(`"event":"removed"`, `"session":"pre"`)
	put(t, dir, pre)
	expect("pre|pi|blocked|Already blocked|/work/pre|4242")
	// Stale, then fresh again in the same state: it entered it again.
	waitStaleTimer(t, clock, now, now.Add(30*time.Second+time.Nanosecond))
	clock.Advance(31 * time.Second)
	r.waitLine(`"event":"stale"`, `"session":"s"`)
	s.UpdatedAt = clock.Now()
	put(t, dir, s)
	expect("s|claude-code|blocked||/work/s|7")

	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK || r.stderr.String() != "" {
		t.Fatalf("exit %d, stderr %q", code, r.stderr.String())
	}
	expect("")
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Error("the title ran a command")
	}
	// On stdin: the event's --json line, as printed.
	printed := map[string]bool{}
	for _, l := range strings.Split(r.stdout.String(), "\n") {
		printed[l] = true
	}
	var kinds []string
	for _, l := range lines(t, filepath.Join(work, "stdin")) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || !printed[l] {
			t.Errorf("stdin %q: %v, printed %v", l, err, printed[l])
		}
		kinds = append(kinds, fmt.Sprint(m["event"], ":", m["session"]))
	}
	if w := []string{"snapshot:pre", "updated:s", "updated:s", "updated:s", "added:pre", "fresh:s"}; !slices.Equal(kinds, w) {
		t.Errorf("stdin events %q, want %q", kinds, w)
	}
}

// TestWatchExecFailure: a failing command is reported and the watch goes
// on; with --exec and no output flag, nothing is printed.
func TestWatchExecFailure(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	r := start(t, clock, cmdOpts{}, "watch", "--dir", dir, "--on", "blocked", "--exec", "echo oops >&2; exit 3")
	waitSynced(t, clock)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "x", State: statusfile.Blocked, UpdatedAt: now})
	poll(t, "the failure reported", func() bool {
		return strings.Contains(r.stderr.String(), "statusls: --exec: session x (blocked): exit status 3\n")
	}, func() string { return r.stderr.String() })
	if !strings.Contains(r.stderr.String(), "oops\n") {
		t.Errorf("the command's stderr is not passed on: %q", r.stderr.String())
	}
	put(t, dir, statusfile.Status{Agent: "pi", Session: "y", State: statusfile.Blocked, UpdatedAt: now})
	poll(t, "the watch goes on", func() bool {
		return strings.Contains(r.stderr.String(), "statusls: --exec: session y (blocked): exit status 3\n")
	}, func() string { return r.stderr.String() })
	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK || r.stdout.String() != "" {
		t.Errorf("exit %d, stdout %q", code, r.stdout.String())
	}
}

// TestWatchExecSlow: commands that take long run in the background, at
// most four at once: the events are printed meanwhile, and watch exits on
// SIGTERM without waiting for them.
func TestWatchExecSlow(t *testing.T) {
	t.Parallel()
	dir := privateDir(t)
	work := t.TempDir()
	clock := clocktest.New(now)
	cmd := `cd "$OUT" && echo $$ >"pid.$STATUS_SESSION" && sleep 5 && touch "done.$STATUS_SESSION"`
	// The commands outlast any grace: a short one is as good a test.
	r := start(t, clock, cmdOpts{environ: []string{"OUT=" + work}, execGrace: 100 * time.Millisecond},
		"watch", "--json", "--dir", dir, "--on", "blocked", "--exec", cmd)
	t.Cleanup(func() {
		// The commands left running: kill their process groups.
		files, _ := filepath.Glob(filepath.Join(work, "pid.*"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 1 {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	count := func(pattern string) int {
		files, _ := filepath.Glob(filepath.Join(work, pattern))
		return len(files)
	}
	r.waitLine(`"event":"synced"`)
	// Two more than can run or wait.
	n := execMaxRunning + execMaxWaiting + 2
	for i := range n {
		put(t, dir, statusfile.Status{Agent: "pi", Session: fmt.Sprintf("s%02d", i), State: statusfile.Blocked, UpdatedAt: now})
	}
	put(t, dir, statusfile.Status{Agent: "pi", Session: "last", State: statusfile.Working, UpdatedAt: now})
	r.waitLine(`"event":"added"`, `"session":"last"`)
	for i := range n {
		r.waitLine(`"event":"added"`, fmt.Sprintf(`"session":"s%02d"`, i))
	}
	poll(t, "four commands running", func() bool { return count("pid.*") >= 4 }, nil)
	poll(t, "two commands dropped", func() bool {
		return strings.Count(r.stderr.String(), "commands running and 64 waiting; not running it for session s") == 2
	}, func() string { return r.stderr.String() })
	if n := count("done.*"); n > 0 {
		t.Fatalf("a command finished before the events were all printed: %d done", n)
	}
	if n := count("pid.*"); n != execMaxRunning {
		t.Errorf("%d commands running at once, want %d", n, execMaxRunning)
	}
	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK {
		t.Errorf("exit %d: %s", code, r.stderr.String())
	}
	if n := count("done.*"); n > 0 {
		t.Errorf("watch waited for the commands to finish (%d done)", n)
	}
}

// TestWatchExecTimeout: a command that runs longer than --exec-timeout is
// killed with its process group, and reported. The timeout runs on the
// watch's clock: it is advanced once the command has started its child,
// which on a loaded machine took longer than the 200 ms of real time this
// test once gave it (the shell was killed before it wrote the child's pid).
func TestWatchExecTimeout(t *testing.T) {
	dir := privateDir(t)
	work := t.TempDir()
	clock := clocktest.New(now)
	r := start(t, clock, cmdOpts{environ: []string{"OUT=" + work}}, "watch", "--dir", dir, "--on", "blocked",
		"--exec", `sleep 30 & echo $! >"$OUT/child.tmp"; mv "$OUT/child.tmp" "$OUT/child"; wait; touch "$OUT/done"`, "--exec-timeout", "200ms")
	waitSynced(t, clock)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "x", State: statusfile.Blocked, UpdatedAt: now})
	childFile := filepath.Join(work, "child")
	poll(t, "the command's child started", func() bool { _, err := os.Stat(childFile); return err == nil },
		func() string { return r.stderr.String() })
	if !clock.WaitTimer(now.Add(200*time.Millisecond), patience) {
		t.Fatalf("no timer for the timeout: %v", clock.Armed())
	}
	if strings.Contains(r.stderr.String(), "killed") {
		t.Fatalf("killed before its time: %s", r.stderr.String())
	}
	clock.Advance(200 * time.Millisecond)
	poll(t, "the kill reported", func() bool {
		return strings.Contains(r.stderr.String(), "statusls: --exec: session x (blocked): killed after 200ms\n")
	}, func() string { return r.stderr.String() })
	// The shell's child is killed too. It is an orphan once the shell is
	// gone, reaped by init whenever init gets to it: dead is enough.
	data, err := os.ReadFile(childFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || child <= 1 {
		t.Fatalf("child pid %q", data)
	}
	poll(t, "the shell's child dead", func() bool { return dead(child) }, nil)
}

// TestWatchExecOnTerminal: on a terminal, a failing command is reported in
// the table, not on stderr (the same terminal), and its output is dropped.
func TestWatchExecOnTerminal(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	r := start(t, clock, cmdOpts{terminal: true, width: 80, rows: 24}, "watch", "--dir", dir, "--on", "blocked", "--exec", "echo noise; exit 3")
	waitSynced(t, clock)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "x", State: statusfile.Blocked, UpdatedAt: now})
	r.waitOut("the message", func(s string) bool {
		return strings.Contains(s, "statusls: --exec: session x (blocked): exit status 3"+seqEraseLine)
	})
	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK || r.stderr.String() != "" || strings.Contains(r.stdout.String(), "noise") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, r.stderr.String(), r.stdout.String())
	}
}

// TestWatchExecAfter: with --after, the command runs once the session has
// been blocked that long, counted from waitingFor.since, with why it waits
// in its environment; a session that leaves the state first cancels its
// run. An idle session's turn end is passed on too.
func TestWatchExecAfter(t *testing.T) {
	dir := privateDir(t)
	work := t.TempDir()
	clock := clocktest.New(now)
	cmd := `printf '%s|%s|%s|%s|%s|%s|%s\n' "$STATUS_SESSION" "$STATUS_STATE" "$STATUS_WAITING_KIND" "$STATUS_WAITING_TOOL" "$STATUS_WAITING_DETAIL" "$STATUS_ENDED_REASON" "$STATUS_WHY" >>"$OUT/runs"`
	r := start(t, clock, cmdOpts{environ: []string{"OUT=" + work, "STATUS_WHY=inherited"}},
		"watch", "--dir", dir, "--on", "blocked,idle", "--after", "30s", "--exec", cmd)
	waitSynced(t, clock)
	runs := filepath.Join(work, "runs")
	var want []string
	expect := func(more string) {
		t.Helper()
		want = append(want, more)
		poll(t, more, func() bool { return len(lines(t, runs)) >= len(want) }, func() string { return r.stderr.String() })
		if got := lines(t, runs); !slices.Equal(got, want) {
			t.Fatalf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	// Blocked for 10 s already: due 20 s from now.
	put(t, dir, statusfile.Status{Agent: "claude-code", Session: "a", State: statusfile.Blocked, UpdatedAt: now,
		WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: now.Add(-10 * time.Second)}})
	if !clock.WaitTimer(now.Add(20*time.Second), patience) {
		t.Fatalf("no timer for the run: %v", clock.Armed())
	}
	if got := lines(t, runs); len(got) > 0 {
		t.Fatalf("ran before its time: %q", got)
	}
	clock.Advance(20 * time.Second)
	expect("a|blocked|permission|Bash|rm -rf build||Bash: rm -rf build")

	// Blocked, then working before 30 s: the run is cancelled, its
	// timer stopped.
	t1 := clock.Now()
	put(t, dir, statusfile.Status{Agent: "pi", Session: "c", State: statusfile.Blocked, UpdatedAt: t1,
		WaitingFor: statusfile.Waiting{Kind: "question", Detail: "Which database?"}})
	if !clock.WaitTimer(t1.Add(30*time.Second), patience) {
		t.Fatalf("no timer for the run: %v", clock.Armed())
	}
	put(t, dir, statusfile.Status{Agent: "pi", Session: "c", State: statusfile.Working, UpdatedAt: t1})
	if !clock.WaitUntil(func(armed []time.Time) bool { return !slices.ContainsFunc(armed, t1.Add(30*time.Second).Equal) }, patience) {
		t.Fatalf("the cancelled run's timer is still armed: %v", clock.Armed())
	}
	// A turn that ended long ago: at once.
	put(t, dir, statusfile.Status{Agent: "codex", Session: "i", State: statusfile.Idle, UpdatedAt: t1,
		Ended: statusfile.Ended{Reason: "rate_limited", At: t1.Add(-time.Hour)}})
	expect("i|idle||||rate_limited|rate limited")

	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK || r.stderr.String() != "" {
		t.Fatalf("exit %d, stderr %q", code, r.stderr.String())
	}
	if got := lines(t, runs); !slices.Equal(got, want) {
		t.Errorf("runs at the end:\n%s", strings.Join(got, "\n"))
	}
}
