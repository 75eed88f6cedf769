package statusfile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/location"
)

// DefaultHeartbeat is how often a [Publisher] rewrites an unchanged record:
// a second under [HeartbeatInterval], so that a busy machine still keeps the
// gap the protocol promises.
const DefaultHeartbeat = HeartbeatInterval - time.Second

// defaultCoalesce is the default coalescing window of a [Publisher]: at most
// one write per window, however often the state changes.
const defaultCoalesce = 100 * time.Millisecond

// ErrClosed is returned by [Publisher.Flush] after [Publisher.Close].
var ErrClosed = errors.New("publisher closed")

// Options configure a [Publisher]. The zero value of each field is the
// default its comment names; the zero Options publishes into the default
// config home for the current process, in its working directory.
type Options struct {
	// ConfigHome is the config home: the publisher writes into
	// ConfigHome/agent-status. "" means $GENTLE_PI_CONFIG_HOME when it is
	// set and non-empty, else ~/.pi/gentle-ai (SPEC.md L1), where ~ is
	// $HOME when it is set, else the user's home directory.
	ConfigHome string
	// Dir is the status directory itself; when set, ConfigHome is not
	// used, and Dir's parent is the config home, checked as one.
	Dir string
	// Agent is the "agent" field; "" means the program's name.
	Agent string
	// PID is the "pid" field: the process the session lives in; 0 means
	// the current process. It must be in 0 … 2³¹−1.
	PID int
	// Cwd is the "cwd" field, made absolute; "" means the working
	// directory.
	Cwd string
	// State is the state of the first write; "" means [Idle].
	State State
	// Title is the title of the first write; "" means none.
	Title string
	// NoDetail leaves the detail of [Waiting] and [Ended] out of the
	// file: the command, file or question a session waits on, the error a
	// turn ended with. Their kind, reason and tool are still written.
	// False, the default, writes the detail. It is a privacy control, for
	// users who do not want command lines in status files.
	NoDetail bool
	// Clock is used for timestamps, heartbeats and coalescing; nil means
	// the system clock.
	Clock clock.Clock
	// Heartbeat is how often an unchanged record is rewritten, at most
	// [HeartbeatInterval]; 0 means [DefaultHeartbeat]. A negative
	// heartbeat is an error.
	Heartbeat time.Duration
	// Coalesce is the coalescing window: changes that arrive within it of
	// the previous write are written together at its end. It must be
	// shorter than the heartbeat. 0 means 100 ms; a negative window writes
	// every change as soon as the previous write is done.
	Coalesce time.Duration
	// ErrorHandler, if not nil, is called with every distinct write
	// failure or refusal, on the publisher's goroutine: once per kind of
	// failure, not at every retry, and again for a failure that comes back
	// after a successful write. An unknown state passed to Set or SetState
	// is reported too, on the caller's goroutine, before Set returns.
	// Calls never overlap.
	ErrorHandler func(error)
}

// hooks are what tests replace in a [Publisher].
type hooks struct {
	onWrite func(Status, error) // called after every write attempt
	// writeFile writes data as dir/name; nil means writeFile.
	writeFile func(home, dir, name string, data []byte) (fs.FileInfo, error)
}

// Publisher keeps one session's status file fresh. It writes on its own
// goroutine: the record at once, again whenever it changes (coalesced), and
// at least every heartbeat. Every write first checks the trust rules of
// SPEC.md and replaces the file atomically; a failed or refused write is
// reported to the error handler and retried at the next heartbeat. Nothing
// a Publisher does can panic or block its caller on I/O, except [Publisher.Flush]
// and [Publisher.Close], which wait by design.
//
// Close removes the file, if it is still the one last written.
type Publisher struct {
	home, dir, name string
	o               Options // with the defaults filled in
	hooks

	mu      sync.Mutex
	rec     Status // what should be on disk, UpdatedAt aside
	version uint64 // bumped by every change of rec

	kick  chan struct{}
	flush chan chan error
	stop  chan struct{}
	done  chan struct{}

	// Owned by the goroutine until done is closed.
	written     uint64 // version last written successfully
	lastAttempt time.Time
	lastErr     error
	reported    string
	fileInfo    fs.FileInfo // identity of the file last written
	fileData    []byte      // and its content
	tempsClean  bool        // stale temporary files removed once

	reportMu sync.Mutex // serializes calls of onError

	closeOnce sync.Once
	closeErr  error
}

// NewPublisher validates its arguments and starts publishing session. It
// returns an error only for arguments it cannot use (an invalid session
// id, a config home that cannot be found, a bad pid, state or interval);
// relative directories are made absolute. Problems on disk
// are reported to the error handler and retried, never returned.
func NewPublisher(session string, o Options) (*Publisher, error) {
	return newPublisher(session, o, hooks{})
}

func newPublisher(session string, o Options, h hooks) (*Publisher, error) {
	if err := ValidateSession(session); err != nil {
		return nil, err
	}
	o.State = cmp.Or(o.State, Idle)
	o.Clock = cmp.Or(o.Clock, clock.System)
	o.Heartbeat = cmp.Or(o.Heartbeat, DefaultHeartbeat)
	o.Coalesce = max(cmp.Or(o.Coalesce, defaultCoalesce), 0) // negative: none
	if !o.State.Known() {
		return nil, fmt.Errorf("%w %q", errUnknownState, o.State)
	}
	if o.Heartbeat <= 0 || o.Heartbeat > HeartbeatInterval {
		return nil, fmt.Errorf("heartbeat %v not in (0, %v]", o.Heartbeat, HeartbeatInterval)
	}
	if o.Coalesce >= o.Heartbeat {
		return nil, fmt.Errorf("coalescing window %v not in [0, heartbeat)", o.Coalesce)
	}
	// The location of SPEC.md L1, as Options.ConfigHome and Dir say.
	loc, err := location.ForPublisher(o.Dir, o.ConfigHome, nil)
	if errors.Is(err, location.ErrNoHome) {
		return nil, errors.New("cannot find the config home: " + location.ConfigHomeEnv + " is not set and the home directory is unknown")
	}
	if err != nil {
		return nil, fmt.Errorf("config home: %w", err)
	}
	o.PID = cmp.Or(o.PID, os.Getpid())
	if o.PID < 0 || o.PID > maxPID {
		return nil, fmt.Errorf("pid %d not in 0 … %d", o.PID, maxPID)
	}
	if o.Cwd, err = filepath.Abs(o.Cwd); err != nil { // "": the working directory
		return nil, fmt.Errorf("cwd: %w", err)
	}
	o.Agent = cmp.Or(o.Agent, filepath.Base(os.Args[0]))
	p := &Publisher{
		home:  loc.ConfigHome,
		dir:   loc.Dir,
		name:  FileName(session),
		o:     o,
		hooks: h,
		rec: Status{
			Schema:  Schema,
			Agent:   o.Agent,
			Session: session,
			PID:     o.PID,
			Cwd:     o.Cwd,
			State:   o.State,
			Title:   SanitizeTitle(o.Title),
		},
		version: 1,
		kick:    make(chan struct{}, 1),
		flush:   make(chan chan error),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	if p.writeFile == nil {
		p.writeFile = writeFile
	}
	go p.run()
	return p, nil
}

// Path returns the path of the status file.
func (p *Publisher) Path() string { return filepath.Join(p.dir, p.name) }

// Status returns the record as it should be on disk (UpdatedAt is the time
// of the last successful write).
func (p *Publisher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rec
}

// Set changes the state and the title ("" for none), forgetting the
// [Waiting] or [Ended] of a state left. It returns at once;
// the change is written within the coalescing window. An unknown state is
// reported to the error handler and ignored.
func (p *Publisher) Set(state State, title string) {
	p.update(func(r *Status) { r.State, r.Title = state, SanitizeTitle(title) }, state)
}

// SetState changes the state and keeps the title.
func (p *Publisher) SetState(state State) {
	p.update(func(r *Status) { r.State = state }, state)
}

// SetWaiting sets the state to [Blocked] and says what the session waits
// for. A zero Since is now, or when the same wait began if it is already
// on. The wait is forgotten when the state changes.
func (p *Publisher) SetWaiting(w Waiting) {
	if p.o.NoDetail {
		w.Detail = ""
	}
	now := p.o.Clock.Now()
	p.update(func(r *Status) {
		if w.Since.IsZero() {
			w.Since = now
			if old := r.WaitingFor; r.State == Blocked && old.Kind == w.Kind && old.Tool == w.Tool && old.Detail == w.Detail {
				w.Since = old.Since
			}
		}
		r.State, r.WaitingFor = Blocked, w
	})
}

// SetEnded sets the state to [Idle] and says how the turn ended. A zero At
// is now. The reason is forgotten when the state changes.
func (p *Publisher) SetEnded(e Ended) {
	if e.At.IsZero() {
		e.At = p.o.Clock.Now()
	}
	if p.o.NoDetail {
		e.Detail = ""
	}
	p.update(func(r *Status) { r.State, r.Ended = Idle, e })
}

// SetTitle changes the title ("" for none) and keeps the state.
func (p *Publisher) SetTitle(title string) {
	p.update(func(r *Status) { r.Title = SanitizeTitle(title) })
}

// update applies f to the record. state, if given, is the state a caller
// asked for: an unknown one is reported, and the change ignored.
func (p *Publisher) update(f func(*Status), state ...State) {
	if len(state) > 0 && !state[0].Known() {
		p.report(fmt.Errorf("%w %q: change ignored", errUnknownState, state[0]))
		return
	}
	p.mu.Lock()
	next := p.rec
	f(&next)
	sanitizeWhy(&next) // a wait ends with blocked, a turn's end with idle
	changed := next != p.rec
	if changed {
		p.rec = next
		p.version++
	}
	p.mu.Unlock()
	if changed {
		select {
		case p.kick <- struct{}{}:
		default:
		}
	}
}

// Flush writes the current record now, unless it is already on disk, and
// returns the result of that write. statuspub serve uses it to answer only
// once a change is on disk.
func (p *Publisher) Flush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case p.flush <- reply:
	case <-p.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops publishing: nothing is written after it returns. It removes
// the status file if it is still the file this publisher wrote last (same
// device, inode and content, SPEC.md P11); a file replaced by someone
// else is left alone, even one that reuses the inode. It
// returns the error of that removal, if any, and may be called more than
// once.
func (p *Publisher) Close() error {
	p.closeOnce.Do(func() {
		close(p.stop)
		<-p.done
		if p.fileInfo == nil {
			return
		}
		if err := removeFile(p.dir, p.name, p.fileInfo, p.fileData); err != nil {
			p.closeErr = fmt.Errorf("remove %s: %w", p.Path(), err)
		}
	})
	return p.closeErr
}

func (p *Publisher) run() {
	defer close(p.done)
	p.write()
	hb := p.o.Clock.NewTimer(p.o.Heartbeat)
	var co clock.Timer
	var coC <-chan time.Time
	stopCoalesce := func() {
		if co != nil {
			co.Stop()
			co, coC = nil, nil
		}
	}
	write := func() { // and the next heartbeat a whole interval away
		p.write()
		hb.Stop()
		hb = p.o.Clock.NewTimer(p.o.Heartbeat)
	}
	for {
		select {
		case <-p.stop:
			hb.Stop()
			stopCoalesce()
			return
		case <-p.kick:
			if !p.dirty() || co != nil {
				continue
			}
			since := p.o.Clock.Now().Sub(p.lastAttempt)
			if since >= p.o.Coalesce || since < 0 {
				write()
			} else {
				co = p.o.Clock.NewTimer(p.o.Coalesce - since)
				coC = co.C()
			}
		case <-coC:
			co, coC = nil, nil
			if p.dirty() {
				write()
			}
		case <-hb.C():
			write()
		case reply := <-p.flush:
			stopCoalesce()
			if p.dirty() || p.lastErr != nil {
				write()
			}
			reply <- p.lastErr
		}
	}
}

func (p *Publisher) dirty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version != p.written
}

// write writes the current record once; it runs on the publisher's
// goroutine only.
func (p *Publisher) write() {
	p.mu.Lock()
	rec, version := p.rec, p.version
	p.mu.Unlock()
	now := p.o.Clock.Now()
	rec.UpdatedAt = now.Truncate(time.Millisecond)
	p.lastAttempt = now
	err := p.writeRecord(rec)
	if err == nil {
		p.written = version
		p.lastErr, p.reported = nil, ""
		p.mu.Lock()
		p.rec.UpdatedAt = rec.UpdatedAt
		p.mu.Unlock()
	} else {
		p.lastErr = err
		if key := failureKey(err); key != p.reported {
			p.reported = key
			p.report(err)
		}
	}
	if p.onWrite != nil {
		p.onWrite(rec, err)
	}
}

func (p *Publisher) writeRecord(rec Status) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("publish %s: panic: %v", p.Path(), r)
		}
	}()
	data, err := Encode(rec)
	if err != nil {
		return err
	}
	fi, err := p.writeFile(p.home, p.dir, p.name, data)
	if err != nil {
		return fmt.Errorf("publish %s: %w", p.Path(), err)
	}
	p.fileInfo, p.fileData = fi, data
	if !p.tempsClean {
		// The first write of this publisher removes what a killed
		// writer of the session left (SPEC.md P8). A failure is not a
		// failed write; the next publisher tries again.
		p.tempsClean = true
		cleanTemps(p.dir, p.name)
	}
	return nil
}

// failureKey says which failures are the same, for reporting each
// distinct one once: the error's text, except that a file system error
// counts by operation and cause alone, because its path may be a temporary
// file with a new random name at every attempt.
func failureKey(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	return err.Error()
}

func (p *Publisher) report(err error) {
	if p.o.ErrorHandler == nil {
		return
	}
	p.reportMu.Lock()
	defer p.reportMu.Unlock()
	defer func() { _ = recover() }() // the host's handler must not stop us
	p.o.ErrorHandler(err)
}
