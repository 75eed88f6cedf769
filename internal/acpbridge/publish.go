package acpbridge

import (
	"os"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/hooksession"
)

// retryAfter is how long a failed write waits before it is tried again,
// when no newer change comes first.
const retryAfter = time.Second

// publisher applies a tracker's updates to the status directory on a
// goroutine of its own, through the hook session protocol (SPEC.md §13):
// each session's record is set under its write lock, and the first write
// starts the detached heartbeat owner that keeps it fresh and removes it
// when the proxy is gone (H3, H4). Updates of one session that come while
// a write runs are coalesced into the newest; nothing the publisher does
// blocks the caller of update.
type publisher struct {
	dir, agent, exe string
	pid             int
	noDetail        bool
	report          func(error) // each distinct failure once; nil: none
	set             func(dir, session string, ch hooksession.Change, wd, exe string) error
	clear           func(dir, session string) error

	mu       sync.Mutex
	pending  map[string]Update
	order    []string        // sessions with a pending update, oldest first
	written  map[string]bool // sessions set at least once (tried)
	closed   bool
	reported string
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
}

func newPublisher(c *Config) *publisher {
	p := &publisher{
		dir: c.Dir, agent: c.Agent, exe: c.Exe, pid: c.PID, noDetail: c.NoDetail, report: c.Report,
		set: hooksession.Set, clear: hooksession.Clear,
		pending: map[string]Update{}, written: map[string]bool{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	if p.pid == 0 {
		p.pid = os.Getpid()
	}
	return p
}

func (p *publisher) start() { go p.run() }

// update queues u; it never waits for a write.
func (p *publisher) update(ups ...Update) {
	if len(ups) == 0 {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	for _, u := range ups {
		if _, ok := p.pending[u.Session]; !ok {
			p.order = append(p.order, u.Session)
		}
		p.pending[u.Session] = u
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *publisher) run() {
	defer close(p.done)
	retry := time.NewTimer(retryAfter)
	retry.Stop()
	for {
		select {
		case <-p.stop:
			retry.Stop()
			return
		case <-p.kick:
		case <-retry.C:
		}
		for {
			u, ok := p.next()
			if !ok {
				break
			}
			if err := p.apply(u); err != nil {
				p.fail(err)
				p.mu.Lock()
				if _, newer := p.pending[u.Session]; !newer && !p.closed {
					p.pending[u.Session] = u
					p.order = append(p.order, u.Session)
				}
				p.mu.Unlock()
				retry.Reset(retryAfter)
				break
			}
			select {
			case <-p.stop:
				return
			default:
			}
		}
	}
}

func (p *publisher) next() (Update, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.order) > 0 {
		s := p.order[0]
		p.order = p.order[1:]
		if u, ok := p.pending[s]; ok {
			delete(p.pending, s)
			if !u.Gone {
				p.written[s] = true
			}
			return u, true
		}
	}
	return Update{}, false
}

func (p *publisher) apply(u Update) error {
	if u.Gone {
		return p.clear(p.dir, u.Session)
	}
	r := u.Record
	title := r.Title
	ch := hooksession.Change{State: r.State, Title: &title, Agent: p.agent, Cwd: r.Cwd, PID: p.pid,
		Wait: r.Waiting, Ended: r.Ended, NoDetail: p.noDetail}
	return p.set(p.dir, u.Session, ch, "", p.exe)
}

// fail reports err unless it is the failure reported last.
func (p *publisher) fail(err error) {
	p.mu.Lock()
	same := err.Error() == p.reported
	p.reported = err.Error()
	p.mu.Unlock()
	if !same && p.report != nil {
		p.report(err)
	}
}

// close stops publishing and removes every record the publisher wrote,
// waiting at most wait for a write in progress and the removals (on a
// frozen file system, the heartbeat owners remove them once the proxy is
// gone). It reports whether it finished in time.
func (p *publisher) close(wait time.Duration) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return true
	}
	p.closed = true
	p.pending, p.order = map[string]Update{}, nil
	p.mu.Unlock()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		close(p.stop)
		<-p.done
		p.mu.Lock()
		var names []string
		for s := range p.written {
			names = append(names, s)
		}
		p.mu.Unlock()
		for _, s := range names {
			if err := p.clear(p.dir, s); err != nil {
				p.fail(err)
			}
		}
	}()
	select {
	case <-finished:
		return true
	case <-time.After(wait):
		return false
	}
}
