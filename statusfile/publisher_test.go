package statusfile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/perm"
	sf "github.com/agentstatus/agentstatus/statusfile"
)

var start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// writes collects the publisher's write attempts for a test.
type writes struct {
	ch chan result
}

type result struct {
	rec sf.Status
	err error
}

func newWrites() *writes { return &writes{ch: make(chan result, 100000)} }

func (w *writes) hook(rec sf.Status, err error) { w.ch <- result{rec, err} }

// next waits for the next write attempt.
func (w *writes) next(t *testing.T) result {
	t.Helper()
	select {
	case r := <-w.ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no write within 10 s")
		return result{}
	}
}

// nextArmed waits for the next write attempt and then for the heartbeat the
// publisher arms after it, so that advancing the fake clock cannot race
// with the timer being created.
func (w *writes) nextArmed(t *testing.T, clock *clocktest.Fake) result {
	t.Helper()
	r := w.next(t)
	if !clock.WaitTimer(r.rec.UpdatedAt.Add(sf.DefaultHeartbeat), 10*time.Second) {
		t.Fatalf("no heartbeat armed after the write at %v", r.rec.UpdatedAt)
	}
	return r
}

func (w *writes) drain() int {
	n := 0
	for {
		select {
		case <-w.ch:
			n++
		default:
			return n
		}
	}
}

func readRecord(t *testing.T, path string) sf.Status {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sf.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return s
}

// newPub starts a publisher of "session-1" with a fake clock, in a new
// config home unless o says where, writing through write if not nil.
func newPub(t *testing.T, o sf.Options, write ...func(home, dir, name string, data []byte) (fs.FileInfo, error)) (*sf.Publisher, *writes, *clocktest.Fake) {
	t.Helper()
	w := newWrites()
	clock := clocktest.New(start)
	if o.ConfigHome == "" && o.Dir == "" {
		o.ConfigHome = filepath.Join(t.TempDir(), "home")
	}
	o.Agent, o.PID, o.Cwd, o.Clock = "test", 42, "/work", clock
	h := sf.Hooks{OnWrite: w.hook}
	if len(write) > 0 {
		h.Write = write[0]
	}
	p, err := sf.NewHookedPublisher("session-1", o, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, w, clock
}

func TestPublisherWritesPrivateFiles(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o077} {
		t.Run(fs.FileMode(mask).String(), func(t *testing.T) {
			defer setUmask(mask)()
			p, w, _ := newPub(t, sf.Options{State: sf.Working, Title: "Fix it"})
			if r := w.next(t); r.err != nil {
				t.Fatal(r.err)
			}
			for path, want := range map[string]fs.FileMode{filepath.Dir(filepath.Dir(p.Path())): 0o700, filepath.Dir(p.Path()): 0o700, p.Path(): 0o600} {
				fi, err := os.Lstat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != want {
					t.Errorf("%s: mode %04o, want %04o", path, fi.Mode().Perm(), want)
				}
			}
			got := readRecord(t, p.Path())
			want := sf.Status{Schema: sf.Schema, Agent: "test", Session: "session-1", PID: 42, Cwd: "/work", State: sf.Working, Title: "Fix it", UpdatedAt: start}
			if got != want {
				t.Errorf("on disk %+v, want %+v", got, want)
			}
			if filepath.Base(p.Path()) != sf.FileName("session-1") {
				t.Errorf("file name %s", p.Path())
			}
			entries, _ := os.ReadDir(filepath.Dir(p.Path()))
			if len(entries) != 1 {
				t.Errorf("status dir holds %d entries, want 1 (no temporary file left)", len(entries))
			}
		})
	}
}

func TestPublisherRefuses(t *testing.T) {
	type fixture struct {
		opt    sf.Options
		victim string // must be unchanged afterwards
		dir    string // must not gain files
		mode   fs.FileMode
	}
	// configHomeMode makes a config home of that mode.
	configHomeMode := func(mode fs.FileMode) func(*testing.T, string) fixture {
		return func(t *testing.T, base string) fixture {
			h := filepath.Join(base, "home")
			os.Mkdir(h, mode)
			os.Chmod(h, mode)
			return fixture{opt: sf.Options{ConfigHome: h}, dir: h}
		}
	}
	// linkedStatusFile makes session-1's status file a link, made by link,
	// to a victim file outside the status directory.
	linkedStatusFile := func(link func(oldname, newname string) error) func(*testing.T, string) fixture {
		return func(t *testing.T, base string) fixture {
			d := filepath.Join(base, "home", "agent-status")
			os.MkdirAll(d, 0o700)
			victim := filepath.Join(base, "victim")
			os.WriteFile(victim, []byte("precious\n"), 0o600)
			link(victim, filepath.Join(d, sf.FileName("session-1")))
			return fixture{opt: sf.Options{Dir: d}, victim: victim}
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, base string) fixture
		want  error
	}{
		{"symlinked config home", func(t *testing.T, base string) fixture {
			os.Mkdir(filepath.Join(base, "real"), 0o700)
			os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "home"))
			return fixture{opt: sf.Options{ConfigHome: filepath.Join(base, "home")}, dir: filepath.Join(base, "real")}
		}, perm.ErrSymlink},
		{"config home 0775", configHomeMode(0o775), perm.ErrWritable},
		{"config home 0777", configHomeMode(0o777), perm.ErrWritable},
		{"symlinked status dir", func(t *testing.T, base string) fixture {
			os.Mkdir(filepath.Join(base, "home"), 0o700)
			os.Mkdir(filepath.Join(base, "elsewhere"), 0o700)
			os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(base, "home", "agent-status"))
			return fixture{opt: sf.Options{ConfigHome: filepath.Join(base, "home")}, dir: filepath.Join(base, "elsewhere")}
		}, perm.ErrSymlink},
		{"status dir 0755", func(t *testing.T, base string) fixture {
			d := filepath.Join(base, "home", "agent-status")
			os.MkdirAll(d, 0o700)
			os.Chmod(d, 0o755)
			return fixture{opt: sf.Options{Dir: d}, dir: d, mode: 0o755}
		}, perm.ErrAccessible},
		{"symlinked status file", linkedStatusFile(os.Symlink), perm.ErrSymlink},
		{"hard-linked status file", linkedStatusFile(os.Link), perm.ErrLinks},
		{"status file is a directory", func(t *testing.T, base string) fixture {
			d := filepath.Join(base, "home", "agent-status")
			os.MkdirAll(filepath.Join(d, sf.FileName("session-1")), 0o700)
			return fixture{opt: sf.Options{Dir: d}}
		}, perm.ErrNotRegular},
		{"config home owned by another account", func(t *testing.T, base string) fixture {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown the config home to another account")
			}
			h := filepath.Join(base, "home")
			os.Mkdir(h, 0o700)
			if err := os.Chown(h, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return fixture{opt: sf.Options{ConfigHome: h}, dir: h}
		}, perm.ErrNotOwned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			fx := tt.setup(t, base)
			var before []byte
			if fx.victim != "" {
				before, _ = os.ReadFile(fx.victim)
			}
			var dirBefore []fs.DirEntry
			if fx.dir != "" {
				dirBefore, _ = os.ReadDir(fx.dir)
			}
			var reported []error
			var mu sync.Mutex
			w := newWrites()
			clock := clocktest.New(start)
			o := fx.opt
			o.Clock = clock
			o.ErrorHandler = func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }
			p, err := sf.NewHookedPublisher("session-1", o, sf.Hooks{OnWrite: w.hook})
			if err != nil {
				t.Fatal(err)
			}
			r := w.nextArmed(t, clock)
			if !errors.Is(r.err, tt.want) {
				t.Fatalf("write error %v, want %v", r.err, tt.want)
			}
			// Heartbeats retry, but the same failure is reported once.
			for i := 0; i < 3; i++ {
				// Let the publisher arm its retry before moving the clock:
				// under load it may not have yet.
				clock.WaitTimer(clock.Now().Add(sf.DefaultHeartbeat), 10*time.Second)
				clock.Advance(sf.DefaultHeartbeat)
				if r := w.nextArmed(t, clock); !errors.Is(r.err, tt.want) {
					t.Fatalf("retry %d: %v", i, r.err)
				}
			}
			p.Close()
			mu.Lock()
			if len(reported) != 1 {
				t.Errorf("reported %d times, want once: %v", len(reported), reported)
			}
			mu.Unlock()
			if fx.victim != "" {
				after, _ := os.ReadFile(fx.victim)
				if !bytes.Equal(before, after) {
					t.Errorf("victim changed: %q", after)
				}
			}
			if fx.dir != "" {
				after, _ := os.ReadDir(fx.dir)
				if len(after) != len(dirBefore) {
					t.Errorf("%s gained files: %v", fx.dir, after)
				}
				if fx.mode != 0 {
					if fi, _ := os.Lstat(fx.dir); fi.Mode().Perm() != fx.mode {
						t.Errorf("mode changed to %04o", fi.Mode().Perm())
					}
				}
			}
		})
	}
}

func TestPublisherRecoversAtNextHeartbeat(t *testing.T) {
	base := t.TempDir()
	d := filepath.Join(base, "agent-status")
	os.Mkdir(d, 0o755)
	os.Chmod(d, 0o755)
	p, w, clock := newPub(t, sf.Options{Dir: d})
	if r := w.nextArmed(t, clock); !errors.Is(r.err, perm.ErrAccessible) {
		t.Fatalf("first write: %v", r.err)
	}
	os.Chmod(d, 0o700) // the user fixes it
	clock.Advance(sf.DefaultHeartbeat)
	if r := w.next(t); r.err != nil {
		t.Fatalf("retry: %v", r.err)
	}
	readRecord(t, p.Path())
}

func TestPublisherCloseRemoves(t *testing.T) {
	p, w, _ := newPub(t, sf.Options{})
	w.next(t)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file still there after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := p.Flush(context.Background()); !errors.Is(err, sf.ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	p.Set(sf.Working, "after close") // must not panic or write
	if _, err := os.Lstat(p.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("written after Close")
	}
}

func TestPublisherCloseKeepsReplacedFile(t *testing.T) {
	p, w, _ := newPub(t, sf.Options{})
	w.next(t)
	// Someone else (another publisher of the same session) replaces it.
	tmp := filepath.Join(filepath.Dir(p.Path()), ".other")
	os.WriteFile(tmp, []byte("theirs\n"), 0o600)
	os.Rename(tmp, p.Path())
	p.Close()
	data, err := os.ReadFile(p.Path())
	if err != nil || string(data) != "theirs\n" {
		t.Errorf("replaced file was touched: %q %v", data, err)
	}
}

func TestPublisherHeartbeat(t *testing.T) {
	p, w, clock := newPub(t, sf.Options{Coalesce: -1})
	// next waits for a write and for the heartbeat it arms.
	next := func() time.Time {
		t.Helper()
		r := w.next(t)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !clock.WaitTimer(r.rec.UpdatedAt.Add(sf.DefaultHeartbeat), 10*time.Second) {
			t.Fatalf("no heartbeat armed after the write at %v", r.rec.UpdatedAt.Sub(start))
		}
		return r.rec.UpdatedAt
	}
	last := next()
	maxGap := time.Duration(0)
	record := func(at time.Time) {
		if gap := at.Sub(last); gap > maxGap {
			maxGap = gap
		}
		last = at
	}
	// Two minutes of fake time in 1 s steps, changing the state now and
	// then: a write is due whenever DefaultHeartbeat has passed since the
	// last one, and after every change.
	states := []sf.State{sf.Working, sf.Blocked, sf.Idle}
	for i := 1; i <= 120; i++ {
		clock.Advance(time.Second)
		if clock.Now().Sub(last) >= sf.DefaultHeartbeat {
			record(next())
		}
		if i%17 == 0 {
			p.SetState(states[(i/17)%3]) // always a change
			record(next())
		}
		// The next write is never scheduled more than 10 s after the last.
		if armed := clock.Armed(); len(armed) == 0 || armed[0].Sub(last) > sf.HeartbeatInterval {
			t.Fatalf("at %v: next write at %v, last at %v", clock.Now().Sub(start), armed, last.Sub(start))
		}
	}
	if maxGap > sf.HeartbeatInterval {
		t.Errorf("max gap between writes %v, want ≤ %v", maxGap, sf.HeartbeatInterval)
	}
	if n := w.drain(); n != 0 {
		t.Errorf("%d unexpected writes", n)
	}
	t.Logf("max gap %v", maxGap)
}

func TestPublisherCoalescesBursts(t *testing.T) {
	const window = 100 * time.Millisecond
	p, w, clock := newPub(t, sf.Options{Coalesce: window})
	w.next(t) // the first write, at start
	clock.Advance(time.Second)
	states := []sf.State{sf.Working, sf.Blocked, sf.Idle}
	for i := 0; i < 10000; i++ {
		p.Set(states[i%3], "step "+string(rune('a'+i%26)))
	}
	p.Set(sf.Blocked, "the last one")
	// The first change is written at once; the rest wait for the window.
	// (Under load the publisher may see the first change only after the
	// whole burst: then that one write holds the last state.)
	isLast := func(r result) bool { return r.rec.State == sf.Blocked && r.rec.Title == "the last one" }
	first := w.next(t)
	writes := 1
	if !isLast(first) {
		if !clock.WaitArmed(2, 10*time.Second) { // heartbeat and coalescing timers
			t.Fatal("coalescing timer not armed")
		}
		clock.Advance(window)
		last := w.next(t)
		writes++
		if !isLast(last) {
			t.Errorf("last write %+v, want the last state", last.rec)
		}
		if at := last.rec.UpdatedAt.Sub(first.rec.UpdatedAt); at > window {
			t.Errorf("last state written %v after the first, want within %v", at, window)
		}
	}
	got := readRecord(t, p.Path())
	if got.State != sf.Blocked || got.Title != "the last one" {
		t.Errorf("on disk %+v", got)
	}
	if extra := w.drain(); extra > 0 {
		t.Errorf("10,001 changes made %d writes, want at most 2", writes+extra)
	}
	t.Logf("10,001 changes, %d writes", writes)
}

func TestPublisherFlushAndInvalidState(t *testing.T) {
	var reported atomic.Int32
	p, w, _ := newPub(t, sf.Options{ErrorHandler: func(error) { reported.Add(1) }})
	w.next(t)
	p.Set("dancing", "x")
	if reported.Load() != 1 {
		t.Errorf("unknown state reported %d times", reported.Load())
	}
	p.Set(sf.Working, "now")
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := readRecord(t, p.Path())
	if got.State != sf.Working || got.Title != "now" {
		t.Errorf("after Flush: %+v", got)
	}
	// Nothing changed: Flush does not write.
	w.drain()
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := w.drain(); n != 0 {
		t.Errorf("Flush of an unchanged record wrote %d times", n)
	}
}

func TestNewPublisherRejects(t *testing.T) {
	for name, o := range map[string]sf.Options{
		"bad state":          {State: "nope"},
		"heartbeat 11s":      {Heartbeat: 11 * time.Second},
		"negative heartbeat": {Heartbeat: -time.Second},
		"coalesce ≥ hb":      {Heartbeat: time.Second, Coalesce: time.Second},
		"negative pid":       {PID: -1},
		"pid over 2^31":      {PID: overMaxPID()},
	} {
		o.ConfigHome = t.TempDir()
		if _, err := sf.NewPublisher("s", o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, bad := range []string{"", "a\nb", string(make([]byte, 1025))} {
		if _, err := sf.NewPublisher(bad, sf.Options{ConfigHome: t.TempDir()}); !errors.Is(err, sf.ErrInvalidSession) {
			t.Errorf("session %q: %v", bad, err)
		}
	}
}

// readWhileWriting decodes p's file in a tight loop while it makes
// changes changes (every fifth one flushed, so that most become writes),
// and returns how many reads there were, how many of them failed, and the
// first failure.
func readWhileWriting(t *testing.T, p *sf.Publisher, changes int) (reads, bad int64, first any) {
	t.Helper()
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var nreads, nbad atomic.Int64
	var firstBad atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(p.Path())
			if err != nil {
				nbad.Add(1)
				firstBad.CompareAndSwap(nil, err.Error())
				continue
			}
			if _, err := sf.Decode(data); err != nil {
				nbad.Add(1)
				firstBad.CompareAndSwap(nil, err.Error()+": "+string(data))
			}
			nreads.Add(1)
		}
	}()
	states := []sf.State{sf.Working, sf.Blocked, sf.Idle}
	for i := 0; i < changes && nbad.Load() == 0; i++ {
		p.Set(states[i%3], "change "+string(rune('A'+i%26)))
		if i%5 == 0 {
			p.Flush(context.Background())
		}
	}
	p.Flush(context.Background())
	close(stop)
	wg.Wait()
	return nreads.Load(), nbad.Load(), firstBad.Load()
}

// atomicChanges is how many changes the atomicity test makes: about 200
// writes, each a temporary file synced and renamed, every one of them
// overlapped by many reads (the test checks that reads outnumber writes).
// TestConcurrentReadsCatchInPlaceWrites shows that this many changes
// catch a writer that is not atomic.
const atomicChanges = 1000

// TestPublisherAtomicUnderConcurrentReads: a reader decoding the file in a
// tight loop while the publisher rewrites it never sees a partial record
// (SPEC.md P5).
func TestPublisherAtomicUnderConcurrentReads(t *testing.T) {
	home := filepath.Join(testmain.DiskTempDir(t), "home")
	var nwrites atomic.Int64
	p, err := sf.NewHookedPublisher("race", sf.Options{ConfigHome: home, Coalesce: -1, Agent: "race"},
		sf.Hooks{OnWrite: func(sf.Status, error) { nwrites.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	reads, bad, first := readWhileWriting(t, p, atomicChanges)
	if bad != 0 {
		t.Errorf("%d of %d reads failed; first: %v", bad, reads, first)
	}
	if writes := nwrites.Load(); writes < atomicChanges/5 || reads < writes {
		t.Errorf("%d reads of %d writes: the reads did not overlap the writes", reads, writes)
	}
	t.Logf("%d reads of %d writes, none partial", reads, nwrites.Load())
}

// TestConcurrentReadsCatchInPlaceWrites shows that the test above can
// fail: the same reader, during the same number of changes, sees a
// partial record when the file is truncated and rewritten in place, as
// os.WriteFile does.
func TestConcurrentReadsCatchInPlaceWrites(t *testing.T) {
	inPlace := func(home, dir, name string, data []byte) (fs.FileInfo, error) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
		return os.Lstat(path)
	}
	p, err := sf.NewHookedPublisher("race", sf.Options{ConfigHome: filepath.Join(testmain.DiskTempDir(t), "home"), Coalesce: -1, Agent: "race"},
		sf.Hooks{Write: inPlace})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	reads, bad, first := readWhileWriting(t, p, atomicChanges)
	if bad == 0 {
		t.Fatalf("%d reads during in-place writes, none partial: the atomicity test would not catch a non-atomic writer", reads)
	}
	t.Logf("caught after %d reads: %v", reads, first)
}

func BenchmarkPublishWrite(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	p, err := sf.NewPublisher("bench", sf.Options{ConfigHome: home, Coalesce: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	states := []sf.State{sf.Working, sf.Idle}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.SetState(states[i%2])
		i++
		if err := p.Flush(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// A file system failure is reported once even when its message names a
// new temporary file at every attempt (SPEC.md P13).
func TestPublisherReportsIOFailureOnce(t *testing.T) {
	var mu sync.Mutex
	var reported []error
	attempt := 0
	failing := func(home, dir, name string, data []byte) (fs.FileInfo, error) {
		attempt++
		tmp := filepath.Join(dir, fmt.Sprintf(".%s%d", name, attempt))
		return nil, &fs.PathError{Op: "openat", Path: tmp, Err: syscall.EACCES}
	}
	_, w, clock := newPub(t, sf.Options{
		ErrorHandler: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}, failing)
	for i := 0; i < 4; i++ {
		if r := w.nextArmed(t, clock); r.err == nil {
			t.Fatal("write succeeded")
		}
		clock.Advance(sf.DefaultHeartbeat)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 1 {
		t.Errorf("reported %d times, want once: %v", len(reported), reported)
	}
}

func overMaxPID() int {
	pid := int64(math.MaxInt32)
	return int(pid + 1)
}

// The error handler is never called twice at once, even when callers on
// several goroutines pass unknown states.
func TestPublisherErrorHandlerCallsDoNotOverlap(t *testing.T) {
	var inside, most atomic.Int32
	handler := func(error) {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond) // widen the window an overlap needs
		inside.Add(-1)
	}
	p, w, _ := newPub(t, sf.Options{ErrorHandler: handler})
	w.next(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.SetState("bogus")
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d calls of the error handler overlapped", most.Load())
	}
}

func TestPublisherReasonKeys(t *testing.T) {
	for _, detail := range []bool{true, false} {
		t.Run(fmt.Sprintf("detail=%v", detail), func(t *testing.T) {
			p, w, clock := newPub(t, sf.Options{NoDetail: !detail, Coalesce: -1})
			w.next(t)
			flushed := func() sf.Status {
				t.Helper()
				if err := p.Flush(context.Background()); err != nil {
					t.Fatal(err)
				}
				return readRecord(t, p.Path())
			}
			want := func(s string) string {
				if detail {
					return s
				}
				return ""
			}
			p.SetWaiting(sf.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build"})
			got := flushed()
			if got.State != sf.Blocked || got.WaitingFor.Tool != "Bash" || got.WaitingFor.Detail != want("rm -rf build") ||
				!got.WaitingFor.Since.Equal(clock.Now().Truncate(time.Millisecond)) {
				t.Errorf("after SetWaiting: %+v", got)
			}
			// Staying blocked keeps the wait; any other state ends it.
			p.SetState(sf.Blocked)
			if got := flushed(); got.WaitingFor.Kind != "permission" {
				t.Errorf("SetState(blocked) dropped the wait: %+v", got)
			}
			p.SetState(sf.Working)
			p.SetState(sf.Blocked)
			if got := flushed(); got.WaitingFor != (sf.Waiting{}) {
				t.Errorf("a wait outlived its state: %+v", got.WaitingFor)
			}
			at := clock.Now().Add(-time.Second).UTC()
			p.SetEnded(sf.Ended{Reason: "failed", Detail: "server_error", At: at})
			got = flushed()
			if got.State != sf.Idle || got.Ended.Reason != "failed" || got.Ended.Detail != want("server_error") || !got.Ended.At.Equal(at) {
				t.Errorf("after SetEnded: %+v", got)
			}
			p.Set(sf.Idle, "title")
			if got := flushed(); got.Ended.Reason != "failed" || got.Title != "title" {
				t.Errorf("Set(idle) dropped how the turn ended: %+v", got)
			}
			p.Set(sf.Working, "next prompt")
			if got := flushed(); got.Ended != (sf.Ended{}) {
				t.Errorf("ended outlived the next prompt: %+v", got.Ended)
			}
		})
	}
}
