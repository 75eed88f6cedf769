//go:build unix

package reader

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/statusfile"

	"golang.org/x/sys/unix"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// testClock is the readers' clock in these tests: it reads now.
var testClock = clocktest.New(now)

// record returns the JSON of a valid record for session, updated at t,
// with fields overridden by kv (a nil value deletes the key).
func record(session string, t time.Time, kv ...any) []byte {
	m := map[string]any{
		"schema": statusfile.Schema, "agent": "pi", "session": session, "pid": 4242,
		"cwd": "/work/p", "state": "working", "task": map[string]any{"title": "Do it"},
		"updatedAt": t.UTC().Format(timefmt.Layout),
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
		} else {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// openList opens dir with opts, to be closed when the test ends, and
// lists it.
func openList(t *testing.T, dir string, opts Options) (*Dir, *Listing) {
	t.Helper()
	d, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	l, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	return d, l
}

func privateDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent-status")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListVerdicts(t *testing.T) {
	type want struct {
		verdict Verdict
		reason  string
	}
	a := statusfile.FileName("a")
	// half is the first half of a record, padTo a record padded with
	// spaces to n bytes.
	half := func(r []byte) []byte { return r[:len(r)/2] }
	padTo := func(r []byte, n int) []byte { return append(r, strings.Repeat(" ", n-len(r))...) }
	mkdir := func(t *testing.T, dir, name string) { os.Mkdir(filepath.Join(dir, name), 0o700) }
	type verdictCase struct {
		name  string
		file  string                               // the entry's name; "" for session a's status file
		data  []byte                               // written to file, unless setup is set
		setup func(t *testing.T, dir, file string) // makes file in dir
		want  want
	}
	tests := []verdictCase{
		{name: "valid", data: record("a", now), want: want{Fresh, ""}},
		{name: "malformed JSON", data: []byte(`{"schema":`), want: want{Invalid, "bad-json"}},
		{name: "truncated", data: half(record("a", now)), want: want{Invalid, "bad-json"}},
		{name: "empty", data: nil, want: want{Invalid, "empty"}},
		{name: "1 MiB", data: record("a", now, "pad", strings.Repeat("x", 1<<20)), want: want{Invalid, reasonTooLarge}},
		{name: "64 KiB exactly", data: padTo(record("a", now), statusfile.MaxFileSize), want: want{Fresh, ""}},
		{name: "64 KiB + 1", data: padTo(record("a", now), statusfile.MaxFileSize+1), want: want{Invalid, reasonTooLarge}},
		{name: "array", data: []byte(`[1,2]`), want: want{Invalid, "not-object"}},
		{name: "string", data: []byte(`"s"`), want: want{Invalid, "not-object"}},
		{name: "number", data: []byte(`42`), want: want{Invalid, "not-object"}},
		{name: "unknown schema", data: record("a", now, "schema", "gentle-shell.agent-status/v2"), want: want{Invalid, "unsupported-schema"}},
		{name: "unknown state kept", data: record("a", now, "state", "thinking"), want: want{Fresh, ""}},
		{name: "unknown keys ignored", data: record("a", now, "model", map[string]any{"id": "x"}, "tokens", 12), want: want{Fresh, ""}},
		{name: "name not matching session", file: statusfile.FileName("b"), data: record("a", now), want: want{Invalid, reasonNameMismatch}},
		{name: "uppercase hex name", file: strings.ToUpper(a[:64]) + ".json", data: record("a", now), want: want{Ignored, reasonNotAStatus}},
		{name: "dot-file", file: "." + a, data: record("a", now), want: want{Ignored, reasonDotFile}},
		{name: "renameio temp file", file: "." + a + "8734629873462", data: record("a", now)[:10], want: want{Ignored, reasonDotFile}},
		{name: "directory named x.json", file: "x.json", setup: mkdir, want: want{Ignored, reasonNotAStatus}},
		{name: "directory named like a status file", setup: mkdir, want: want{Invalid, reasonNotRegular}},
		{name: "fifo", setup: func(t *testing.T, dir, file string) {
			if err := unix.Mkfifo(filepath.Join(dir, file), 0o600); err != nil {
				t.Skip(err)
			}
		}, want: want{Invalid, reasonNotRegular}},
		{name: "socket", setup: func(t *testing.T, dir, file string) {
			l, err := net.Listen("unix", filepath.Join(dir, file))
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { l.Close() })
		}, want: want{Invalid, reasonNotRegular}},
		{name: "symlink to a valid file outside", setup: func(t *testing.T, dir, file string) {
			outside := filepath.Join(filepath.Dir(dir), "outside.json")
			write(t, filepath.Dir(dir), "outside.json", record("a", now))
			os.Symlink(outside, filepath.Join(dir, file))
		}, want: want{Invalid, reasonSymlink}},
		{name: "exactly 30 s old", data: record("a", now.Add(-30*time.Second)), want: want{Fresh, ""}},
		{name: "30.001 s old", data: record("a", now.Add(-30001*time.Millisecond)), want: want{Stale, ""}},
		{name: "1 h in the future", data: record("a", now.Add(time.Hour)), want: want{Stale, ""}},
		{name: "30 s in the future", data: record("a", now.Add(30*time.Second)), want: want{Fresh, ""}},
		{name: "non-UTC offset", data: record("a", now, "updatedAt", "2026-11-30T13:59:50+02:00"), want: want{Fresh, ""}},
		{name: "0 fractional digits", data: record("a", now, "updatedAt", "2026-11-30T11:59:45Z"), want: want{Fresh, ""}},
		{name: "9 fractional digits", data: record("a", now, "updatedAt", "2026-11-30T11:59:45.123456789Z"), want: want{Fresh, ""}},
	}
	for _, field := range []string{"session", "state", "updatedAt"} {
		tests = append(tests, verdictCase{name: "missing " + field, data: record("a", now, field, nil), want: want{Invalid, "missing-field"}})
	}
	for field, value := range map[string]any{"agent": 1, "session": 1, "pid": "1", "cwd": true, "state": 1, "task": "x", "updatedAt": 1} {
		tests = append(tests, verdictCase{name: "wrong type " + field, data: record("a", now, field, value), want: want{Invalid, "wrong-type"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := privateDir(t)
			name := cmp.Or(tt.file, a)
			if tt.setup != nil {
				tt.setup(t, dir, name)
			} else {
				write(t, dir, name, tt.data)
			}
			done := make(chan struct{})
			var l *Listing
			var err error
			go func() {
				l, err = List(dir, Options{Clock: testClock, Ignored: true})
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("List hung")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Entries) != 1 {
				t.Fatalf("%d entries, want 1: %+v", len(l.Entries), l.Entries)
			}
			e := l.Entries[0]
			if e.Name != name || e.Verdict != tt.want.verdict || e.Reason != tt.want.reason {
				t.Errorf("got %s %s/%s (%v), want %s/%s", e.Name, e.Verdict, e.Reason, e.Err, tt.want.verdict, tt.want.reason)
			}
			if (e.Verdict == Invalid) != (e.Err != nil) {
				t.Errorf("Err %v for verdict %s", e.Err, e.Verdict)
			}
		})
	}
}

func TestListOrderAndMissing(t *testing.T) {
	l, err := List(filepath.Join(t.TempDir(), "none"), Options{})
	if err != nil || !l.Missing || len(l.Entries) != 0 {
		t.Fatalf("missing dir: %+v %v", l, err)
	}
	dir := privateDir(t)
	var names []string
	for i := 0; i < 200; i++ {
		s := fmt.Sprintf("s%d", i)
		write(t, dir, statusfile.FileName(s), record(s, now))
		names = append(names, statusfile.FileName(s))
	}
	slices.Sort(names)
	for _, workers := range []int{1, 3} {
		l, err = List(dir, Options{Clock: testClock, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Fresh()) != len(l.Entries) {
			t.Fatalf("%d of %d entries fresh", len(l.Fresh()), len(l.Entries))
		}
		got := make([]string, len(l.Entries))
		for i, e := range l.Entries {
			got[i] = e.Name
		}
		if !slices.Equal(got, names) {
			t.Fatalf("workers=%d: entries are not the files written, in name order:\n got %q\nwant %q", workers, got, names)
		}
	}
}

// Each yields what List lists, in the same order, across more than one
// window of names, with a file that vanishes meanwhile left out; it stops
// when yield says so.
func TestEachAsList(t *testing.T) {
	dir := privateDir(t)
	for i := range eachWindow + 45 {
		s := fmt.Sprintf("s%d", i)
		data := record(s, now)
		if i%50 == 3 {
			data = []byte("{")
		}
		write(t, dir, statusfile.FileName(s), data)
	}
	os.Symlink(filepath.Join(dir, statusfile.FileName("s0")), filepath.Join(dir, statusfile.FileName("link")))
	l, err := List(dir, Options{Clock: testClock})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir, Options{Clock: testClock})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	goes := l.Entries[eachWindow+7].Name
	d.afterList = func() { os.Remove(filepath.Join(dir, goes)) }
	var got []Entry
	if err := d.Each(func(e *Entry) bool { got = append(got, *e); return true }); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(l.Entries), func(e Entry) bool { return e.Name == goes })
	if len(got) != len(want) || len(want) != eachWindow+45 {
		t.Fatalf("Each yielded %d entries, List listed %d (one vanished)", len(got), len(l.Entries))
	}
	for i := range want {
		if g, w := got[i], want[i]; g.Name != w.Name || g.Verdict != w.Verdict || g.Reason != w.Reason || g.Status != w.Status {
			t.Fatalf("entry %d: Each %s %s %s, List %s %s %s", i, g.Name, g.Verdict, g.Reason, w.Name, w.Verdict, w.Reason)
		}
	}
	d.afterList = nil
	n := 0
	d.Each(func(*Entry) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("Each went on after yield returned false: %d entries", n)
	}
}

func TestListRefusesDirectory(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	os.Symlink(real, filepath.Join(base, "link"))
	if _, err := List(filepath.Join(base, "link"), Options{}); !errors.Is(err, perm.ErrSymlink) {
		t.Errorf("symlinked directory: %v", err)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := List(open, Options{}); !errors.Is(err, perm.ErrWritable) {
		t.Errorf("world-writable directory: %v", err)
	}
	readable := filepath.Join(base, "readable")
	os.Mkdir(readable, 0o755)
	os.Chmod(readable, 0o755)
	if _, err := List(readable, Options{}); err != nil {
		t.Errorf("0755 directory refused: %v", err)
	}
	if os.Geteuid() == 0 {
		foreign := filepath.Join(base, "foreign")
		os.Mkdir(foreign, 0o700)
		os.Chown(foreign, 65534, 65534)
		if _, err := List(foreign, Options{}); !errors.Is(err, perm.ErrNotOwned) {
			t.Errorf("directory of another account: %v", err)
		}
	}
}

func TestListNotOwnedFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a file to another account")
	}
	dir := privateDir(t)
	write(t, dir, statusfile.FileName("a"), record("a", now))
	os.Chown(filepath.Join(dir, statusfile.FileName("a")), 65534, 65534)
	l, err := List(dir, Options{Clock: testClock})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Reason != reasonNotOwned {
		t.Errorf("got %+v", l.Entries)
	}
}

func TestListVanishingFile(t *testing.T) {
	dir := privateDir(t)
	write(t, dir, statusfile.FileName("stays"), record("stays", now))
	write(t, dir, statusfile.FileName("goes"), record("goes", now))
	d, err := Open(dir, Options{Clock: testClock})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.afterList = func() { os.Remove(filepath.Join(dir, statusfile.FileName("goes"))) }
	l, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Status.Session != "stays" {
		t.Errorf("vanished file not skipped silently: %+v", l.Entries)
	}
	if _, ok := d.Read(statusfile.FileName("goes")); ok {
		t.Error("Read of a vanished file reported ok")
	}
}

func TestLiveness(t *testing.T) {
	if liveness(0, now) != Unknown {
		t.Error("pid 0 is not unknown")
	}
	if got := liveness(os.Getpid(), time.Now()); got != Alive {
		t.Errorf("own pid: %s", got)
	}
	want := Reused // a process that started after the record was written
	if runtime.GOOS != "linux" {
		want = Alive // no start time outside Linux
	}
	if got := liveness(os.Getpid(), time.Unix(0, 0)); got != want {
		t.Errorf("own pid, record from 1970: %s, want %s", got, want)
	}
	cmd := exec(t)
	if got := liveness(cmd, time.Now()); got != Dead {
		t.Errorf("exited child: %s", got)
	}
}

func BenchmarkList(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		dir := filepath.Join(b.TempDir(), "agent-status")
		os.Mkdir(dir, 0o700)
		states := []string{"working", "blocked", "idle"}
		for i := 0; i < n; i++ {
			s := fmt.Sprintf("bench-session-%d", i)
			var task any = map[string]any{"title": "Task number " + fmt.Sprint(i)}
			if i%4 == 0 {
				task = nil
			}
			data := record(s, now, "state", states[i%3], "task", rawJSON("null"))
			if task != nil {
				data = record(s, now, "state", states[i%3], "task", task)
			}
			os.WriteFile(filepath.Join(dir, statusfile.FileName(s)), data, 0o600)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l, err := List(dir, Options{Clock: testClock})
				if err != nil || len(l.Entries) != n {
					b.Fatal(err, len(l.Entries))
				}
			}
		})
		// With the pid's liveness, as statusls --json asks for it.
		b.Run(fmt.Sprint(n, "-liveness"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l, err := List(dir, Options{Clock: testClock, Liveness: true})
				if err != nil || len(l.Entries) != n {
					b.Fatal(err, len(l.Entries))
				}
			}
		})
	}
}

func FuzzJudge(f *testing.F) {
	f.Add([]byte(record("a", now)), "a")
	f.Add([]byte(`{"schema":"gentle-shell.agent-status/v1"}`), "a")
	f.Add([]byte(record("a", now, "state", "\x1b[31mx")), "b")
	f.Fuzz(func(t *testing.T, data []byte, session string) {
		e := Entry{Name: statusfile.FileName(session)}
		judge(&e, data, now)
		switch e.Verdict {
		case Fresh, Stale:
			if e.Status.Session != session || !e.Status.Fresh(now) != (e.Verdict == Stale) {
				t.Fatalf("verdict %s for %+v", e.Verdict, e.Status)
			}
		case Invalid:
			if e.Reason == "" || e.Err == nil {
				t.Fatalf("invalid without a reason: %+v", e)
			}
		default:
			t.Fatalf("verdict %q", e.Verdict)
		}
	})
}

// FuzzList runs the whole path, from a file on disk to a verdict.
func FuzzList(f *testing.F) {
	f.Add([]byte(record("fuzz", now)))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := privateDir(t)
		write(t, dir, statusfile.FileName("fuzz"), data)
		write(t, dir, "."+statusfile.FileName("fuzz")+"1", data)
		l, err := List(dir, Options{Clock: testClock, Liveness: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Entries) != 1 {
			t.Fatalf("%d entries", len(l.Entries))
		}
		want := Entry{Name: statusfile.FileName("fuzz")}
		if len(data) > statusfile.MaxFileSize {
			want.Verdict = Invalid
		} else {
			judge(&want, data, now)
		}
		if got := l.Entries[0]; got.Verdict != want.Verdict || got.Status != want.Status {
			t.Fatalf("List %s %+v, Judge %s %+v", got.Verdict, got.Status, want.Verdict, want.Status)
		}
	})
}

func TestRemoveOnlyTheFileRead(t *testing.T) {
	dir := privateDir(t)
	write(t, dir, statusfile.FileName("old"), record("old", now.Add(-time.Hour)))
	write(t, dir, statusfile.FileName("replaced"), record("replaced", now.Add(-time.Hour)))
	os.Symlink("/etc/passwd", filepath.Join(dir, statusfile.FileName("link")))
	d, l := openList(t, dir, Options{Clock: testClock})
	byName := map[string]*Entry{}
	for i := range l.Entries {
		byName[l.Entries[i].Name] = &l.Entries[i]
	}
	old := byName[statusfile.FileName("old")]
	// A publisher replaces this file after the listing: it must stay.
	write(t, dir, ".tmp", record("replaced", now))
	if err := os.Rename(filepath.Join(dir, ".tmp"), filepath.Join(dir, statusfile.FileName("replaced"))); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.Remove(byName[statusfile.FileName("replaced")]); ok || err != nil {
		t.Errorf("removed a replaced file: %v %v", ok, err)
	}
	if ok, err := d.Remove(byName[statusfile.FileName("link")]); ok || err != nil {
		t.Errorf("removed a symlink: %v %v", ok, err)
	}
	if ok, err := d.Remove(old); !ok || err != nil {
		t.Errorf("did not remove the file read: %v %v", ok, err)
	}
	for _, name := range []string{statusfile.FileName("replaced"), statusfile.FileName("link")} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, statusfile.FileName("old"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old file still there: %v", err)
	}
	if ok, err := d.Remove(&Entry{Name: statusfile.FileName("replaced")}); ok || err != nil {
		t.Errorf("removed an entry that was never read: %v %v", ok, err)
	}
}

// List and Read judge liveness for the same entries: every one with a
// record, the name-mismatched included.
func TestListAndReadAgreeOnLiveness(t *testing.T) {
	dir := privateDir(t)
	write(t, dir, statusfile.FileName("a"), record("a", now, "pid", os.Getpid()))
	write(t, dir, statusfile.FileName("other"), record("a", now, "pid", os.Getpid())) // name-mismatch
	d, l := openList(t, dir, Options{Clock: testClock, Liveness: true})
	for _, e := range l.Entries {
		got, ok := d.Read(e.Name)
		if !ok {
			t.Fatalf("Read(%s) failed", e.Name)
		}
		if e.Alive == unchecked || got.Alive != e.Alive {
			t.Errorf("%s (%s %s): List says %q, Read says %q", e.Name, e.Verdict, e.Reason, e.Alive, got.Alive)
		}
	}
}
