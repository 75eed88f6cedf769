//go:build unix

package remote

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/watch"
)

// TestWatchHostileStream: a stream that breaks the rules is dropped with
// host-offline (its kind says why), and what it sent before stays sane.
func TestWatchHostileStream(t *testing.T) {
	esc := strings.Replace(eventLine("added", "s2"), `"title":"t"`, `"title":"\u001b]52;c;cm0gLXJmIH4=\u0007x\u001b[2J"`, 1)
	for _, tc := range []struct {
		name   string
		stream string
		kind   string
	}{
		{"invalid JSON", eventLine("snapshot", "s1") + "\n" + `{"event":"synced"` + "\n", kindOutput},
		{"huge line", eventLine("snapshot", "s1") + "\n" + strings.Repeat("A", maxLineBytes+1) + "\n", kindOutput},
		{"events before synced", eventLine("added", "s1") + "\n", kindOutput},
		{"older statusls", strings.Replace(eventLine("snapshot", "s1"), `,"verdict":"fresh"`, "", 1) + "\n", kindVersion},
		{"escapes in a title", eventLine("synced", "") + "\n" + esc + "\n", kindSSH},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{SSH: fakeSSH(t, tc.stream, "", 0)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := collect(t, Watch(ctx, backoff(cfg, time.Hour, 0), []string{"h"}))
			c.until(t, func(es []Event) bool { return count(es, "h", hostOffline) == 1 && count(es, "h", watch.Synced) == 1 })
			off := find(c.all(), "h", hostOffline, "")
			if off.HostErr.Kind != tc.kind {
				t.Errorf("kind %s (%s), want %s", off.HostErr.Kind, off.HostErr.Msg, tc.kind)
			}
			for _, ev := range c.all() {
				if ev.After != nil {
					line := string(render.AppendJSON(nil, ev.After))
					if strings.ContainsAny(line, "\x1b\x07") || strings.Contains(ev.After.Status.Title, "]52") {
						t.Errorf("unsanitized: %s", line)
					}
				}
			}
			cancel()
			c.wait(t)
		})
	}
}

// TestWatchHangingHost: a host that never sends its snapshot goes offline
// after the timeout, and the others' synced is not held back for long.
func TestWatchHangingHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "ssh")
	testbin.WriteProgram(t, p, "#!/bin/sh\nexec sleep 60\n")
	cfg := &Config{SSH: p, Timeout: 300 * time.Millisecond}
	// x(y passes hostname.Check; the hint's command line must quote it.
	const host = "x(y"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := collect(t, Watch(ctx, backoff(cfg, time.Hour, 0), []string{host}))
	c.until(t, func(es []Event) bool { return count(es, host, watch.Synced) == 1 })
	if off := find(c.all(), host, hostOffline, ""); off == nil || off.HostErr.Kind != kindTimeout {
		t.Errorf("got %+v", c.all())
	} else if want := `"ssh 'x(y' statusls"`; !strings.Contains(off.HostErr.Hint, want) {
		t.Errorf("hint %q does not hold %s", off.HostErr.Hint, want)
	}
	cancel()
	c.wait(t)
}

// TestWatchOfflineStale: while a host is offline, a session it held goes
// stale when its record passes the 30 s line, as judged by the age the
// host sent (not by comparing the two clocks).
func TestWatchOfflineStale(t *testing.T) {
	t.Parallel()
	old := strings.Replace(eventLine("snapshot", "s1"), `"age":1`, `"age":29.7`, 1)
	young := eventLine("snapshot", "s2")
	if !strings.Contains(old, `"age":29.7`) {
		t.Fatalf("no age in %s", old)
	}
	cfg := &Config{SSH: fakeSSH(t, old+"\n"+young+"\n"+eventLine("synced", "")+"\n", "", 0)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := collect(t, Watch(ctx, backoff(cfg, time.Hour, 0), []string{"h"}))
	c.until(t, func(es []Event) bool { return find(es, "h", watch.Stale, "s1") != nil })
	ev := find(c.all(), "h", watch.Stale, "s1")
	if ev.After.Verdict != "stale" || ev.Before.Verdict != "fresh" || ev.After.Age < 30*time.Second {
		t.Errorf("stale event: %+v -> %+v", ev.Before, ev.After)
	}
	if count(c.all(), "h", hostOffline) != 1 {
		t.Errorf("no host-offline before it")
	}
	if find(c.all(), "h", watch.Stale, "s2") != nil {
		t.Error("a session 1 s old went stale at once")
	}
	cancel()
	c.wait(t)
}
