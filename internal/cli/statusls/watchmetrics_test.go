//go:build unix

package statusls

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/promtest"
	"github.com/agentstatus/agentstatus/statusfile"
)

// TestWatchMetricsTextfile: the file follows the directory, one write per
// 250 ms however many changes, stale records counted when the watcher's
// timer says so, a rewrite every 15 s without changes, and the file left
// in place at exit.
func TestWatchMetricsTextfile(t *testing.T) {
	dir := privateDir(t)
	out := filepath.Join(t.TempDir(), "textfile")
	os.Mkdir(out, 0o755)
	os.Chmod(out, 0o755)
	file := filepath.Join(out, "agentstatus.prom")
	clock := clocktest.New(now)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "a", Cwd: "/w", State: statusfile.Blocked, UpdatedAt: now,
		WaitingFor: statusfile.Waiting{Kind: "question", Since: now.Add(-time.Minute)}})
	writeFile(t, dir, statusfile.FileName("broken"), []byte("{"))

	r := start(t, clock, cmdOpts{}, "watch", "--metrics-textfile", file, "--dir", dir)
	read := func() string { data, _ := os.ReadFile(file); return string(data) }
	// waitFile waits until the file holds every one of subs. The watcher
	// may deliver changes in more than one burst, the later ones written
	// 250 ms after the first: with gap, it advances the clock by 250 ms
	// whenever a write waits for it.
	waitFile := func(what string, gap bool, subs ...string) string {
		t.Helper()
		var got string
		poll(t, what, func() bool {
			got = read()
			all := true
			for _, s := range subs {
				all = all && strings.Contains(got, s)
			}
			if !all && gap && slices.ContainsFunc(clock.Armed(), func(a time.Time) bool { return !a.After(clock.Now().Add(250 * time.Millisecond)) }) {
				clock.Advance(250 * time.Millisecond)
			}
			return all
		}, func() string { return "file:\n" + got + "\nstderr:\n" + r.stderr.String() })
		return got
	}
	first := waitFile("the first write", false, `agentstatus_sessions{state="blocked",agent="pi"} 1`, `agentstatus_invalid_files{reason="bad-json"} 1`, "agentstatus_oldest_seconds{state=\"blocked\"} 60\n")
	promtest.CheckMetrics(t, "the textfile", []byte(first))

	// Two changes within 250 ms of the write: one write, when the gap
	// has passed.
	put(t, dir, statusfile.Status{Agent: "codex", Session: "b", Cwd: "/w", State: statusfile.Blocked, UpdatedAt: now})
	put(t, dir, statusfile.Status{Agent: "codex", Session: "c", Cwd: "/w", State: statusfile.Working, UpdatedAt: now})
	if !clock.WaitTimer(now.Add(250*time.Millisecond), patience) {
		t.Fatalf("no coalescing timer at +250ms: %v", clock.Armed())
	}
	if got := read(); got != first {
		t.Fatalf("rewritten before 250 ms had passed:\n%s", got)
	}
	waitFile("the coalesced write", true, `agentstatus_sessions{state="blocked",agent="codex"} 1`, `agentstatus_sessions{state="working",agent="codex"} 1`)

	// Without a change, the ages move on at the refresh, 15 s after the
	// last write.
	last := clock.Now()
	if !clock.WaitTimer(last.Add(15*time.Second), patience) {
		t.Fatalf("no refresh timer at +15s: %v", clock.Armed())
	}
	clock.Advance(15 * time.Second)
	age := clock.Now().Sub(now.Add(-time.Minute)).Seconds()
	waitFile("the refresh", false, "agentstatus_oldest_seconds{state=\"blocked\"} "+strconv.FormatFloat(age, 'f', -1, 64)+"\n")

	// Past 30 s, the records go stale by the watcher's timer (before
	// the next refresh, 15 s after the last).
	clock.Advance(now.Add(30*time.Second + 10*time.Millisecond).Sub(clock.Now()))
	got := waitFile("the stale write", true, "agentstatus_stale_sessions 3\n", `agentstatus_sessions{state="blocked",agent="pi"} 0`)
	promtest.CheckMetrics(t, "the textfile", []byte(got))

	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, r.stderr.String())
	}
	if read() != got {
		t.Errorf("the file changed at exit")
	}
	if r.stdout.String() != "" {
		t.Errorf("watch --metrics-textfile printed %q", r.stdout.String())
	}
	if names, _ := os.ReadDir(out); len(names) != 1 {
		t.Errorf("the textfile directory holds %v", names)
	}
}

// TestWatchMetricsRefused: a textfile directory writable by others stops
// the watch at start (exit 1, the rule named); flags of the other modes
// are usage errors.
func TestWatchMetricsRefused(t *testing.T) {
	dir := privateDir(t)
	open := openDir(t)
	r := start(t, clocktest.New(now), cmdOpts{}, "watch", "--metrics-textfile", filepath.Join(open, "agentstatus.prom"), "--dir", dir)
	if code := r.exit(); code != 1 || !strings.Contains(r.stderr.String(), "writable by others (mode 0777)") {
		t.Errorf("exit %d, stderr %q", code, r.stderr.String())
	}
	for _, flag := range []string{"--json", "--all", "--host=h"} {
		res := run(t, runOpts{}, "watch", "--metrics-textfile", filepath.Join(open, "x.prom"), "--dir", dir, flag)
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2; stderr %q", flag, res.code, res.stderr)
		}
	}
}
