//go:build unix

package statusls

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// runNow runs statusls with the fake clock and returns at once: for waits
// whose condition holds already.
func runNow(t *testing.T, clock *clocktest.Fake, args ...string) result {
	t.Helper()
	r := start(t, clock, cmdOpts{}, args...)
	code := r.exit()
	return result{code, r.stdout.String(), r.stderr.String()}
}

// TestWaitHoldsAlready: when the condition holds at start, wait returns at
// once (the fake clock never moves).
func TestWaitHoldsAlready(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "a", Cwd: "/work/a", State: statusfile.Idle, UpdatedAt: now})
	put(t, dir, statusfile.Status{Agent: "pi", Session: "b", Cwd: "/work/b", State: statusfile.Blocked, UpdatedAt: now})
	put(t, dir, statusfile.Status{Agent: "codex", Session: "c", Cwd: "/work/c", State: statusfile.Blocked, UpdatedAt: now})
	put(t, dir, statusfile.Status{Agent: "pi", Session: "old", State: statusfile.Idle, UpdatedAt: now.Add(-time.Minute)})
	tests := []struct {
		name   string
		args   []string
		stdout string
	}{
		{"state", []string{"--session", "a", "--state", "idle"}, ""},
		{"one of the states", []string{"--session", "a", "--state", "working,idle"}, ""},
		{"gone: never there", []string{"--session", "nobody", "--gone"}, ""},
		{"gone: stale", []string{"--session", "old", "--gone"}, ""},
		{"any", []string{"--any", "--state", "blocked"}, "b\n"}, // b before c in file-name order
		{"any with agent", []string{"--any", "--state", "blocked", "--agent", "codex"}, "c\n"},
		{"any with cwd", []string{"--any", "--state", "blocked,idle", "--cwd", "/work/c"}, "c\n"},
	}
	if statusfile.FileName("b") > statusfile.FileName("c") {
		tests[4].stdout = "c\n"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runNow(t, clock, append([]string{"wait", "--dir", dir}, tt.args...)...)
			if r.code != base.ExitOK || r.stdout != tt.stdout || r.stderr != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", r.code, r.stdout, r.stderr, tt.stdout)
			}
		})
	}
	r := runNow(t, clock, "wait", "--dir", dir, "--session", "a", "--state", "idle", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || r.code != base.ExitOK || m["session"] != "a" || m["state"] != "idle" || m["fresh"] != true {
		t.Errorf("--json: exit %d, %q: %v", r.code, r.stdout, err)
	}
	if clock.Now() != now {
		t.Fatal("the clock moved")
	}
}

// startWait starts wait and waits until its watcher has listed the
// directory: what happens next is a change.
func startWait(t *testing.T, clock *clocktest.Fake, args ...string) *cmdRun {
	t.Helper()
	r := start(t, clock, cmdOpts{}, append([]string{"wait"}, args...)...)
	waitSynced(t, clock)
	if !r.running() {
		t.Fatalf("wait exited at once: %d\n%s%s", r.exit(), r.stdout.String(), r.stderr.String())
	}
	return r
}

func TestWaitForChange(t *testing.T) {
	t.Run("state", func(t *testing.T) {
		dir := privateDir(t)
		clock := clocktest.New(now)
		a := statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now}
		put(t, dir, a)
		r := startWait(t, clock, "--dir", dir, "--session", "a", "--state", "idle,blocked", "--json")
		a.Title = "still working"
		put(t, dir, a)
		a.State = statusfile.Blocked
		put(t, dir, a)
		if code := r.exit(); code != base.ExitOK || !strings.Contains(r.stdout.String(), `"state":"blocked"`) {
			t.Errorf("exit %d, stdout %q, stderr %q", code, r.stdout.String(), r.stderr.String())
		}
	})
	t.Run("not there yet", func(t *testing.T) {
		dir := privateDir(t)
		clock := clocktest.New(now)
		// A stale record of an earlier run of the session does not count.
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Idle, UpdatedAt: now.Add(-time.Hour)})
		r := startWait(t, clock, "--dir", dir, "--session", "a", "--state", "idle")
		put(t, dir, statusfile.Status{Agent: "pi", Session: "b", State: statusfile.Idle, UpdatedAt: now})
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Idle, UpdatedAt: now})
		if code := r.exit(); code != base.ExitOK || r.stdout.String() != "" || r.stderr.String() != "" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, r.stdout.String(), r.stderr.String())
		}
	})
	t.Run("directory created later", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "home")
		dir := filepath.Join(home, location.DirName)
		clock := clocktest.New(now)
		r := start(t, clock, cmdOpts{}, "wait", "--dir", dir, "--any", "--state", "blocked")
		if !clock.WaitArmed(1, patience) { // the rescan timer: the watcher waits
			t.Fatal("no watcher")
		}
		os.MkdirAll(dir, 0o700)
		os.Chmod(home, 0o700)
		put(t, dir, statusfile.Status{Agent: "pi", Session: "x", State: statusfile.Blocked, UpdatedAt: now})
		if code := r.exit(); code != base.ExitOK || r.stdout.String() != "x\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, r.stdout.String(), r.stderr.String())
		}
	})
	t.Run("any", func(t *testing.T) {
		dir := privateDir(t)
		clock := clocktest.New(now)
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
		r := startWait(t, clock, "--dir", dir, "--any", "--state", "blocked", "--json")
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Idle, UpdatedAt: now})
		putRaw(t, dir, statusfile.FileName("\x1b[2Jnew"), rawRecord("\x1b[2Jnew", "blocked", "", 0, now))
		code := r.exit()
		var m map[string]any
		if err := json.Unmarshal([]byte(r.stdout.String()), &m); err != nil || code != base.ExitOK || m["session"] != "new" {
			t.Errorf("exit %d, stdout %q: %v", code, r.stdout.String(), err)
		}
	})
	t.Run("gone: removed", func(t *testing.T) {
		dir := privateDir(t)
		clock := clocktest.New(now)
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
		r := startWait(t, clock, "--dir", dir, "--session", "a", "--gone")
		remove(t, dir, "a")
		if code := r.exit(); code != base.ExitOK {
			t.Errorf("exit %d, stderr %q", code, r.stderr.String())
		}
	})
	t.Run("gone: stale", func(t *testing.T) {
		dir := privateDir(t)
		clock := clocktest.New(now)
		put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
		r := startWait(t, clock, "--dir", dir, "--session", "a", "--gone")
		waitStaleTimer(t, clock, now, now.Add(30*time.Second+time.Nanosecond))
		clock.Advance(30 * time.Second)
		if !r.running() {
			t.Fatal("gone while still fresh (exactly 30 s old)")
		}
		clock.Advance(time.Millisecond)
		if code := r.exit(); code != base.ExitOK {
			t.Errorf("exit %d, stderr %q", code, r.stderr.String())
		}
	})
}

// TestWaitTimeout: exit status 3 when --timeout passes first.
func TestWaitTimeout(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
	for _, args := range [][]string{
		{"--session", "a", "--state", "idle"},
		{"--session", "a", "--gone"},
		{"--any", "--state", "blocked"},
	} {
		start := clock.Now()
		r := startWait(t, clock, append([]string{"--dir", dir, "--timeout", "200ms"}, args...)...)
		if !clock.WaitTimer(start.Add(200*time.Millisecond), patience) {
			t.Fatalf("%v: no timeout timer: %v", args, clock.Armed())
		}
		clock.Advance(199 * time.Millisecond)
		if !r.running() {
			t.Fatalf("%v: exited before the timeout: %d", args, r.exit())
		}
		clock.Advance(time.Millisecond)
		if code := r.exit(); code != base.ExitTimeout || !strings.Contains(r.stderr.String(), "statusls: timed out after 200ms waiting for ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, r.stderr.String())
		}
	}
}

// TestWaitGone: exit status 4 when the session goes away while waiting for
// a state.
func TestWaitGone(t *testing.T) {
	for _, tt := range []struct {
		name string
		// gone makes session a go away while wait waits for it.
		gone func(t *testing.T, dir string, clock *clocktest.Fake)
		// stderr is what wait says, all of it when exact, else a part.
		stderr string
		exact  bool
	}{
		{"removed", func(t *testing.T, dir string, clock *clocktest.Fake) {
			remove(t, dir, "a")
		}, "statusls: session a was removed (deleted) while waiting for session a in state idle\n", true},
		{"stale", func(t *testing.T, dir string, clock *clocktest.Fake) {
			waitStaleTimer(t, clock, now, now.Add(30*time.Second+time.Nanosecond))
			clock.Advance(31 * time.Second)
		}, "session a went stale", false},
		{"invalid", func(t *testing.T, dir string, clock *clocktest.Fake) {
			putRaw(t, dir, statusfile.FileName("a"), []byte("not json"))
		}, "was removed (bad-json)", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := privateDir(t)
			clock := clocktest.New(now)
			put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now})
			r := startWait(t, clock, "--dir", dir, "--session", "a", "--state", "idle")
			tt.gone(t, dir, clock)
			code, stderr := r.exit(), r.stderr.String()
			said := strings.Contains(stderr, tt.stderr)
			if tt.exact {
				said = stderr == tt.stderr
			}
			if code != base.ExitGone || !said {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

func TestWaitUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"nothing", nil, 2, "either --session ID or --any"},
		{"both", []string{"--session", "a", "--any", "--state", "idle"}, 2, "either --session ID or --any"},
		{"empty session", []string{"--session", "", "--gone"}, 2, "empty session id"},
		{"no condition", []string{"--session", "a"}, 2, "--state S[,S] or --gone"},
		{"two conditions", []string{"--session", "a", "--state", "idle", "--gone"}, 2, "cannot be combined"},
		{"any gone", []string{"--any", "--gone"}, 2, "--any waits for a state"},
		{"gone json", []string{"--session", "a", "--gone", "--json"}, 2, "--json"},
		{"agent with session", []string{"--session", "a", "--state", "idle", "--agent", "pi"}, 2, "with --any"},
		{"negative timeout", []string{"--session", "a", "--gone", "--timeout", "-1s"}, 2, "must not be negative"},
		{"bad timeout", []string{"--session", "a", "--gone", "--timeout", "soon"}, 2, "is not a duration"},
		{"refused dir", []string{"--session", "a", "--gone", "--dir", openDir(t)}, 1, "writable by group or others"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{}, append([]string{"wait"}, tt.args...)...)
			if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.err) || !strings.Contains(r.stderr, "statusls: hint:") {
				t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	if r := run(t, runOpts{}, "wait", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--gone") {
		t.Errorf("--help: exit %d, %q", r.code, r.stdout)
	}
}
