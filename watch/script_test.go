//go:build linux

package watch

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// The scripts in testdata/script play file operations against a Watcher
// and list the events each one must make, in the manner of fsnotify's own
// script tests. The language:
//
//	# comment
//	options heartbeats invalid rescan=DUR   before start
//	start                                   start the watcher
//	mkdir [-p] PATH | rmdir PATH | rm -r PATH | mv FROM TO | chmod MODE PATH
//	swap A B                                exchange two paths atomically
//	symlink TARGET PATH                     paths are relative to the test root;
//	                                        a component @S is session S's file name
//	write S [state=..] [title=..] [at=DUR] [agent=..] [pid=N] [cwd=..] [session=..] [into=DIR]
//	                                        publish session S's record atomically
//	                                        (at: updatedAt relative to the clock)
//	raw S TEXT                              S's file, atomically, with TEXT as is
//	del S                                   remove S's file
//	symlinkfile S TARGET | fifo S           a link or a FIFO at S's file name
//	touch NAME                              a non-status name in the directory
//	advance DUR                             move the fake clock
//	options tap; mute                       the watcher gets no notifications ...
//	resume | overflow                       ... until now; overflow then delivers
//	                                        fsnotify.ErrEventOverflow
//	> KIND [S] [key=value ...]              an event the previous command makes
//
// The status directory is home/agent-status (the config home is home). The
// events a command makes must be exactly the "> " lines after it: in order
// for each session, in any order across sessions. After every command the
// interpreter proves nothing else came: it publishes a marker session and
// removes it, and those two must be the next events. It then checks that
// the view built from the events equals a fresh listing of the directory,
// and, on every event, that Before is the previous After of that session
// and that sequence numbers have no gaps.
//
// Keys of "> " lines: state, title, verdict (of After), before (verdict of
// Before, or none), after (none), reason, session (the event's session
// id), missing (true or false), err (a substring of the error).
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/script/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatal("no scripts", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			runScript(t, f)
		})
	}
}

var scriptT0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// waitEvent is how long an expected event may take: generous, as the
// machine may be busy; a passing run takes milliseconds.
const waitEvent = 10 * time.Second

type expect struct {
	line   int
	text   string
	kind   Kind
	name   string // status file name; "" for events without a session
	checks [][2]string
}

type step struct {
	line int
	text string
	args []string
	want []expect
}

type script struct {
	t        *testing.T
	file     string
	root     string
	dir      string // the status directory
	clock    *clocktest.Fake
	w        *Watcher
	opts     Options
	source   func() (source, error) // nil: fsnotify
	beats    bool
	invalid  bool
	view     map[string]*reader.Entry
	seq      uint64
	barriers int
	tap      *tapSource // with "options tap"
	muted    bool
	diverged bool // notifications were lost: the view may lag until the clock moves
}

func runScript(t *testing.T, file string) {
	steps := parseScript(t, file)
	s := &script{
		t:     t,
		file:  file,
		root:  t.TempDir(),
		clock: clocktest.New(scriptT0),
		view:  map[string]*reader.Entry{},
	}
	s.dir = filepath.Join(s.root, "home", "agent-status")
	t.Cleanup(func() {
		if s.w != nil {
			s.w.Close()
		}
	})
	for _, st := range steps {
		s.run(st)
	}
}

func parseScript(t *testing.T, file string) []step {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, ">"); ok {
			if len(steps) == 0 {
				t.Fatalf("%s:%d: expected event before any command", file, n)
			}
			args := splitArgs(t, file, n, rest)
			if len(args) == 0 {
				t.Fatalf("%s:%d: empty expectation", file, n)
			}
			x := expect{line: n, text: line, kind: Kind(args[0])}
			for _, a := range args[1:] {
				if k, v, ok := strings.Cut(a, "="); ok {
					x.checks = append(x.checks, [2]string{k, v})
				} else if x.name == "" {
					x.name = statusfile.FileName(a)
				} else {
					t.Fatalf("%s:%d: two sessions in one expectation", file, n)
				}
			}
			last := &steps[len(steps)-1]
			last.want = append(last.want, x)
			continue
		}
		steps = append(steps, step{line: n, text: line, args: splitArgs(t, file, n, line)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// splitArgs splits a line at spaces; a double-quoted part (Go syntax) may
// hold spaces, also after "key=".
func splitArgs(t *testing.T, file string, n int, line string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"' && !in:
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				t.Fatalf("%s:%d: unterminated string", file, n)
			}
			u, err := strconv.Unquote(line[i : j+1])
			if err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			cur.WriteString(u)
			in = true
			i = j
		case c == ' ' || c == '\t':
			if cur.Len() > 0 || in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 || in {
		out = append(out, cur.String())
	}
	return out
}

func (s *script) fatalf(st step, format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("%s:%d: %s: %s", filepath.Base(s.file), st.line, st.text, fmt.Sprintf(format, args...))
}

// path resolves a script path: relative to the test root, a component
// "@S" standing for session S's file name.
func (s *script) path(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if id, ok := strings.CutPrefix(c, "@"); ok {
			parts[i] = statusfile.FileName(id)
		}
	}
	return filepath.Join(append([]string{s.root}, parts...)...)
}

func (s *script) run(st step) {
	s.t.Helper()
	args := st.args
	must := func(err error) {
		s.t.Helper()
		if err != nil {
			s.fatalf(st, "%v", err)
		}
	}
	nargs := func(n int) {
		s.t.Helper()
		if len(args) != n+1 {
			s.fatalf(st, "want %d arguments", n)
		}
	}
	switch args[0] {
	case "options":
		for _, a := range args[1:] {
			switch k, v, _ := strings.Cut(a, "="); k {
			case "heartbeats":
				s.beats = true
				s.opts.Heartbeats = true
			case "invalid":
				s.invalid = true
				s.opts.Invalid = true
			case "rescan":
				d, err := time.ParseDuration(v)
				must(err)
				s.opts.RescanInterval = d
			case "tap":
				s.source = func() (source, error) {
					tap, err := newTapSource()
					s.tap = tap
					return tap, err
				}
			default:
				s.fatalf(st, "unknown option %q", a)
			}
		}
		return
	case "start":
		o, src := s.opts, s.source
		o.Clock = s.clock
		if src == nil {
			src = newFSSource
		}
		w, err := newWatcher(s.dir, o, src)
		must(err)
		s.w = w
		s.expectStream(st)
		s.barrier(st)
		return
	case "advance":
		nargs(1)
		d, err := time.ParseDuration(args[1])
		must(err)
		if n := s.w.Settle(); n != 0 {
			s.fatalf(st, "%d events waiting before the clock moved", n)
		}
		s.clock.Advance(d)
		n := s.w.Settle()
		if n != len(st.want) {
			got := s.take(st, n)
			s.fatalf(st, "the clock made %d events, want %d:\n%s", n, len(st.want), strings.Join(got, "\n"))
		}
		s.expectStream(st)
		if len(st.want) > 0 {
			s.diverged = false // the rescan (or so the script says) caught up
		}
		s.barrier(st)
		return
	case "mute":
		s.tap.mute()
		s.muted = true
		return
	case "resume", "overflow":
		// A dot-file marks the end of what is dropped; it is ignored by
		// the watcher.
		s.muted = false
		s.diverged = args[0] == "resume"
		marker := fmt.Sprintf(".resume-%d", st.line)
		resumed := s.tap.resumeAfter(marker)
		must(os.WriteFile(filepath.Join(s.dir, marker), nil, 0o600))
		select {
		case <-resumed:
		case <-time.After(waitEvent):
			s.fatalf(st, "the marker's notification never came")
		}
		must(os.Remove(filepath.Join(s.dir, marker)))
		if args[0] == "overflow" {
			s.tap.inject(fsnotify.ErrEventOverflow)
		}
	case "mkdir":
		if len(args) == 3 && args[1] == "-p" {
			must(os.MkdirAll(s.path(args[2]), 0o700))
		} else {
			nargs(1)
			must(os.Mkdir(s.path(args[1]), 0o700))
		}
	case "rmdir":
		nargs(1)
		must(os.Remove(s.path(args[1])))
	case "rm":
		if len(args) != 3 || args[1] != "-r" {
			s.fatalf(st, "want rm -r PATH")
		}
		must(os.RemoveAll(s.path(args[2])))
	case "mv":
		nargs(2)
		// rename(2) itself: os.Rename refuses to replace a directory.
		must(unix.Rename(s.path(args[1]), s.path(args[2])))
	case "swap":
		nargs(2)
		must(unix.Renameat2(unix.AT_FDCWD, s.path(args[1]), unix.AT_FDCWD, s.path(args[2]), unix.RENAME_EXCHANGE))
	case "chmod":
		nargs(2)
		m, err := strconv.ParseUint(args[1], 8, 32)
		must(err)
		must(os.Chmod(s.path(args[2]), os.FileMode(m)))
	case "symlink":
		nargs(2)
		must(os.Symlink(s.path(args[1]), s.path(args[2])))
	case "write":
		if len(args) < 2 {
			s.fatalf(st, "want write SESSION [key=value ...]")
		}
		rec := statusfile.Status{
			Agent: "pi", Session: args[1], PID: 4242, Cwd: "/work/p",
			State: statusfile.Working, UpdatedAt: s.clock.Now(),
		}
		into := s.dir
		for _, a := range args[2:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "into":
				into = s.path(v)
			case "state":
				rec.State = statusfile.State(v)
			case "title":
				rec.Title = v
			case "agent":
				rec.Agent = v
			case "cwd":
				rec.Cwd = v
			case "session":
				rec.Session = v
			case "pid":
				pid, err := strconv.Atoi(v)
				must(err)
				rec.PID = pid
			case "at":
				d, err := time.ParseDuration(v)
				must(err)
				rec.UpdatedAt = s.clock.Now().Add(d)
			default:
				s.fatalf(st, "unknown field %q", k)
			}
		}
		data, err := statusfile.Encode(rec)
		must(err)
		must(atomicWrite(into, statusfile.FileName(args[1]), data))
	case "raw":
		if len(args) != 3 {
			s.fatalf(st, "want raw SESSION TEXT (quote TEXT)")
		}
		must(atomicWrite(s.dir, statusfile.FileName(args[1]), []byte(args[2])))
	case "del":
		nargs(1)
		must(os.Remove(filepath.Join(s.dir, statusfile.FileName(args[1]))))
	case "symlinkfile":
		nargs(2)
		must(os.Symlink(s.path(args[2]), filepath.Join(s.dir, statusfile.FileName(args[1]))))
	case "fifo":
		nargs(1)
		must(unix.Mkfifo(filepath.Join(s.dir, statusfile.FileName(args[1])), 0o600))
	case "touch":
		nargs(1)
		data, err := statusfile.Encode(statusfile.Status{Session: args[1], State: statusfile.Idle, UpdatedAt: s.clock.Now()})
		must(err)
		must(os.WriteFile(filepath.Join(s.dir, args[1]), data, 0o600))
	default:
		s.fatalf(st, "unknown command")
	}
	if s.w == nil {
		if len(st.want) > 0 {
			s.fatalf(st, "events expected before start")
		}
		return
	}
	s.expectStream(st)
	s.barrier(st)
}

// atomicWrite replaces dir/name with data as a publisher does (SPEC.md P8):
// a dot-prefixed temporary file in dir, renamed over the name.
func atomicWrite(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// next returns the next event, or false after waitEvent.
func (s *script) next() (Event, bool) {
	select {
	case ev, ok := <-s.w.Events():
		return ev, ok
	case <-time.After(waitEvent):
		return Event{}, false
	}
}

// take reads n events and formats them, for error messages.
func (s *script) take(st step, n int) []string {
	var out []string
	for range n {
		ev, ok := s.next()
		if !ok {
			break
		}
		out = append(out, "\t"+formatEvent(&ev))
	}
	return out
}

func formatEvent(ev *Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s", ev.Seq, ev.Kind)
	if ev.Session != "" {
		fmt.Fprintf(&b, " %s", ev.Session)
	} else if ev.Name != "" {
		fmt.Fprintf(&b, " %.12s…", ev.Name)
	}
	if ev.Before != nil {
		fmt.Fprintf(&b, " before=%s/%s", ev.Before.Verdict, ev.Before.Status.State)
	}
	if ev.After != nil {
		fmt.Fprintf(&b, " after=%s/%s", ev.After.Verdict, ev.After.Status.State)
		if ev.After.Status.Title != "" {
			fmt.Fprintf(&b, " title=%q", ev.After.Status.Title)
		}
		if ev.After.Reason != "" {
			fmt.Fprintf(&b, " (%s)", ev.After.Reason)
		}
	}
	if ev.Reason != "" {
		fmt.Fprintf(&b, " reason=%s", ev.Reason)
	}
	if ev.Kind == Synced {
		fmt.Fprintf(&b, " missing=%v", ev.Missing)
	}
	if ev.Err != nil {
		fmt.Fprintf(&b, " err=%q", ev.Err)
	}
	return b.String()
}

// expectStream reads the events st.want lists: in order for each session,
// in any order across sessions.
func (s *script) expectStream(st step) {
	s.t.Helper()
	done := make([]bool, len(st.want))
	for range st.want {
		ev, ok := s.next()
		if !ok {
			var missing []string
			for i, x := range st.want {
				if !done[i] {
					missing = append(missing, fmt.Sprintf("\tline %d: %s", x.line, x.text))
				}
			}
			s.fatalf(st, "timed out waiting for:\n%s", strings.Join(missing, "\n"))
		}
		s.checkChain(st, &ev)
		i := 0
		for i < len(st.want) && (done[i] || st.want[i].name != ev.Name) {
			i++
		}
		if i == len(st.want) {
			s.fatalf(st, "unexpected event %s", formatEvent(&ev))
		}
		if msg := st.want[i].mismatch(&ev); msg != "" {
			s.fatalf(st, "line %d: %s: got %s: %s", st.want[i].line, st.want[i].text, formatEvent(&ev), msg)
		}
		done[i] = true
	}
}

func (x *expect) mismatch(ev *Event) string {
	if ev.Kind != x.kind {
		return "kind"
	}
	verdict := func(e *reader.Entry) string {
		if e == nil {
			return "none"
		}
		return string(e.Verdict)
	}
	for _, c := range x.checks {
		k, v := c[0], c[1]
		var got string
		switch k {
		case "state", "title":
			if ev.After == nil {
				return k + ": no After"
			}
			got = string(ev.After.Status.State)
			if k == "title" {
				got = ev.After.Status.Title
			}
		case "verdict":
			got = verdict(ev.After)
		case "before":
			got = verdict(ev.Before)
		case "after":
			got = verdict(ev.After)
		case "reason":
			got = string(ev.Reason)
			if ev.Kind != Removed && ev.After != nil {
				got = string(ev.After.Reason)
			}
		case "session":
			got = ev.Session
		case "missing":
			got = strconv.FormatBool(ev.Missing)
		case "err":
			if ev.Err == nil || !strings.Contains(ev.Err.Error(), v) {
				return fmt.Sprintf("err %v does not contain %q", ev.Err, v)
			}
			continue
		default:
			return "unknown key " + k
		}
		if got != v {
			return fmt.Sprintf("%s is %q, want %q", k, got, v)
		}
	}
	return ""
}

// checkChain checks what holds for every event: sequence numbers without
// gaps, Before equal to the previous After of that name, the shape of each
// kind; then it applies the event to the view.
func (s *script) checkChain(st step, ev *Event) {
	s.t.Helper()
	if ev.Seq != s.seq+1 {
		s.fatalf(st, "event %s: sequence number after %d", formatEvent(ev), s.seq)
	}
	s.seq = ev.Seq
	switch ev.Kind {
	case Synced, Error:
		if ev.Name != "" || ev.Before != nil || ev.After != nil {
			s.fatalf(st, "event %s carries a session", formatEvent(ev))
		}
		return
	case Removed:
		if ev.After != nil || ev.Before == nil || ev.Reason == "" {
			s.fatalf(st, "removed event %s: want Before, a reason and no After", formatEvent(ev))
		}
	default:
		if ev.After == nil {
			s.fatalf(st, "event %s without After", formatEvent(ev))
		}
	}
	prev := s.view[ev.Name]
	if (prev == nil) != (ev.Before == nil) {
		s.fatalf(st, "event %s: Before %v, but the view has %v", formatEvent(ev), ev.Before != nil, prev != nil)
	}
	if prev != nil && !s.sameEntry(prev, ev.Before, s.beats) {
		s.fatalf(st, "event %s: Before is not the previous After", formatEvent(ev))
	}
	if ev.After != nil {
		s.view[ev.Name] = ev.After
	} else {
		delete(s.view, ev.Name)
	}
}

func (s *script) sameEntry(a, b *reader.Entry, withTime bool) bool {
	return a.Name == b.Name && a.Verdict == b.Verdict && a.Reason == b.Reason &&
		sameFields(&a.Status, &b.Status) && (!withTime || a.Status.UpdatedAt.Equal(b.Status.UpdatedAt))
}

// usable reports whether a reader accepts the status directory: the
// barrier can only work there.
func (s *script) usable() bool {
	fi, err := os.Lstat(s.dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o022 == 0
}

// barrier proves that the watcher made no event beyond the expected ones:
// a marker session published now, and removed, must be the next two
// events. It then compares the view with a listing.
func (s *script) barrier(st step) {
	s.t.Helper()
	if s.muted {
		return // what the barrier would prove is what mute hides
	}
	if !s.usable() {
		if len(s.view) != 0 {
			s.fatalf(st, "the directory is unusable, but the view holds %d entries", len(s.view))
		}
		return
	}
	s.barriers++
	id := fmt.Sprintf("barrier-%d", s.barriers)
	name := statusfile.FileName(id)
	data, err := statusfile.Encode(statusfile.Status{Session: id, State: statusfile.Idle, UpdatedAt: s.clock.Now()})
	if err != nil {
		s.t.Fatal(err)
	}
	if err := atomicWrite(s.dir, name, data); err != nil {
		s.fatalf(st, "barrier: %v", err)
	}
	s.expectStream(step{line: st.line, text: st.text, want: []expect{{line: st.line, text: "(barrier added)", kind: Added, name: name}}})
	if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
		s.fatalf(st, "barrier: %v", err)
	}
	s.expectStream(step{line: st.line, text: st.text, want: []expect{{line: st.line, text: "(barrier removed)", kind: Removed, name: name}}})
	if !s.diverged {
		s.checkView(st)
	}
}

// checkView compares the view built from the events with a listing of
// the directory made now.
func (s *script) checkView(st step) {
	s.t.Helper()
	l, err := reader.List(s.dir, reader.Options{Clock: s.clock})
	if err != nil {
		s.fatalf(st, "listing: %v", err)
	}
	n := 0
	for i := range l.Entries {
		e := &l.Entries[i]
		if !(record(e) || s.invalid && e.Verdict == reader.Invalid) {
			continue
		}
		n++
		v := s.view[e.Name]
		if v == nil {
			s.fatalf(st, "the listing has %s (%s), the view does not", e.Status.Session, e.Verdict)
		}
		if !s.sameEntry(v, e, s.beats) {
			s.fatalf(st, "the view has %s as %s/%s, the listing as %s/%s", e.Name, v.Verdict, v.Status.State, e.Verdict, e.Status.State)
		}
	}
	if n != len(s.view) {
		s.fatalf(st, "the view has %d entries, the listing %d", len(s.view), n)
	}
}
