//go:build unix

package remote

import (
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/watch"
)

// patience bounds every wait for something that must happen.
const patience = 30 * time.Second

// collector gathers a watch's events as they come.
type collector struct {
	mu   sync.Mutex
	evs  []Event
	done chan struct{}
}

func collect(t *testing.T, ch <-chan Event) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ev := range ch {
			c.mu.Lock()
			c.evs = append(c.evs, ev)
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *collector) all() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.evs...)
}

// until polls until ok holds, with a generous deadline.
func (c *collector) until(t *testing.T, ok func([]Event) bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !ok(c.all()) {
		if time.Now().After(deadline) {
			for _, ev := range c.all() {
				t.Logf("%s %s %s %s %v", ev.Host, ev.Kind, ev.Session, ev.Reason, ev.Err)
			}
			t.Fatal("the expected events did not come")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for the channel to close.
func (c *collector) wait(t *testing.T) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(patience):
		t.Fatal("the watch did not end")
	}
}

func count(es []Event, host string, kind watch.Kind) int {
	n := 0
	for _, ev := range es {
		if ev.Kind == kind && (host == "" || ev.Host == host) {
			n++
		}
	}
	return n
}

func find(es []Event, host string, kind watch.Kind, session string) *Event {
	for i := range es {
		if es[i].Host == host && es[i].Kind == kind && (session == "" || es[i].Session == session) {
			return &es[i]
		}
	}
	return nil
}

func killPID(t *testing.T, s string) {
	t.Helper()
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 1 {
		t.Fatalf("bad pid %q", s)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

func exitMaster(t *testing.T, ssh string, args []string) {
	t.Helper()
	if out, err := exec.Command(ssh, args...).CombinedOutput(); err != nil {
		t.Errorf("ssh -O exit: %v: %s", err, out)
	}
}
