package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// Event kinds about hosts, beside those of package watch; see [Event].
const (
	hostOffline watch.Kind = "host-offline"
	hostOnline  watch.Kind = "host-online"
)

// reasonOffline is the reason of a Removed event for a session that went
// away while its host was offline (found when it came back).
const reasonOffline = "while-offline"

// Event is one event of a [Watch]: an event of the host's directory, as
// package watch describes them, or one of two kinds about the host itself:
//
//   - "host-offline": the host's stream ended or could not start; HostErr
//     says why. Its sessions stay as last shown, each until it passes the
//     30 s line (then Stale); the watch retries with backoff.
//   - "host-online": the host is back, and the changes while it was away
//     have been sent (as Added, Updated, Stale, Fresh and Removed events).
type Event struct {
	Host string
	watch.Event
	// HostErr says why a host went offline ("host-offline").
	HostErr *HostError
}

// Remote options of a watch: ssh notices a dead connection within 15 s.
var watchSSHOptions = []string{"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"}

// Watch follows every host (statusls watch --json --all there) and merges
// their events into one channel, each with its host. Every host first
// sends its snapshot and one Synced, also when it cannot be reached
// ("host-offline" comes first then). A stream that ends is reported with
// "host-offline" and restarted with backoff; when it is back, its new snapshot
// is compared with what was sent, so that the events always describe the
// host's sessions: no duplicate, nothing left behind. The channel is closed
// once ctx is done and every ssh has exited.
//
// cfg's Heartbeats, MinBackoff, MaxBackoff and Clock shape the watch.
func Watch(ctx context.Context, cfg *Config, hosts []string) <-chan Event {
	c := *cfg
	c.MinBackoff, c.MaxBackoff = orDefault(c.MinBackoff, time.Second), orDefault(c.MaxBackoff, 30*time.Second)
	c.Clock = cmp.Or(c.Clock, clock.System)
	out := make(chan Event, 256)
	var wg sync.WaitGroup
	for _, h := range hosts {
		hw := &hostWatch{cfg: &c, host: h, out: out, known: map[string]sent{}}
		wg.Go(func() { hw.run(ctx) })
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

// hostWatch follows one host.
type hostWatch struct {
	cfg     *Config // backoffs and clock filled in
	host    string
	out     chan<- Event
	known   map[string]sent // what was sent, by file name
	synced  bool            // Synced was sent
	offline bool            // host-offline was sent, host-online not yet

	gotSnapshot atomic.Bool // this stream's synced came
}

func (h *hostWatch) emit(ctx context.Context, ev Event) bool {
	ev.Host = h.host
	ev.At = h.cfg.Clock.Now()
	if ev.After != nil {
		ev.Session = ev.After.Status.Session
	} else if ev.Before != nil {
		ev.Session = ev.Before.Status.Session
	}
	select {
	case h.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func (h *hostWatch) run(ctx context.Context) {
	backoff := h.cfg.MinBackoff
	for {
		online, herr := h.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if !h.offline {
			// Once per outage: the retries that fail are not news.
			h.offline = true
			if !h.emit(ctx, Event{Event: watch.Event{Kind: hostOffline, Err: herr}, HostErr: herr}) {
				return
			}
		}
		if !h.synced {
			h.synced = true
			if !h.emit(ctx, Event{Event: watch.Event{Kind: watch.Synced}}) {
				return
			}
		}
		if online {
			backoff = h.cfg.MinBackoff
		}
		if !h.sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, h.cfg.MaxBackoff)
	}
}

// sent is an entry as it was sent, and when it goes stale if it is fresh
// (zero otherwise): the host judged its age when it sent it, on its own
// clock, so the line is drawn on this clock without trusting the two to
// agree.
type sent struct {
	e       *reader.Entry
	staleAt time.Time
}

func (h *hostWatch) remember(e *reader.Entry) {
	k := sent{e: e}
	if e.Verdict == reader.Fresh {
		k.staleAt = time.Now().Add(statusfile.StaleAfter - e.Age + time.Millisecond)
	}
	h.known[e.Name] = k
}

// sleep waits d while the host is offline; the sessions it holds that pass
// the 30 s line meanwhile are sent as Stale (their publishers may well have
// gone with the host), so that nothing is shown fresh that the host would
// not show. It returns false when ctx is done.
func (h *hostWatch) sleep(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		now, wake := time.Now(), deadline
		var names []string // the sessions due, the others' next line
		for n, k := range h.known {
			switch {
			case k.staleAt.IsZero():
			case !k.staleAt.After(now):
				names = append(names, n)
			case k.staleAt.Before(wake):
				wake = k.staleAt
			}
		}
		slices.Sort(names)
		for _, n := range names {
			after := *h.known[n].e
			after.Verdict = reader.Stale
			after.Age = now.Sub(h.known[n].staleAt) + statusfile.StaleAfter
			if !h.apply(ctx, n, &after, watch.Stale, "") {
				return false
			}
		}
		if !now.Before(deadline) {
			return true
		}
		t := time.NewTimer(time.Until(wake))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// session runs one ssh stream until it ends. online says whether it got as
// far as the host's snapshot.
func (h *hostWatch) session(ctx context.Context) (online bool, herr *HostError) {
	// --until-eof: the remote watch ends when this side goes away (sshd
	// closes its input then), not at its next write, which may be hours
	// away.
	// --heartbeats: every record's latest updatedAt is known here, so that
	// its staleness can be told while the host is offline.
	remote := []string{"watch", "--json", "--all", "--until-eof", "--heartbeats"}
	args, he := h.cfg.args(h.host, remote, watchSSHOptions...)
	if he != nil {
		return false, he
	}
	h.gotSnapshot.Store(false)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd, stdout, stderr, he := h.cfg.start(sctx, h.host, args, true)
	if he != nil {
		return false, he
	}
	// A host that connects but never sends its snapshot must not hold the
	// merged stream's synced back: it has cfg.Timeout to do so.
	var hung atomic.Bool
	syncTimer := time.AfterFunc(h.cfg.timeout(), func() {
		if !h.gotSnapshot.Load() {
			hung.Store(true)
			cancel()
		}
	})
	online, derr := h.read(ctx, stdout)
	syncTimer.Stop()
	cancel()
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return online, nil
	}
	if derr != nil && errors.Is(derr, io.EOF) {
		derr = nil
	}
	// The stream was cancelled by us only when derr is set.
	if hung.Load() {
		return false, &HostError{Host: sanitizeHost(h.host), Kind: kindTimeout, Msg: "no snapshot within " + h.cfg.timeout().String(),
			Hint: "check that " + shquote.Hint("ssh "+hostWord(h.host)+" statusls") + " answers; a slow host needs a longer --host-timeout"}
	}
	if derr != nil {
		he = classify(h.host, context.Background(), nil, nil, derr)
	} else {
		he = classify(h.host, context.Background(), werr, stderr.b, nil)
	}
	if he == nil {
		he = &HostError{Host: sanitizeHost(h.host), Kind: kindSSH, Msg: "the stream ended"}
	}
	return online, he
}

// read takes in the host's stream until it ends or breaks a rule.
func (h *hostWatch) read(ctx context.Context, r io.Reader) (online bool, err error) {
	lr := newLineReader(r, maxLineBytes)
	pending := map[string]*reader.Entry{} // the snapshot, until synced
	synced := false
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			return synced, io.EOF
		}
		if err != nil {
			return synced, listErr(err, "")
		}
		w, err := decodeObject(line)
		if err != nil {
			return synced, err
		}
		if w.Event == nil {
			return synced, fmt.Errorf("%w: an object without an event", errProtocol)
		}
		kind := watch.Kind(*w.Event)
		switch kind {
		case watch.Synced:
			if synced {
				return synced, fmt.Errorf("%w: a second synced", errProtocol)
			}
			synced = true
			h.gotSnapshot.Store(true)
			if !h.resync(ctx, pending, w.Missing != nil && *w.Missing) {
				return synced, ctx.Err()
			}
			pending = nil
			continue
		case watch.Error:
			msg := "error"
			if w.Error != nil {
				msg = statusfile.SanitizeText(*w.Error)
			}
			if !h.emit(ctx, Event{Event: watch.Event{Kind: watch.Error, Err: errors.New(msg)}}) {
				return synced, ctx.Err()
			}
			continue
		case watch.Snapshot, watch.Added, watch.Updated, watch.Heartbeat, watch.Stale, watch.Fresh, watch.Removed:
		default:
			continue // SPEC.md V5: ignore events not known here
		}
		e, err := w.entry()
		if err != nil {
			return synced, err
		}
		if !synced {
			if kind != watch.Snapshot {
				return synced, fmt.Errorf("%w: %s before synced", errProtocol, kind)
			}
			if len(pending) >= maxHostEntries {
				return synced, fmt.Errorf("%w: more than %d sessions", errProtocol, maxHostEntries)
			}
			pending[e.Name] = e
			continue
		}
		name := e.Name
		switch {
		case kind == watch.Snapshot:
			return synced, fmt.Errorf("%w: snapshot after synced", errProtocol)
		case kind == watch.Removed:
			e = nil
		case h.known[name].e == nil && len(h.known) >= maxHostEntries:
			return synced, fmt.Errorf("%w: more than %d sessions", errProtocol, maxHostEntries)
		}
		if !h.apply(ctx, name, e, kind, text(w.Reason)) {
			return synced, ctx.Err()
		}
	}
}

// resync sends what the host's snapshot changes: the snapshot itself the
// first time, else the difference with what was sent, then host-online.
func (h *hostWatch) resync(ctx context.Context, snap map[string]*reader.Entry, missing bool) bool {
	first := !h.synced && !h.offline // nothing known yet
	names := slices.AppendSeq(slices.Collect(maps.Keys(snap)), maps.Keys(h.known))
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		kind := watch.Kind("")
		if first {
			kind = watch.Snapshot
		}
		if !h.apply(ctx, n, snap[n], kind, reasonOffline) {
			return false
		}
	}
	if first {
		h.synced = true
		return h.emit(ctx, Event{Event: watch.Event{Kind: watch.Synced, Missing: missing}})
	}
	if !h.offline {
		return true
	}
	h.offline = false
	return h.emit(ctx, Event{Event: watch.Event{Kind: hostOnline}})
}

// apply sends the change of name's entry from what was sent to after (nil:
// removed, for reason): as the host's kind says, or, when kind is "", as
// changeKind names it. A first entry is Added, unless kind is Snapshot.
func (h *hostWatch) apply(ctx context.Context, name string, after *reader.Entry, kind watch.Kind, reason string) bool {
	before := h.known[name].e
	ev := Event{Event: watch.Event{Kind: kind, Name: name, Before: before, After: after}}
	switch {
	case after == nil && before == nil:
		return true
	case after == nil:
		delete(h.known, name)
		ev.Kind, ev.Reason = watch.Removed, reason
	case before == nil:
		h.remember(after)
		if kind != watch.Snapshot {
			ev.Kind = watch.Added
		}
	default:
		h.remember(after)
		ev.Kind = cmp.Or(kind, changeKind(before, after, h.cfg.Heartbeats))
		if ev.Kind == "" || ev.Kind == watch.Heartbeat && !h.cfg.Heartbeats {
			return true
		}
	}
	return h.emit(ctx, ev)
}

// changeKind names the change from before to after as package watch does,
// or "" when there is nothing to send.
func changeKind(before, after *reader.Entry, heartbeats bool) watch.Kind {
	b, a := before.Status, after.Status
	sameButTime := b.UpdatedAt.Equal(a.UpdatedAt)
	b.UpdatedAt, a.UpdatedAt = time.Time{}, time.Time{}
	switch {
	case b != a || before.Reason != after.Reason:
		return watch.Updated
	case before.Verdict != after.Verdict && after.Verdict == reader.Stale:
		return watch.Stale
	case before.Verdict != after.Verdict && after.Verdict == reader.Fresh:
		return watch.Fresh
	case before.Verdict != after.Verdict:
		return watch.Updated
	case !sameButTime && heartbeats:
		return watch.Heartbeat
	}
	return ""
}
