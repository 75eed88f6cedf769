//go:build unix

package remote

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/sshtest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// fleet is a real sshd with the hosts alpha and beta (each with its own
// status directory), nostatusls (no statusls on its $PATH) and down
// (nothing listens).
type fleet struct {
	srv         *sshtest.Server
	alpha, beta string // status directories
	cfg         *Config
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	f := &fleet{}
	f.alpha = sshtest.StatusDir(t, "a")
	f.beta = sshtest.StatusDir(t, "b")
	f.srv = sshtest.Start(t,
		sshtest.Host{Name: "alpha", StatusDir: f.alpha},
		sshtest.Host{Name: "beta", StatusDir: f.beta},
		sshtest.Host{Name: "nostatusls", StatusDir: f.alpha, NoStatusls: true},
		sshtest.Host{Name: "down", Down: true},
	)
	f.cfg = &Config{SSH: sshtest.SSH(), SSHArgs: []string{"-F", f.srv.Config}, Timeout: patience}
	return f
}

func TestListOverSSH(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "on alpha")
	sshtest.Publish(t, f.alpha, "a2", "blocked", "\x1b[31mneeds you\x1b[0m")
	sshtest.Publish(t, f.beta, "b1", "idle", "on beta")

	res := List(context.Background(), f.cfg, []string{"alpha", "beta", "nostatusls", "down"})
	sessions := func(r Result) string {
		var s []string
		for _, e := range r.Entries {
			s = append(s, e.Status.Session+"="+string(e.Status.State)+":"+e.Status.Title)
		}
		return strings.Join(s, ",")
	}
	if r := res[0]; r.Err != nil || sessions(r) != "a1=working:on alpha,a2=blocked:needs you" && sessions(r) != "a2=blocked:needs you,a1=working:on alpha" {
		t.Errorf("alpha: %v %q", r.Err, sessions(r))
	}
	if r := res[1]; r.Err != nil || sessions(r) != "b1=idle:on beta" {
		t.Errorf("beta: %v %q", r.Err, sessions(r))
	}
	if r := res[2]; r.Err == nil || r.Err.Kind != kindMissing {
		t.Errorf("nostatusls: %+v", r.Err)
	}
	if r := res[3]; r.Err == nil || r.Err.Kind != kindSSH {
		t.Errorf("down: %+v", r.Err)
	}
	for _, e := range res[0].Entries {
		if e.Verdict != reader.Fresh || e.Alive != reader.Alive {
			t.Errorf("%s: verdict %s alive %s", e.Status.Session, e.Verdict, e.Alive)
		}
	}
}

func TestListConnectionReuse(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "x")
	cm := filepath.Join(f.srv.Dir, "cm")
	if err := prepareControlDir(cm); err != nil {
		t.Fatal(err)
	}
	f.cfg.Reuse, f.cfg.ControlDir, f.cfg.ControlPersist = true, cm, 5*time.Second
	for i := range 2 {
		r := List(context.Background(), f.cfg, []string{"alpha"})[0]
		if r.Err != nil || len(r.Entries) != 1 {
			t.Fatalf("listing %d: %v %v", i, r.Err, r.Entries)
		}
	}
	socks, _ := os.ReadDir(cm)
	if len(socks) != 1 {
		t.Fatalf("want one shared connection's socket in %s, got %d", cm, len(socks))
	}
	// Stop the master (ssh -O exit), as a user would.
	args, _ := f.cfg.args("alpha", nil)
	args = append(args[:len(args)-3], "-O", "exit", "alpha")
	exitMaster(t, f.cfg.ssh(), args)
}

func TestWatchOverSSH(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "x")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evs := Watch(ctx, backoff(f.cfg, 50*time.Millisecond, 200*time.Millisecond), []string{"alpha", "beta", "down"})
	c := collect(t, evs)
	c.until(t, func(es []Event) bool { return count(es, "", watch.Synced) == 3 })
	if n := count(c.all(), "alpha", watch.Snapshot); n != 1 {
		t.Errorf("alpha: %d snapshot events", n)
	}
	if n := count(c.all(), "down", hostOffline); n != 1 {
		t.Errorf("down: %d host-offline events", n)
	}
	sshtest.Publish(t, f.beta, "b1", "blocked", "needs you")
	c.until(t, func(es []Event) bool { return find(es, "beta", watch.Added, "b1") != nil })
	sshtest.Publish(t, f.beta, "b1", "idle", "done")
	c.until(t, func(es []Event) bool {
		ev := find(es, "beta", watch.Updated, "b1")
		return ev != nil && ev.After.Status.State == "idle"
	})
	statusfile.RemoveFile(f.beta, "b1")
	c.until(t, func(es []Event) bool { return find(es, "beta", watch.Removed, "b1") != nil })
	if runtime.GOOS != "linux" {
		cancel()
		c.wait(t)
		return
	}
	if n := remoteWatches(f.beta); n != 1 {
		t.Fatalf("%d statusls watch processes for beta, want 1", n)
	}
	cancel()
	c.wait(t)
	// The remote statusls watch ends with the stream, however quiet.
	deadline := time.Now().Add(patience)
	for remoteWatches(f.beta) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the remote statusls watch outlived the watch")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// remoteWatches counts the statusls watch processes of a status directory
// (Linux: their environment in /proc).
func remoteWatches(dir string) int {
	n := 0
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		cmd, err := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "statusls\x00watch") {
			continue
		}
		env, _ := os.ReadFile("/proc/" + p.Name() + "/environ")
		if strings.Contains(string(env), "STATUS_DIR="+dir+"\x00") {
			n++
		}
	}
	return n
}

// TestWatchReconnect drops alpha's stream mid-watch, changes its sessions
// while it is away, and checks that its return sends exactly the changes.
func TestWatchReconnect(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	// statusls on alpha through a wrapper that records its pid, and fails
	// while the marker exists (the host is "down").
	state := t.TempDir()
	wrapper := filepath.Join(state, "statusls-wrap")
	testbin.WriteProgram(t, wrapper, "#!/bin/sh\n[ -e "+state+"/down ] && exit 3\necho $$ > "+state+"/pid\nexec statusls \"$@\"\n")
	f.cfg.Command = wrapper

	sshtest.Publish(t, f.alpha, "stays", "working", "same")
	sshtest.Publish(t, f.alpha, "goes", "working", "x")
	sshtest.Publish(t, f.alpha, "changes", "working", "before")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evs := Watch(ctx, backoff(f.cfg, 50*time.Millisecond, 100*time.Millisecond), []string{"alpha"})
	c := collect(t, evs)
	c.until(t, func(es []Event) bool { return count(es, "", watch.Synced) == 1 })

	os.WriteFile(state+"/down", nil, 0o600)
	pidText, _ := os.ReadFile(state + "/pid")
	killPID(t, strings.TrimSpace(string(pidText)))
	c.until(t, func(es []Event) bool { return count(es, "alpha", hostOffline) == 1 })
	mark := len(c.all())

	statusfile.RemoveFile(f.alpha, "goes")
	sshtest.Publish(t, f.alpha, "changes", "blocked", "after")
	sshtest.Publish(t, f.alpha, "new", "idle", "hello")
	os.Remove(state + "/down")
	c.until(t, func(es []Event) bool { return count(es, "alpha", hostOnline) == 1 })

	var got []string
	for _, ev := range c.all()[mark:] {
		s := string(ev.Kind)
		if ev.Name != "" {
			s += " " + ev.Session
		}
		if ev.Reason != "" {
			s += " (" + string(ev.Reason) + ")"
		}
		got = append(got, s)
	}
	// In file-name order (the sha-256 of the session ids), then host-online.
	want := map[string]bool{"removed goes (while-offline)": true, "updated changes": true, "added new": true}
	for _, g := range got[:len(got)-1] {
		if !want[g] {
			t.Errorf("unexpected event after reconnecting: %q (all: %q)", g, got)
		}
		delete(want, g)
	}
	if len(want) != 0 || got[len(got)-1] != "host-online" {
		t.Errorf("after reconnecting: %q; missing %v", got, want)
	}
	if n := count(c.all(), "alpha", hostOffline); n != 1 {
		t.Errorf("%d host-offline events for one outage", n)
	}
	cancel()
	c.wait(t)
}

func TestWatchHostWithoutStatusls(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := collect(t, Watch(ctx, backoff(f.cfg, time.Hour, 0), []string{"nostatusls"}))
	c.until(t, func(es []Event) bool { return count(es, "", watch.Synced) == 1 })
	ev := find(c.all(), "nostatusls", hostOffline, "")
	if ev == nil || ev.HostErr.Kind != kindMissing {
		t.Errorf("got %+v", c.all())
	}
	cancel()
	c.wait(t)
}
