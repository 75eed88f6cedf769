//go:build unix && !aix && !solaris && !illumos

package statuspub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/internal/statustest"
	"github.com/agentstatus/agentstatus/internal/testhook"
	"github.com/agentstatus/agentstatus/statusfile"
)

// runCmd runs the command in this process, as a hook would run it.
func runCmd(signals <-chan os.Signal, stdin io.Reader, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Run(args, base.Env{Stdin: stdin, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Signals: fakeSignals(signals)})
	return code, stdout.String(), stderr.String()
}

// fakeSignals delivers what the test sends on ch as the process's
// signals; a nil ch delivers none.
func fakeSignals(ch <-chan os.Signal) func(chan<- os.Signal, ...os.Signal) func() {
	return func(c chan<- os.Signal, _ ...os.Signal) func() {
		done := make(chan struct{})
		go func() {
			for {
				select {
				case sig := <-ch:
					select {
					case c <- sig:
					case <-done:
						return
					}
				case <-done:
					return
				}
			}
		}()
		return func() { close(done) }
	}
}

func setWait(t *testing.T, p *time.Duration, d time.Duration) {
	old := *p
	*p = d
	t.Cleanup(func() { *p = old })
}

// freeze makes every publisher write block, as on a frozen file system,
// until the test ends. It returns a channel closed at the first blocked
// write.
func freeze(t *testing.T) <-chan struct{} {
	return freezeAt(t, testhook.PublishWrite)
}

// freezeAt blocks everything that reaches the testhook point at until the
// test ends. It returns a channel closed when the first one arrives.
func freezeAt(t *testing.T, at string) <-chan struct{} {
	thaw := make(chan struct{})
	blocked := make(chan struct{})
	var once sync.Once
	restore := testhook.Set(func(point, _ string) {
		if point == at {
			once.Do(func() { close(blocked) })
			<-thaw
		}
	})
	t.Cleanup(func() { close(thaw); restore() })
	return blocked
}

// SPEC.md H10: a set that cannot get the write lock within its wait says
// on stderr, in one line, that the update was not applied: exit 0, or 1
// with --strict (never 2). The record is left alone.
func TestSetGivesUpOnAHeldLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent-status")
	if code, _, stderr := runCmd(nil, nil, "set", "--dir", dir, "--session", "l", "--pid", "0", "--state", "idle"); code != 0 || stderr != "" {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	lock, _, _ := hooksession.Names(statusfile.FileName("l"))
	defer flockFile(t, filepath.Join(dir, lock)).Close()
	setWait(t, &hooksession.LockWait, 200*time.Millisecond)
	for _, strict := range []bool{false, true} {
		args := []string{"set", "--dir", dir, "--session", "l", "--pid", "0", "--state", "working"}
		want := 0
		if strict {
			args, want = append(args, "--strict"), 1
		}
		code, _, stderr := runCmd(nil, nil, args...)
		if code != want || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "update not applied") || !strings.Contains(stderr, "lock") {
			t.Errorf("strict %v: exit %d, stderr %q", strict, code, stderr)
		}
	}
	if rec, _ := statustest.Read(t, dir, "l"); rec.State != statusfile.Idle {
		t.Errorf("record changed to %s without the lock", rec.State)
	}
}

// SPEC.md H11: on a frozen file system, set, clear and the hook adapters
// still exit on SIGTERM, and say that the update may not be on disk.
func TestUpdateExitsOnSignalWhileWritesHang(t *testing.T) {
	dir := filepath.Join(tempDir(t), "agent-status")
	payload := `{"session_id":"g","hook_event_name":"Stop","cwd":"/"}`
	for _, args := range [][]string{
		{"set", "--dir", dir, "--session", "f", "--pid", "0", "--state", "working"},
		{"claude-hook", "--dir", dir, "--pid", "0"},
	} {
		t.Run(args[0], func(t *testing.T) {
			blocked := freeze(t)
			signals := make(chan os.Signal, 1)
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := runCmd(signals, strings.NewReader(payload), args...)
				done <- result{code, stderr}
			}()
			select {
			case <-blocked:
			case r := <-done:
				t.Fatalf("finished without writing: %+v", r)
			case <-time.After(10 * time.Second):
				t.Fatal("no write started")
			}
			signals <- syscall.SIGTERM
			select {
			case r := <-done:
				if r.code != 0 || !strings.Contains(r.stderr, "interrupted") || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("exit %d, stderr %q", r.code, r.stderr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still running 10 s after SIGTERM")
			}
		})
	}
}

// SPEC.md P13: serve answers every line within a bounded wait while the
// file system is frozen, and exits on SIGTERM.
func TestServeAnswersWhileWritesHang(t *testing.T) {
	home := tempDir(t)
	setWait(t, &serveFlushWait, 100*time.Millisecond)
	setWait(t, &serveCloseWait, 100*time.Millisecond)
	freeze(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	signals := make(chan os.Signal, 1)
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- Run([]string{"serve", "--config-home", home, "--session", "z", "--pid", "1"},
			base.Env{Stdin: inR, Stdout: outW, Stderr: &stderr, Getenv: func(string) string { return "" }, Signals: fakeSignals(signals)})
		outW.Close()
	}()
	lines := make(chan string, 10)
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(lines)
				return
			}
			b, _ := json.Marshal(m)
			lines <- string(b)
		}
	}()
	for i := range 3 {
		go io.WriteString(inW, `{"state":"working","title":"step"}`+"\n")
		select {
		case l := <-lines:
			if !strings.Contains(l, `"ok":false`) || !strings.Contains(l, "frozen") {
				t.Errorf("answer %d: %s", i, l)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to line %d within 10 s", i)
		}
	}
	signals <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve still running 10 s after SIGTERM")
	}
	inW.Close()
}

// SPEC.md H12: of two updates of one session, the one started last wins
// each field it sets, whichever takes the lock first; the older one still
// sets the fields the newer one leaves alone. The older update is paused
// between its start and the lock so that the newer one overtakes it.
func TestUpdateStartedLastWins(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	defer setUnderOwner(t, dir, "o", "--state", "idle", "--title", "first")()
	overtaken := make(chan struct{})
	issued, restore := pauseFirstUpdate(overtaken)
	defer restore()
	older := make(chan string, 1)
	go func() {
		_, _, stderr := runCmd(nil, nil, "set", "--dir", dir, "--session", "o", "--pid", "0", "--state", "blocked", "--title", "older")
		older <- stderr
	}()
	<-issued
	if code, _, stderr := runCmd(nil, nil, "set", "--dir", dir, "--session", "o", "--pid", "0", "--title", "newer"); code != 0 || stderr != "" {
		t.Fatalf("newer: exit %d, %s", code, stderr)
	}
	close(overtaken)
	if stderr := <-older; stderr != "" {
		t.Fatalf("older: %s", stderr)
	}
	rec, _ := statustest.Read(t, dir, "o")
	if rec.Title != "newer" || rec.State != statusfile.Blocked {
		t.Errorf("record %q %q, want title newer (the newer update) and state blocked (set by the older one only)", rec.Title, rec.State)
	}
}

// A clear wins over an update started before it: the session stays ended.
func TestUpdateStartedBeforeClearStaysCleared(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	defer setUnderOwner(t, dir, "c", "--state", "working")()
	cleared := make(chan struct{})
	issued, restore := pauseFirstUpdate(cleared)
	defer restore()
	done := make(chan struct{})
	go func() {
		runCmd(nil, nil, "set", "--dir", dir, "--session", "c", "--pid", "0", "--state", "blocked")
		close(done)
	}()
	<-issued
	if code, _, stderr := runCmd(nil, nil, "clear", "--dir", dir, "--session", "c"); code != 0 || stderr != "" {
		t.Fatalf("clear: exit %d, %s", code, stderr)
	}
	close(cleared)
	<-done
	if rec, ok := statustest.Read(t, dir, "c"); ok {
		t.Errorf("an update started before the clear brought the record back: %+v", rec)
	}
}

// flockFile takes an exclusive flock on path, made if need be, as a
// heartbeat takes its record's write lock; closing the returned file
// releases it.
func flockFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f
}

// FlockFile is flockFile for the package's external tests.
var FlockFile = flockFile

// setUnderOwner sets session's record (--pid 0 and flags) and plays its
// heartbeat owner by holding the owner lock until the returned function is
// called: the update stamps live in the write lock file, which stays only
// while an owner runs.
func setUnderOwner(t *testing.T, dir, session string, flags ...string) (release func()) {
	t.Helper()
	args := append([]string{"set", "--dir", dir, "--session", session, "--pid", "0"}, flags...)
	if code, _, stderr := runCmd(nil, nil, args...); code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	_, ownerName, _ := hooksession.Names(statusfile.FileName(session))
	return holdRecordLock(t, filepath.Join(dir, ownerName))
}

// pauseFirstUpdate stops the first update that reaches
// testhook.UpdateIssued (between its start and the lock) there until
// resume is closed; issued is closed when it arrives. Later updates pass.
func pauseFirstUpdate(resume <-chan struct{}) (issued <-chan struct{}, restore func()) {
	arrived := make(chan struct{})
	var first atomic.Bool
	restore = testhook.Set(func(point, _ string) {
		if point == testhook.UpdateIssued && first.CompareAndSwap(false, true) {
			close(arrived)
			<-resume
		}
	})
	return arrived, restore
}

// holdRecordLock makes another process hold a POSIX record lock on path
// (as a heartbeat owner holds its lock: such locks belong to processes,
// so this one cannot play the owner itself) until the returned function
// is called.
func holdRecordLock(t *testing.T, path string) func() {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", `import fcntl,sys,time
f=open(sys.argv[1],"r+"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(60)`, path)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skip("python3:", err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "locked" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skipf("python3 did not lock: %q %v", buf, err)
	}
	return func() { cmd.Process.Kill(); cmd.Wait() }
}

// SPEC.md H11: a hook adapter stopped while it waits for its input (an
// agent that never closes the pipe, `sleep 20 | statuspub claude-hook`)
// exits on the signal as H7 says, instead of reading on.
func TestHookSignalWhileReadingStdin(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claude-hook", "codex-hook", "gemini-hook"} {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/strict=%v", name, strict), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "agent-status")
				args := []string{name, "--dir", dir, "--pid", "0"}
				want := 0
				if strict {
					args = append(args, "--strict")
					want = 1
				}
				stdin, w := io.Pipe() // written never, closed at the end
				t.Cleanup(func() { w.Close() })
				signals := make(chan os.Signal, 1)
				signals <- syscall.SIGTERM
				type result struct {
					code           int
					stdout, stderr string
				}
				done := make(chan result, 1)
				go func() {
					code, stdout, stderr := runCmd(signals, stdin, args...)
					done <- result{code, stdout, stderr}
				}()
				select {
				case r := <-done:
					if r.code != want || r.stdout != "" || !strings.Contains(r.stderr, "interrupted") || strings.Count(r.stderr, "\n") != 1 {
						t.Errorf("exit %d (want %d), stdout %q, stderr %q", r.code, want, r.stdout, r.stderr)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("still reading stdin 10 s after SIGTERM")
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("the status directory was created: %v", err)
				}
			})
		}
	}
}

// install stops on a signal even while it replaces a settings file on a
// file system that hangs: Main catches the signals for every command, so a
// command that does not wait for them would swallow them.
func TestInstallSignalWhileWriteHangs(t *testing.T) {
	home := tempDir(t)
	// Cleanups run last first: the write is let go (freezeAt's), then it
	// is waited for here, then home is removed (tempDir's). Removed any
	// sooner, home came back with the settings the write made.
	t.Cleanup(func() {
		settings := filepath.Join(home, ".claude", "settings.json")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(settings); err == nil {
				return
			}
		}
		t.Errorf("the write let go after the test wrote no %s", settings)
	})
	blocked := freezeAt(t, testhook.InstallApply)
	signals := make(chan os.Signal, 1)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run([]string{"install", "claude"}, base.Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Signals: fakeSignals(signals)})
	}()
	select {
	case <-blocked:
	case code := <-done:
		t.Fatalf("finished without writing: exit %d, stderr %q", code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("no write started")
	}
	signals <- syscall.SIGINT
	select {
	case code := <-done:
		if code != base.ExitError || !strings.HasPrefix(stderr.String(), "statuspub: install: interrupted") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after SIGINT")
	}
}
