//go:build unix

package statusls

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/statusfile"
)

// patience bounds every wait for something that must happen.
const patience = 15 * time.Second

// cmdRun is statusls running in the background (watch, wait), with a fake
// clock, captured streams, signals delivered by the test, and a terminal
// the test describes.
type cmdRun struct {
	t              *testing.T
	clock          *clocktest.Fake
	stdout, stderr testbin.Buffer
	subscribed     chan chan<- os.Signal
	sigC           chan<- os.Signal
	code           chan int
	exited         *int
	width          atomic.Int64
}

type cmdOpts struct {
	terminal bool
	width    int
	rows     int
	env      map[string]string // what Getenv sees
	environ  []string          // added to the environment commands get
	// execGrace is watch --exec's grace at exit; 0 means the default.
	execGrace time.Duration
}

// start runs statusls args in the background. A command still running at
// the end of the test gets SIGTERM.
func start(t *testing.T, clock *clocktest.Fake, o cmdOpts, args ...string) *cmdRun {
	t.Helper()
	r := &cmdRun{t: t, clock: clock, subscribed: make(chan chan<- os.Signal, 1), code: make(chan int, 1)}
	r.width.Store(int64(o.width))
	environ := append(append(os.Environ(), "STATUS_TITLE=inherited, must not reach the command"), o.environ...)
	env := &cmdEnv{execGrace: o.execGrace, Env: base.Env{
		Stdout:   &r.stdout,
		Stderr:   &r.stderr,
		Getenv:   func(k string) string { return o.env[k] },
		Environ:  func() []string { return environ },
		Clock:    clock,
		Terminal: func() (bool, int) { return o.terminal, int(r.width.Load()) },
		Rows:     func() int { return o.rows },
		Signals: func(c chan<- os.Signal, sig ...os.Signal) func() {
			r.subscribed <- c
			return func() {}
		},
	}}
	go func() { r.code <- runEnv(args, env) }()
	t.Cleanup(func() {
		if !r.running() {
			return
		}
		if r.sigC == nil {
			select {
			case r.sigC = <-r.subscribed:
			default:
				return // wait: it ends with the test's directory
			}
		}
		r.signal(syscall.SIGTERM)
		r.exit()
	})
	return r
}

// signal delivers sig to the command, as the system would.
func (r *cmdRun) signal(sig os.Signal) {
	r.t.Helper()
	if r.sigC == nil {
		select {
		case r.sigC = <-r.subscribed:
		case <-time.After(patience):
			r.t.Fatal("the command did not subscribe to signals")
		}
	}
	r.sigC <- sig
}

// exit waits for the command's exit status.
func (r *cmdRun) exit() int {
	r.t.Helper()
	if r.exited != nil {
		return *r.exited
	}
	select {
	case code := <-r.code:
		r.exited = &code
		return code
	case <-time.After(patience):
		r.t.Fatalf("the command did not exit\nstdout:\n%s\nstderr:\n%s", r.stdout.String(), r.stderr.String())
	}
	return -1
}

// running reports whether the command has not exited yet.
func (r *cmdRun) running() bool {
	if r.exited != nil {
		return false
	}
	select {
	case code := <-r.code:
		r.exited = &code
		return false
	default:
		return true
	}
}

// waitOut waits until stdout satisfies ok, and returns it.
func (r *cmdRun) waitOut(what string, ok func(string) bool) string {
	r.t.Helper()
	var out string
	poll(r.t, what, func() bool { out = r.stdout.String(); return ok(out) }, func() string {
		return "stdout:\n" + r.stdout.String() + "\nstderr:\n" + r.stderr.String()
	})
	return out
}

// waitLine waits until stdout has a line containing every one of subs.
func (r *cmdRun) waitLine(subs ...string) {
	r.t.Helper()
	r.waitOut(strings.Join(subs, " "), func(out string) bool {
		for _, l := range strings.Split(out, "\n") {
			all := true
			for _, s := range subs {
				all = all && strings.Contains(l, s)
			}
			if all {
				return true
			}
		}
		return false
	})
}

// poll waits for cond, failing with what (and, if given, details) after
// a generous deadline.
func poll(t *testing.T, what string, cond func() bool, details func() string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			msg := ""
			if details != nil {
				msg = "\n" + details()
			}
			t.Fatalf("%s: not within %v%s", what, patience, msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitSynced waits until the watcher under the command has listed the
// directory: it arms its rescan timer then, at clock time + 30 s.
func waitSynced(t *testing.T, clock *clocktest.Fake) {
	t.Helper()
	if !clock.WaitTimer(clock.Now().Add(30*time.Second), patience) {
		t.Fatal("the watcher did not list the directory")
	}
}

// waitStaleTimer waits until the watcher has armed its staleness timer
// for a moment no later than by: records updated at by-30s go stale then.
// (It may be armed earlier, for a record that has since been rewritten.)
// The rescan timer, at start+30s exactly, does not count.
func waitStaleTimer(t *testing.T, clock *clocktest.Fake, start, by time.Time) {
	t.Helper()
	ok := clock.WaitUntil(func(armed []time.Time) bool {
		for _, a := range armed {
			if !a.After(by) && !a.Equal(start.Add(30*time.Second)) {
				return true
			}
		}
		return false
	}, patience)
	if !ok {
		t.Fatalf("no staleness timer by %v: %v", by, clock.Armed())
	}
}

// put publishes rec atomically, as publishers do.
func put(t *testing.T, dir string, rec statusfile.Status) {
	t.Helper()
	if _, err := statusfile.WriteFile(dir, rec); err != nil {
		t.Fatal(err)
	}
}

// putRaw replaces the file name with data atomically.
func putRaw(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	tmp := filepath.Join(dir, ".tmp-"+name)
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, session string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, statusfile.FileName(session))); err != nil {
		t.Fatal(err)
	}
}

// events parses NDJSON.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("not NDJSON: %v\n%s", err, out)
		}
		evs = append(evs, m)
	}
	return evs
}

// kinds sums events up as "event:session" strings.
func kinds(evs []map[string]any) []string {
	var out []string
	for _, e := range evs {
		s, _ := e["session"].(string)
		k := e["event"].(string)
		if s != "" {
			k += ":" + s
		}
		if r, ok := e["reason"].(string); ok && k[:7] == "removed" {
			k += "(" + r + ")"
		}
		out = append(out, k)
	}
	return out
}
