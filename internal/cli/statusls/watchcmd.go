package statusls

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

const watchDescription = `Follows the status directory and reports every change as it happens, from
the file system's notifications (no polling), until SIGINT, SIGTERM or SIGHUP,
or, on a terminal, until you press q or Ctrl-C (keys are not echoed).
Default output: on a terminal, statusls's table on the alternate screen,
redrawn when a session changes and every second for its age column; else
TSV, or nothing with --exec.

Events (--json, --tsv): what statusls with the same selection lists, as it
changes. The snapshot comes first: one "snapshot" event per session, then
"synced" (also when the directory does not exist yet: "missing":true). Then:
added (a session entered the list), updated (state, title, agent, cwd or pid
changed), heartbeat (only updatedAt moved; with --heartbeats), stale (it went
stale; without --all it leaves the list), fresh (a stale session is fresh
again), removed (it left the list; "reason" says why: deleted, dir-gone,
dir-replaced, dir-refused, filtered when it no longer matches the selection,
or the SPEC.md reason of a file that became invalid), and error (the watch
goes on; also on stderr). Each --json object has event, seq (1, 2, 3, ...),
at (when it was seen, UTC, milliseconds), session, and the session's object
as statusls --json prints it (for removed: the last one printed); synced and
error have "session":null instead, with "missing" or "error". Keep a map
from session to object: set it on every event with a session, delete it on
removed and, without --all, on stale.

Other machines: with --host, one statusls watch --json per host, merged.
Every event has "host" (null for this machine), TSV lines start with
event<TAB>host, and the table has a HOST column. synced comes once every
host has sent its snapshot or gone offline. A lost host is one
"host-offline" event (and a line on stderr), retried with backoff; its
sessions go stale 30 s after their last heartbeat; when it is back, what
changed meanwhile comes as added, updated, stale, fresh or removed
("reason":"while-offline"), then "host-online". --exec commands get
STATUS_HOST (empty for this machine).

Exit status: 0 after q, SIGINT, SIGTERM or SIGHUP (or the end of standard
input with --until-eof), 1 error (a refused status directory at start, a
failed write), 2 usage error.`

// watchOptions are the flags of statusls watch.
type watchOptions struct {
	dir, configHome string
	json, tsv       bool
	color           string
	heartbeats      bool
	wide            bool
	selection
	on, exec            string
	execTimeout         time.Duration
	after, afterWorking time.Duration // --after, --after-working
	cooldown            time.Duration
	filter              render.Filter
	onStates            []string
	onSet, execSet      bool

	hostFlags // --host, --all-hosts, --local: hosts.go
	untilEOF  bool

	metricsFile string // --metrics-textfile: watchmetrics.go
}

func (o *watchOptions) register(fs *base.FlagSet, env *cmdEnv) {
	fs.Group("Output")
	fs.Bool(&o.json, "json", false, "one JSON object per event and line (see \"Events\" above)")
	fs.Bool(&o.tsv, "tsv", false, "one line per event: event<TAB>agent<TAB>session<TAB>state<TAB>title")
	colorFlag(fs, &o.color, "the table's colours: auto (default), always, never")
	fs.Bool(&o.wide, "wide", false, "the table shows full session ids")
	fs.Bool(&o.heartbeats, "heartbeats", false, "also report heartbeats (rewrites that only move updatedAt)")

	fs.Group("Selection (as for statusls)")
	o.selection.register(fs, "include stale sessions (never invalid files)",
		"only sessions in these states (other:NAME for a newer one)")

	fs.Group("Running a command")
	fs.Func("on", "S[,S]", `run the --exec command each time a session enters one of
these states: appears in it, changes to it, or comes back
fresh in it; not again while it stays there. A session
already in it when watch starts counts once. A session that
leaves the state, goes stale or is removed before a delayed
run (--after, --after-working) cancels it.`, func(s string) error { o.on, o.onSet = s, true; return nil }).Complete = func() []string { return base.States }
	fs.Func("exec", "CMD", `the command, run by /bin/sh -c in the background (at most 4
at once, the next 64 queued), with the session's record in
STATUS_SESSION, STATUS_AGENT, STATUS_STATE, STATUS_TITLE,
STATUS_CWD, STATUS_PID, STATUS_WAITING_KIND,
STATUS_WAITING_TOOL, STATUS_WAITING_DETAIL (blocked),
STATUS_ENDED_REASON (idle) and STATUS_WHY (the WHY column)
(sanitized; "" when unknown or none), and its --json line
on stdin. Its output goes to stderr (on a
terminal: nowhere); a failure is reported there as
"statusls: --exec: ..." and the watch goes on. Not on Windows.`, func(s string) error { o.exec, o.execSet = s, true; return nil })
	fs.Duration(&o.execTimeout, "exec-timeout", execTimeout, "DUR", "kill a command (and its process group) that runs longer\n(default 1m; 0 never)")
	fs.Duration(&o.after, "after", 0, "DUR", `run only once the session has stayed in the state DUR,
counted from waitingFor.since (blocked) or ended.at (idle)
when the record has them, else from when watch saw it enter:
--on blocked --after 30s`)
	fs.Duration(&o.afterWorking, "after-working", 0, "DUR", `for idle: run only when the turn that just ended lasted at
least DUR, from when watch saw the session start working:
--on idle --after-working 2m`)
	fs.Duration(&o.cooldown, "cooldown", 0, "DUR", "run at most once per session per DUR; runs sooner are\nskipped")
	fs.Bool(&o.untilEOF, "until-eof", false, "also stop when standard input ends: for a watch run by\nanother program (statusls watch --host runs it so over ssh)")

	fs.Group("Where")
	fs.String(&o.dir, "dir", "", "DIR", "the status directory itself")
	fs.String(&o.configHome, "config-home", "", "DIR", "the config home (the status directory is DIR/agent-status)")

	o.hostFlags.register(fs, env, "follow these hosts (repeatable; see \"Other machines\" above);\nwithout --local, only them", true, true)
	o.registerMetrics(fs)
}

// validate checks the flags together. It returns -1 to go on.
func (o *watchOptions) validate(env *cmdEnv) int {
	if o.onSet {
		states, err := base.ParseStates(o.on)
		if err != nil {
			return usageError(env, "--on: %v", err)
		}
		o.onStates = states
	}
	switch {
	case o.json && o.tsv:
		return usageError(env, "--json and --tsv cannot be combined")
	case o.onSet != o.execSet:
		return usageError(env, "--on and --exec go together: --on STATE --exec CMD")
	case o.execSet && !execSupported:
		return usageError(env, "--exec is not supported on this platform (it runs the command with /bin/sh)")
	case o.execSet && o.exec == "":
		return usageError(env, "--exec: empty command")
	case o.execTimeout < 0:
		return usageError(env, "--exec-timeout must not be negative")
	case o.after < 0 || o.afterWorking < 0 || o.cooldown < 0:
		return usageError(env, "--after, --after-working and --cooldown must not be negative")
	case !o.execSet && (o.given.Changed("after") || o.given.Changed("after-working") || o.given.Changed("cooldown")):
		return usageError(env, "--after, --after-working and --cooldown go with --on and --exec")
	case o.afterWorking > 0 && !slices.Contains(o.onStates, string(statusfile.Idle)):
		return usageError(env, "--after-working is about turns that end: it goes with --on idle")
	}
	if code := checkColor(env, o.color); code >= 0 {
		return code
	}
	var code int
	o.filter, code = o.selection.filter(env)
	return code
}

// watchDir watches the status directory that dir and configHome (or the
// environment) name, refusing at start one that statusls refuses (exit 1);
// a missing one is fine: the watcher waits for it. The exit status of a
// failure, else -1.
func watchDir(dir, configHome string, opts watch.Options, env *cmdEnv) (*watch.Watcher, location.Location, int) {
	loc, err := location.ForReader(dir, configHome, env.Getenv)
	if err != nil {
		return nil, loc, usageError(env, "%v", err)
	}
	if d, err := reader.Open(loc.Dir, reader.Options{}); err == nil {
		d.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, loc, dirError(env, err)
	}
	w, err := watch.New(loc.Dir, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
		return nil, loc, base.ExitError
	}
	return w, loc, -1
}

// watchRun is one run of statusls watch: this machine's directory, other
// machines' (--host), or both (--local), each a host of the run ("" is this
// machine) with its view.
type watchRun struct {
	o         *watchOptions
	env       *cmdEnv
	mode      string // "json", "tsv", "table" or "quiet" (--exec alone): see watchCmd
	stderr    *lockedWriter
	withHosts bool              // other machines are watched: events and lines name the host
	views     map[string]view   // by host
	order     []string          // the hosts, "" (this machine) first
	offline   map[string]string // host -> why it cannot be reached
	waiting   int               // hosts whose snapshot is not in yet
	seq       uint64
	buf       []byte
	synced    bool // synced was printed

	runner *execRunner
	trig   *trigger  // when runner runs its command
	keys   chan byte // the keyboard's keys (table on a terminal), or nil

	// The table (screen.go), drawn in place on a terminal: on the
	// alternate screen, as full-screen programs do, so that the shell's
	// screen comes back as it was when watch ends.
	loc         location.Location
	width, rows int
	color       bool
	missing     bool   // the directory did not exist at start, and no session came since
	started     bool   // the alternate screen is on
	last        string // what the screen shows
	msgs        []screenMessage
	dirty       bool        // the table shows something else than the views
	messages    chan string // the runner's reports, for the table
	tick        clock.Timer // the table's redraw for its age column
	tickC       <-chan time.Time
}

func watchCmd(o *watchOptions, env *cmdEnv) int {
	if code := o.validate(env); code >= 0 {
		return code
	}
	if o.metricsFile != "" {
		return watchMetrics(o, env)
	}
	r := &watchRun{o: o, env: env, withHosts: o.hostFlags.active(), views: map[string]view{}, offline: map[string]string{}}
	hosts, cfg, code := o.hostFlags.targets(env)
	if code >= 0 {
		return code
	}
	// How watch prints: as asked, else a table on a terminal, nothing but
	// the commands' effects with --exec alone, else TSV.
	r.mode = "tsv"
	switch isTerm, _ := env.Terminal(); {
	case o.json:
		r.mode = "json"
	case o.tsv:
	case isTerm:
		r.mode = "table"
	case o.execSet:
		r.mode = "quiet"
	}
	// The table's age column needs every updatedAt.
	heartbeats := o.heartbeats || r.mode == "table"
	var loc location.Location
	var local <-chan watch.Event
	if !r.withHosts || o.local {
		w, l, code := watchDir(o.dir, o.configHome, watch.Options{
			Clock:      env.Clock,
			Heartbeats: heartbeats,
			// alive, as statusls --json has it.
			Liveness: r.mode == "json" || o.execSet,
		}, env)
		if code >= 0 {
			return code
		}
		defer w.Close()
		loc, local = l, w.Events()
		r.order = append(r.order, "")
	}
	r.order = append(r.order, hosts...)
	for _, h := range r.order {
		r.views[h] = view{}
	}
	r.waiting = len(r.order)

	r.stderr = &lockedWriter{w: env.Stderr}
	// Nothing of watch's own is written to stderr once it has returned.
	// A command still running then (past the grace period) keeps the
	// stderr it was given, which is the process's own when that is a file.
	defer r.stderr.close()

	// The signals that stop watch, and for the table, those that redraw it.
	sigs, handled := make(chan os.Signal, 4), stopSignals
	if r.mode == "table" {
		handled = append(slices.Clip(stopSignals), resizeSignals...)
	}
	defer env.Signals(sigs, handled...)()

	if r.mode == "table" {
		r.messages = make(chan string, 16)
		r.loc, r.color = loc, useColor(o.color, true, env)
		r.resize()
		if _, err := io.WriteString(env.Stdout, seqEnter); err != nil {
			return r.writeError(err)
		}
		r.started = true
		defer r.end()
		defer func() { // the table's redraw timer, if one is armed
			if r.tick != nil {
				r.tick.Stop()
			}
		}()
		if env.Keyboard != nil {
			if in, restore, err := env.Keyboard(); err == nil {
				defer restore()
				r.keys = make(chan byte, 16)
				go readKeys(in, r.keys)
			}
		}
	}
	if o.execSet {
		var out io.Writer
		if r.mode != "table" {
			out = r.stderr
			if f, ok := env.Stderr.(*os.File); ok {
				out = f // the commands write to it directly
			}
		}
		r.runner = &execRunner{command: o.exec, environ: env.Environ(), timeout: o.execTimeout, clock: env.Clock, out: out, report: r.report}
		r.trig = newTrigger(o, env.Clock, func(e *reader.Entry, line []byte, extra []string) { r.runner.start(e, line, extra...) })
		defer r.runner.close(cmp.Or(env.execGrace, execGrace))
		defer r.trig.stop()
	}

	var others <-chan remote.Event
	if r.withHosts {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg.Heartbeats, cfg.Clock = heartbeats, env.Clock
		others = remote.Watch(ctx, cfg, hosts)
	}

	eof := stdinEOF(env, o.untilEOF)
	for {
		force := false
		select {
		case <-eof:
			return base.ExitOK
		case ev, ok := <-local:
			if !ok {
				return r.writeError(errors.New("the watcher stopped"))
			}
			// Take in what is already waiting (1,024 events at most) before
			// redrawing.
			for n := 0; ok && n <= 1024; n++ {
				if err := r.handle("", &ev, nil); err != nil {
					return r.writeError(err)
				}
				select {
				case ev, ok = <-local:
				default:
					ok = false
				}
			}
		case ev, ok := <-others:
			if !ok {
				return r.writeError(errors.New("the watch stopped"))
			}
			if err := r.handle(ev.Host, &ev.Event, ev.HostErr); err != nil {
				return r.writeError(err)
			}
		case msg := <-r.messages: // shown under the table for a while, the latest three
			r.msgs = append(r.msgs, screenMessage{"statusls: " + msg, env.Clock.Now().Add(messageTTL)})
			r.msgs = r.msgs[max(len(r.msgs)-3, 0):]
			force = true
		case <-r.tickC:
			r.tick, r.tickC = nil, nil
			force = true
		case <-r.trig.C():
			r.trig.fire()
		case k, ok := <-r.keys:
			if !ok {
				r.keys = nil // the terminal's input ended: keep watching
				continue
			}
			if k == 'q' || k == 'Q' || k == ctrlC {
				return base.ExitOK
			}
		case sig := <-sigs:
			if !slices.Contains(resizeSignals, sig) {
				return base.ExitOK
			}
			r.resize()
			force = true
		}
		if err := r.redraw(force); err != nil {
			return r.writeError(err)
		}
	}
}

// ctrlC is the byte Ctrl-C types when the terminal does not turn it into
// SIGINT.
const ctrlC = 0x03

// readKeys sends the bytes read from in to keys, and closes keys at the
// end of input or on an error. Keys typed faster than they are taken are
// dropped: it never blocks on keys.
func readKeys(in io.Reader, keys chan<- byte) {
	defer close(keys)
	var buf [64]byte
	for {
		n, err := in.Read(buf[:])
		for _, b := range buf[:n] {
			select {
			case keys <- b:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// handle takes in one event of one host ("" for this machine).
func (r *watchRun) handle(host string, ev *watch.Event, herr *remote.HostError) error {
	switch ev.Kind {
	case "host-offline":
		r.offline[host], r.dirty = herr.Msg, true
		if r.mode != "table" {
			fmt.Fprintf(r.stderr, "statusls: host %s offline: %s; retrying\n", statusfile.SanitizeText(host), herr.Msg)
		}
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At, Err: herr.Msg})
	case "host-online":
		delete(r.offline, host)
		r.dirty = true
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At})
	case watch.Synced:
		// One synced, once every host has sent its snapshot.
		r.missing = ev.Missing
		r.waiting--
		if r.waiting > 0 || r.synced {
			return nil
		}
		r.synced, r.dirty = true, true
		return r.print("", &render.Event{Kind: string(watch.Synced), At: ev.At, Missing: ev.Missing && !r.withHosts})
	case watch.Error:
		msg := statusfile.SanitizeText(base.Message(ev.Err))
		if host != "" {
			msg = "host " + statusfile.SanitizeText(host) + ": " + msg
		}
		r.report(msg)
		return r.print(host, &render.Event{Kind: string(watch.Error), At: ev.At, Err: ev.Err.Error()})
	}
	c, ok := r.views[host].apply(&r.o.filter, ev)
	switch {
	case !ok:
		return nil
	case c.Kind == string(watch.Heartbeat):
		// The table shows ages as time passes; a heartbeat only resets
		// one. Printed only when asked for.
		if !r.o.heartbeats {
			return nil
		}
	default:
		r.dirty = true
		r.missing = false
	}
	return r.print(host, c)
}

// print numbers ev, shows it to the --exec trigger when it is about a
// session, and writes it as the mode says.
func (r *watchRun) print(host string, ev *render.Event) error {
	if r.mode == "table" && r.runner == nil {
		return nil
	}
	r.seq++
	ev.Seq = r.seq
	r.buf = r.buf[:0]
	if r.mode == "json" || r.runner != nil {
		if r.withHosts {
			r.buf = render.AppendHostEventJSON(r.buf, host, ev)
		} else {
			r.buf = render.AppendEventJSON(r.buf, ev)
		}
	}
	if r.runner != nil && ev.Entry != nil {
		if r.withHosts {
			r.trig.see(host+"\x00"+ev.Entry.Name, ev, r.buf, "STATUS_HOST="+statusfile.SanitizeText(host))
		} else {
			r.trig.see(ev.Entry.Name, ev, r.buf)
		}
	}
	switch r.mode {
	case "json":
		r.buf = append(r.buf, '\n')
		_, err := r.env.Stdout.Write(r.buf)
		return err
	case "tsv":
		if ev.Kind == string(watch.Error) {
			return nil // on stderr only
		}
		if r.withHosts {
			r.buf = render.AppendHostEventTSV(r.buf[:0], host, ev)
		} else {
			r.buf = render.AppendEventTSV(r.buf[:0], ev)
		}
		_, err := r.env.Stdout.Write(r.buf)
		return err
	}
	return nil
}

// report says what went wrong: on stderr, or in the table.
func (r *watchRun) report(msg string) {
	if r.mode == "table" {
		select {
		case r.messages <- msg:
		default: // the table shows the latest few anyway
		}
		return
	}
	fmt.Fprintf(r.stderr, "statusls: %s\n", msg)
}

// redraw draws the table once every snapshot is in: when the views
// changed, or (force) when the time, the terminal or the messages did; and
// keeps a timer for the next second while the table shows ages, messages
// or hosts.
func (r *watchRun) redraw(force bool) error {
	if r.mode != "table" || !r.synced || !r.dirty && !force {
		return nil
	}
	r.dirty = false
	now := r.env.Clock.Now()
	if err := r.draw(now); err != nil {
		return err
	}
	if r.tick == nil && (r.withHosts || len(r.views[""]) > 0 || len(r.msgs) > 0) {
		r.tick = r.env.Clock.NewTimer(time.Second)
		r.tickC = r.tick.C()
	}
	return nil
}

func (r *watchRun) writeError(err error) int {
	r.end()
	fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
	return base.ExitError
}

// lockedWriter serializes writes to w, and drops them once closed.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return len(p), nil
	}
	return l.w.Write(p)
}

func (l *lockedWriter) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// stdinEOF returns a channel that is closed when standard input ends (with
// --until-eof), or nil, which never is. A watch or wait run over ssh by
// statusls --host learns so that its reader went away: sshd closes its
// input then, while its output may stay quiet for hours.
func stdinEOF(env *cmdEnv, on bool) <-chan struct{} {
	if !on {
		return nil
	}
	c := make(chan struct{})
	go func() {
		io.Copy(io.Discard, env.Stdin)
		close(c)
	}()
	return c
}
