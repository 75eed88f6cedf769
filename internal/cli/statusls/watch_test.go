//go:build unix

package statusls

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// rawRecord is a record as a careless publisher may write it: its title
// is not sanitized.
func rawRecord(session, state, title string, pid int, at time.Time) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return []byte(fmt.Sprintf(`{"schema":"gentle-shell.agent-status/v1","agent":"claude-code","session":%s,"pid":%d,"cwd":%s,"state":%s,"task":{"title":%s},"updatedAt":"%s"}`,
		q(session), pid, q("/work/"+session), q(state), q(title), timefmt.Append(nil, at)))
}

// TestWatchJSON follows a directory through every kind of change and
// compares the event stream with a golden file. The clock is fake, so at
// and age are exact. A consumer that applies the documented rule to the
// events ends with what statusls --ndjson lists.
func TestWatchJSON(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	a := statusfile.Status{Agent: "pi", Session: "a", Cwd: "/work/a", State: statusfile.Working, Title: "Fix tests", UpdatedAt: now.Add(-2 * time.Second)}
	put(t, dir, a)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "old", Cwd: "/work/old", State: statusfile.Idle, UpdatedAt: now.Add(-time.Hour)})
	writeFile(t, dir, statusfile.FileName("broken"), []byte("{"))

	r := start(t, clock, cmdOpts{}, "watch", "--json", "--dir", dir)
	r.waitLine(`"event":"synced"`)

	// A session appears; its title is sanitized.
	putRaw(t, dir, statusfile.FileName("b"), rawRecord("b", "blocked", "\x1b[31mApprove?\x1b[0m", 0, now))
	r.waitLine(`"event":"added"`, `"session":"b"`)
	a.State, a.UpdatedAt = statusfile.Blocked, now
	put(t, dir, a)
	r.waitLine(`"event":"updated"`, `"session":"a"`)
	// A heartbeat (only updatedAt moves) is not reported without
	// --heartbeats; the title change after it is.
	putRaw(t, dir, statusfile.FileName("b"), rawRecord("b", "blocked", "\x1b[31mApprove?\x1b[0m", 0, now.Add(-time.Millisecond)))
	putRaw(t, dir, statusfile.FileName("b"), rawRecord("b", "blocked", "Deploy?", 0, now))
	r.waitLine(`"event":"updated"`, `"session":"b"`)
	remove(t, dir, "b")
	r.waitLine(`"event":"removed"`, `"session":"b"`)
	// A record that becomes invalid leaves with the reason, and comes back.
	putRaw(t, dir, statusfile.FileName("a"), []byte(`{"schema":"gentle-shell.agent-status/v1"}`))
	r.waitLine(`"event":"removed"`, `"reason":"missing-field"`)
	put(t, dir, a)
	r.waitLine(`"event":"added"`, `"session":"a"`)

	// 30 s later, with no file event, a goes stale.
	waitStaleTimer(t, clock, now, now.Add(30*time.Second+time.Nanosecond))
	clock.Advance(31 * time.Second)
	r.waitLine(`"event":"stale"`, `"session":"a"`)
	// Rewritten, it is fresh again; the stale "old" session comes back
	// with a new state.
	a.UpdatedAt = clock.Now()
	put(t, dir, a)
	r.waitLine(`"event":"fresh"`, `"session":"a"`)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "old", Cwd: "/work/old", State: statusfile.Working, UpdatedAt: clock.Now()})
	r.waitLine(`"event":"added"`, `"session":"old"`)

	r.signal(syscall.SIGTERM)
	if code := r.exit(); code != base.ExitOK || r.stderr.String() != "" {
		t.Fatalf("exit %d, stderr %q", code, r.stderr.String())
	}
	out := r.stdout.String()
	noControls(t, "watch --json", out)
	golden(t, "watch.json", out)

	evs := events(t, out)
	for i, e := range evs {
		if e["seq"] != float64(i+1) {
			t.Errorf("event %d has seq %v", i, e["seq"])
		}
	}
	// The consumer's rule, from the usage text.
	view := map[string]map[string]any{}
	for _, e := range evs {
		s, ok := e["session"].(string)
		switch {
		case !ok:
		case e["event"] == string(watch.Removed) || e["event"] == string(watch.Stale):
			delete(view, s)
		default:
			view[s] = e
		}
	}
	list := run(t, runOpts{now: clock.Now()}, "--ndjson", "--dir", dir)
	want := map[string]map[string]any{}
	for _, e := range events(t, list.stdout) {
		want[e["session"].(string)] = e
	}
	if !slices.Equal(slices.Sorted(maps.Keys(view)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("the consumer holds %v, statusls lists %v", slices.Sorted(maps.Keys(view)), slices.Sorted(maps.Keys(want)))
	}
	for s, w := range want {
		got := maps.Clone(view[s])
		for _, k := range []string{"event", "seq", "at", "age"} {
			delete(got, k)
		}
		delete(w, "age")
		if !reflect.DeepEqual(got, w) {
			t.Errorf("session %s: the consumer holds %v, statusls lists %v", s, got, w)
		}
	}
}

// TestWatchSelection: with --state, --agent and --cwd, sessions enter and
// leave the stream as they start and stop matching.
func TestWatchSelection(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	a := statusfile.Status{Agent: "pi", Session: "a", Cwd: "/work/p", State: statusfile.Working, UpdatedAt: now}
	d := statusfile.Status{Agent: "pi", Session: "d", Cwd: "/work/p/sub", State: statusfile.Blocked, UpdatedAt: now}
	put(t, dir, a)
	put(t, dir, d)
	put(t, dir, statusfile.Status{Agent: "claude-code", Session: "c", Cwd: "/work/p", State: statusfile.Blocked, UpdatedAt: now})
	put(t, dir, statusfile.Status{Agent: "pi", Session: "e", Cwd: "/work/pq", State: statusfile.Blocked, UpdatedAt: now})

	r := start(t, clock, cmdOpts{}, "watch", "--json", "--dir", dir, "--state", "blocked", "--agent", "pi", "--cwd", "/work/p")
	r.waitLine(`"event":"synced"`)
	a.State = statusfile.Blocked
	put(t, dir, a)
	r.waitLine(`"event":"added"`, `"session":"a"`)
	a.State = statusfile.Working
	put(t, dir, a)
	r.waitLine(`"event":"removed"`, `"session":"a"`)
	d.Cwd = "/elsewhere"
	put(t, dir, d)
	r.waitLine(`"event":"removed"`, `"session":"d"`)
	// Changes of sessions that never match make no event; this one does.
	put(t, dir, statusfile.Status{Agent: "claude-code", Session: "c", Cwd: "/work/p", State: statusfile.Idle, UpdatedAt: now})
	d.Cwd = "/work/p"
	put(t, dir, d)
	r.waitLine(`"event":"added"`, `"session":"d"`)
	got := kinds(events(t, r.stdout.String()))
	want := []string{"snapshot:d", "synced", "added:a", "removed:a(filtered)", "removed:d(filtered)", "added:d"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestWatchAll: with --all, stale sessions stay in the stream.
func TestWatchAll(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "old", State: statusfile.Idle, UpdatedAt: now.Add(-time.Hour)})
	a := statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, UpdatedAt: now}
	put(t, dir, a)
	r := start(t, clock, cmdOpts{}, "watch", "--json", "--all", "--dir", dir)
	r.waitLine(`"event":"synced"`)
	waitStaleTimer(t, clock, now, now.Add(30*time.Second+time.Nanosecond))
	clock.Advance(31 * time.Second)
	r.waitLine(`"event":"stale"`, `"session":"a"`)
	a.State = statusfile.Idle // still stale: updated, not fresh
	put(t, dir, a)
	r.waitLine(`"event":"updated"`, `"session":"a"`, `"fresh":false`)
	a.UpdatedAt = clock.Now()
	put(t, dir, a)
	r.waitLine(`"event":"fresh"`, `"session":"a"`, `"fresh":true`)
	got := kinds(events(t, r.stdout.String()))
	want := []string{"snapshot:a", "snapshot:old", "synced", "stale:a", "updated:a", "fresh:a"}
	if got[0] == "snapshot:old" { // file-name order
		want[0], want[1] = want[1], want[0]
	}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestWatchTSV: not on a terminal, without --json, one TSV line per event;
// with --heartbeats, heartbeats too.
func TestWatchTSV(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	a := statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Working, Title: "Fix tests", UpdatedAt: now.Add(-time.Second)}
	put(t, dir, a)
	r := start(t, clock, cmdOpts{}, "watch", "--heartbeats", "--dir", dir)
	r.waitLine("synced")
	a.UpdatedAt = now
	put(t, dir, a)
	r.waitLine("heartbeat")
	remove(t, dir, "a")
	r.waitLine("removed")
	want := "snapshot\tpi\ta\tworking\tFix tests\nsynced\t\t\t\t\nheartbeat\tpi\ta\tworking\tFix tests\nremoved\tpi\ta\tworking\tFix tests\n"
	if out := r.stdout.String(); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestWatchMissingDir: the directory need not exist; watch waits for it.
func TestWatchMissingDir(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, location.DirName)
	clock := clocktest.New(now)
	r := start(t, clock, cmdOpts{}, "watch", "--json", "--dir", dir)
	r.waitLine(`"event":"synced"`, `"missing":true`)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o700)
	put(t, dir, statusfile.Status{Agent: "pi", Session: "a", State: statusfile.Idle, UpdatedAt: now})
	r.waitLine(`"event":"added"`, `"session":"a"`)
}

func TestWatchUsageAndErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"help", []string{"watch", "--help"}, 0, "--exec CMD", ""},
		{"two outputs", []string{"watch", "--json", "--tsv"}, 2, "", "cannot be combined"},
		{"on without exec", []string{"watch", "--on", "blocked"}, 2, "", "--on and --exec go together"},
		{"exec without on", []string{"watch", "--exec", "true"}, 2, "", "--on and --exec go together"},
		{"empty on", []string{"watch", "--on", ",", "--exec", "true"}, 2, "", "--on: no state"},
		{"empty exec", []string{"watch", "--on", "blocked", "--exec", ""}, 2, "", "empty command"},
		{"negative timeout", []string{"watch", "--on", "blocked", "--exec", "true", "--exec-timeout", "-1s"}, 2, "", "must not be negative"},
		{"after without exec", []string{"watch", "--after", "30s"}, 2, "", "--after, --after-working and --cooldown go with --on and --exec"},
		{"cooldown without exec", []string{"watch", "--cooldown", "0s"}, 2, "", "go with --on and --exec"},
		{"negative after", []string{"watch", "--on", "blocked", "--exec", "true", "--after", "-1s"}, 2, "", "must not be negative"},
		{"negative cooldown", []string{"watch", "--on", "blocked", "--exec", "true", "--cooldown", "-1m"}, 2, "", "must not be negative"},
		{"after-working without idle", []string{"watch", "--on", "blocked", "--exec", "true", "--after-working", "2m"}, 2, "", "it goes with --on idle"},
		{"bad color", []string{"watch", "--color", "sometimes"}, 2, "", "--color"},
		{"no --now", []string{"watch", "--now", nowText}, 2, "", "unknown flag --now"},
		{"argument", []string{"watch", "x"}, 2, "", `unexpected argument "x"`},
		{"refused dir", []string{"watch", "--dir", openDir(t)}, 1, "", "writable by group or others"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, runOpts{}, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.out) || !strings.Contains(r.stderr, tt.err) {
				t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if tt.code != base.ExitOK && !strings.Contains(r.stderr, "statusls: hint:") {
				t.Errorf("no hint: %q", r.stderr)
			}
		})
	}
}

// TestWatchTerminal: on a terminal, the table is drawn on the alternate
// screen and redrawn in place; the terminal is given back on SIGINT.
// Elsewhere there is no control sequence at all.
func TestWatchTerminal(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	a := statusfile.Status{Agent: "pi", Session: "a", Cwd: "/work/a/long/path/to/the/project", State: statusfile.Working,
		Title: "A title long enough to be shortened on a narrow terminal", UpdatedAt: now}
	put(t, dir, a)
	r := start(t, clock, cmdOpts{terminal: true, width: 100, rows: 10, env: map[string]string{"TERM": "xterm"}}, "watch", "--dir", dir)
	draws := func(out string) int { return strings.Count(out, seqHome) }
	out := r.waitOut("the table", func(s string) bool { return draws(s) == 1 })
	if !strings.HasPrefix(out, seqEnter+seqHome+"STATE") || !strings.Contains(out, "\x1b[32mworking\x1b[0m  a        0s") || !strings.HasSuffix(out, seqEraseDown) {
		t.Fatalf("first draw %q", out)
	}

	// A change is drawn.
	a.State = statusfile.Blocked
	put(t, dir, a)
	out = r.waitOut("the change", func(s string) bool { return draws(s) == 2 })
	if last := out[strings.LastIndex(out, seqHome):]; !strings.Contains(last, "\x1b[1;31mblocked") {
		t.Errorf("second draw %q", last)
	}
	// A second later, the age column moves.
	if !clock.WaitTimer(now.Add(time.Second), patience) {
		t.Fatalf("no timer for the age column: %v", clock.Armed())
	}
	clock.Advance(time.Second)
	out = r.waitOut("the next second", func(s string) bool { return draws(s) == 3 })
	if last := out[strings.LastIndex(out, seqHome):]; !strings.Contains(last, "blocked\x1b[0m  a        1s") {
		t.Errorf("third draw %q", last)
	}
	// Resized to 40 columns, the table fits.
	r.width.Store(40)
	r.signal(syscall.SIGWINCH)
	out = r.waitOut("the resized table", func(s string) bool { return draws(s) == 4 })
	last := out[strings.LastIndex(out, seqHome):]
	for _, l := range strings.Split(strings.TrimSuffix(last, seqEraseDown), seqEraseLine+"\n") {
		if w := displayWidth(stripSeqs(l)); w > 40 {
			t.Errorf("line of %d columns after resizing to 40: %q", w, l)
		}
	}
	r.signal(os.Interrupt)
	if code := r.exit(); code != base.ExitOK {
		t.Fatalf("exit %d: %s", code, r.stderr.String())
	}
	if out := r.stdout.String(); !strings.HasSuffix(out, seqLeave) {
		t.Errorf("terminal not restored: %q", out[max(0, len(out)-40):])
	}

	// Not on a terminal: TSV, and no control sequence.
	r = start(t, clock, cmdOpts{width: 100, env: map[string]string{"TERM": "xterm"}}, "watch", "--dir", dir)
	r.waitLine("synced")
	r.signal(syscall.SIGTERM)
	r.exit()
	if out := r.stdout.String(); strings.Contains(out, "\x1b") || !strings.HasPrefix(out, "snapshot\tpi\ta\tblocked\t") {
		t.Errorf("not on a terminal: %q", out)
	}
}

// TestWatchTerminalRows: a table taller than the terminal is cut, with a
// line saying how many sessions are left out.
func TestWatchTerminalRows(t *testing.T) {
	dir := privateDir(t)
	clock := clocktest.New(now)
	for i := range 12 {
		put(t, dir, statusfile.Status{Agent: "pi", Session: fmt.Sprintf("s%02d", i), State: statusfile.Working, UpdatedAt: now})
	}
	r := start(t, clock, cmdOpts{terminal: true, width: 80, rows: 8}, "watch", "--color", "never", "--dir", dir)
	out := r.waitOut("the table", func(s string) bool { return strings.Contains(s, seqEraseDown) })
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out, seqEnter+seqHome), seqEraseDown), seqEraseLine+"\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "STATE") || lines[6] != "… 7 more" {
		t.Errorf("%d lines on 8 rows: %q", len(lines), lines)
	}
}

// stripSeqs removes ESC [ ... final-byte sequences.
func stripSeqs(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
