package statusls

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

const watchUsage = `Usage: statusls watch [flags]

Follows the status directory and reports every change as it happens, from
the file system's notifications (no polling), until SIGINT, SIGTERM or SIGHUP.

Output (default: on a terminal, statusls's table on the alternate screen,
redrawn when a session changes and every second for its age column; else TSV,
or nothing with --exec):
  --json              one JSON object per event and line (see "Events" below)
  --tsv               one line per event: event<TAB>agent<TAB>session<TAB>state<TAB>title
  --color WHEN        the table's colours: auto (default), always, never
  --heartbeats        also report heartbeats (rewrites that only move updatedAt)

Selection (as for statusls):
  --all               include stale sessions (never invalid files)
  --state S[,S]       only sessions in these states
  --agent A[,A]       only sessions of these agents
  --cwd PREFIX        only sessions whose cwd is PREFIX or below (~ is expanded)

Running a command:
  --on S[,S]          run the --exec command each time a session enters one of
                      these states: appears in it, changes to it, or comes back
                      fresh in it; not again while it stays there. A session
                      already in it when watch starts counts once.
  --exec CMD          the command, run by /bin/sh -c in the background (at most 4
                      at once, the next 64 queued), with the session's record in
                      STATUS_SESSION, STATUS_AGENT, STATUS_STATE, STATUS_TITLE,
                      STATUS_CWD and STATUS_PID (sanitized; "" when unknown) and
                      its --json line on stdin. Its output goes to stderr (on a
                      terminal: nowhere); a failure is reported there as
                      "statusls: --exec: ..." and the watch goes on. Not on Windows.
  --exec-timeout DUR  kill a command (and its process group) that runs longer
                      (default 1m; 0 never)
  --until-eof         also stop when standard input ends: for a watch run by
                      another program (statusls watch --host runs it so over ssh)

Where:
  --dir DIR           the status directory itself
  --config-home DIR   the config home (the status directory is DIR/agent-status)

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

Other machines (over ssh; see README.md):
  --host H[,H]        follow these hosts (repeatable): one statusls watch --json
                      per host, merged; without --local, only these hosts
  --all-hosts         the hosts of $STATUSLS_HOSTS, else of ~/.config/agentstatus/hosts
  --local             with --host or --all-hosts: this machine too
  With --host, every event has "host" (null for this machine), TSV lines
  start with event<TAB>host, and the table has a HOST column.
  synced comes once every host has sent its snapshot or gone offline. A lost
  host is one "host-offline" event (and a line on stderr), retried with
  backoff; its sessions go stale 30 s after their last heartbeat; when it is back, what changed meanwhile comes as added, updated,
  stale, fresh or removed ("reason":"while-offline"), then "host-online".
  --exec commands get STATUS_HOST (empty for this machine).

Exit status: 0 after SIGINT, SIGTERM or SIGHUP (or the end of input with --until-eof), 1 error (a refused status directory
at start, a failed write), 2 usage error.
`

// watchOptions are the flags of statusls watch.
type watchOptions struct {
	dir, configHome     string
	json, tsv           bool
	color               string
	all, heartbeats     bool
	states, agents, cwd string
	on, exec            string
	execTimeout         time.Duration
	filter              render.Filter
	onStates            []string
	onSet, execSet      bool

	hostFlags // --host: watchhosts.go
	untilEOF  bool
}

func parseWatch(args []string, env *Env) (*watchOptions, int) {
	o := &watchOptions{}
	fs := newFlagSet("statusls watch")
	fs.StringVar(&o.dir, "dir", "", "")
	fs.StringVar(&o.configHome, "config-home", "", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.tsv, "tsv", false, "")
	fs.StringVar(&o.color, "color", "auto", "")
	fs.BoolVar(&o.all, "all", false, "")
	fs.BoolVar(&o.heartbeats, "heartbeats", false, "")
	fs.StringVar(&o.states, "state", "", "")
	fs.StringVar(&o.agents, "agent", "", "")
	fs.StringVar(&o.cwd, "cwd", "", "")
	fs.Func("on", "", func(s string) error { o.on, o.onSet = s, true; return nil })
	fs.Func("exec", "", func(s string) error { o.exec, o.execSet = s, true; return nil })
	fs.DurationVar(&o.execTimeout, "exec-timeout", execTimeout, "")
	o.hostFlags.register(fs)
	fs.BoolVar(&o.untilEOF, "until-eof", false, "")
	if code := parseFlags(fs, args, env, watchUsage); code >= 0 {
		return nil, code
	}
	switch {
	case o.json && o.tsv:
		return nil, usageError(env, "--json and --tsv cannot be combined")
	case o.onSet != o.execSet:
		return nil, usageError(env, "--on and --exec go together: --on STATE --exec CMD")
	case o.execSet && !execSupported:
		return nil, usageError(env, "--exec is not supported on this platform (it runs the command with /bin/sh)")
	case o.execSet && o.exec == "":
		return nil, usageError(env, "--exec: empty command")
	case o.execTimeout < 0:
		return nil, usageError(env, "--exec-timeout must not be negative")
	}
	if o.onSet {
		if o.onStates = splitList(o.on); len(o.onStates) == 0 {
			return nil, usageError(env, "--on: no state given")
		}
	}
	switch o.color {
	case "auto", "always", "never":
	default:
		return nil, usageError(env, "--color: %q is not auto, always or never", o.color)
	}
	o.filter = render.Filter{All: o.all, States: splitList(o.states), Agents: splitList(o.agents)}
	if o.cwd != "" {
		p, err := expandPath(o.cwd, env)
		if err != nil {
			return nil, usageError(env, "--cwd: %v", err)
		}
		o.filter.Cwd = p
	}
	return o, -1
}

// checkDir refuses at start a status directory that statusls refuses
// (exit 1). A missing one is fine: the watcher waits for it.
func checkDir(env *Env, loc location.Location) int {
	d, err := reader.Open(loc.Dir, reader.Options{})
	if errors.Is(err, fs.ErrNotExist) {
		return -1
	}
	if err != nil {
		return dirError(env, loc, err)
	}
	d.Close()
	return -1
}

// How watch prints.
const (
	watchJSON  = "json"
	watchTSV   = "tsv"
	watchTable = "table"
	watchQuiet = "quiet" // --exec only
)

// watchRun is one run of statusls watch.
type watchRun struct {
	o      *watchOptions
	env    *Env
	mode   string
	stderr *lockedWriter
	view   *view
	seq    uint64
	buf    []byte
	synced bool

	runner *execRunner
	inOn   map[string]string // file name -> the --on state its session is fresh in

	table    *tableScreen
	dirty    bool             // the table shows something else than the view
	messages chan string      // the runner's reports, for the table
	tick     statusfile.Timer // the table's redraw for its age column
	tickC    <-chan time.Time
}

func watchCmd(args []string, env *Env) int {
	o, code := parseWatch(args, env)
	if code >= 0 {
		return code
	}
	if o.hostFlags.active() {
		return watchHosts(o, env)
	}
	loc, err := location.ForReader(o.dir, o.configHome, env.Getenv)
	if err != nil {
		return usageError(env, "%v", err)
	}
	if code := checkDir(env, loc); code >= 0 {
		return code
	}
	r := &watchRun{o: o, env: env, stderr: &lockedWriter{w: env.Stderr}, view: newView(&o.filter)}
	// Nothing of watch's own is written to stderr once it has returned.
	// A command still running then (past the grace period) keeps the
	// stderr it was given, which is the process's own when that is a file.
	defer r.stderr.close()

	isTerm, termWidth := env.Terminal()
	switch {
	case o.json:
		r.mode = watchJSON
	case o.tsv:
		r.mode = watchTSV
	case isTerm:
		r.mode = watchTable
	case o.execSet:
		r.mode = watchQuiet
	default:
		r.mode = watchTSV
	}

	sigs := make(chan os.Signal, 4)
	watched := stopSignals
	if r.mode == watchTable {
		watched = append(slices.Clip(watched), resizeSignals...)
	}
	defer env.Signals(sigs, watched...)()

	w, err := watch.New(loc.Dir,
		watch.WithClock(env.Clock),
		// The table's age column needs every updatedAt.
		watch.WithHeartbeats(o.heartbeats || r.mode == watchTable),
		// alive, as statusls --json has it.
		watch.WithLiveness(r.mode == watchJSON || o.execSet))
	if err != nil {
		fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
		return ExitError
	}
	defer w.Close()

	if r.mode == watchTable {
		r.messages = make(chan string, 16)
		r.table = newTableScreen(env, o, loc, termWidth)
		if err := r.table.begin(); err != nil {
			return r.writeError(err)
		}
		defer r.table.end()
		defer r.stopTick()
	}
	if o.execSet {
		var out io.Writer
		if r.mode != watchTable {
			out = r.stderr
			if f, ok := env.Stderr.(*os.File); ok {
				out = f // the commands write to it directly
			}
		}
		r.runner = newExecRunner(o.exec, env.Environ(), o.execTimeout, out, r.report)
		r.inOn = map[string]string{}
		defer r.runner.close(execGrace)
	}

	events := w.Events()
	eof := stdinEOF(env, o.untilEOF)
	for {
		select {
		case <-eof:
			return ExitOK
		case ev, ok := <-events:
			if !ok {
				return r.writeError(errors.New("the watcher stopped"))
			}
			if err := r.handle(&ev); err != nil {
				return r.writeError(err)
			}
			// Take in what is already waiting before redrawing.
		more:
			for range 1024 {
				select {
				case ev, ok := <-events:
					if !ok {
						break more
					}
					if err := r.handle(&ev); err != nil {
						return r.writeError(err)
					}
				default:
					break more
				}
			}
			if err := r.redraw(false); err != nil {
				return r.writeError(err)
			}
		case msg := <-r.messages:
			r.table.message(msg, env.Clock.Now())
			if err := r.redraw(true); err != nil {
				return r.writeError(err)
			}
		case <-r.tickC:
			r.tick, r.tickC = nil, nil
			if err := r.redraw(true); err != nil {
				return r.writeError(err)
			}
		case sig := <-sigs:
			if slices.Contains(resizeSignals, sig) {
				r.table.resize()
				if err := r.redraw(true); err != nil {
					return r.writeError(err)
				}
				continue
			}
			return ExitOK
		}
	}
}

// handle takes in one event of the watcher.
func (r *watchRun) handle(ev *watch.Event) error {
	c, ok := r.view.apply(ev)
	if !ok {
		return nil
	}
	switch c.kind {
	case evSynced:
		r.synced = true
		if r.table != nil {
			r.table.missing = ev.Missing
		}
		r.dirty = true
	case evError:
		r.report(statusfile.SanitizeText(ev.Err.Error()))
	case evHeartbeat:
		// The table shows ages as time passes; a heartbeat only resets
		// one. Printed only when asked for.
		if !r.o.heartbeats {
			return nil
		}
	default:
		r.dirty = true
		if r.table != nil && c.entry != nil {
			r.table.missing = false
		}
	}
	if r.mode == watchTable && r.runner == nil {
		return nil
	}
	r.seq++
	rev := render.Event{Kind: c.kind, Seq: r.seq, At: ev.At, Entry: c.entry, Reason: c.reason, Missing: ev.Missing}
	if c.kind == evError {
		rev.Err = ev.Err.Error()
	}
	r.buf = r.buf[:0]
	if r.mode == watchJSON || r.runner != nil {
		r.buf = render.AppendEventJSON(r.buf, &rev)
	}
	if r.runner != nil && c.entry != nil {
		r.onTransition(&c, r.buf)
	}
	switch r.mode {
	case watchJSON:
		r.buf = append(r.buf, '\n')
		_, err := r.env.Stdout.Write(r.buf)
		return err
	case watchTSV:
		if c.kind == evError {
			return nil // on stderr only
		}
		r.buf = render.AppendEventTSV(r.buf[:0], &rev)
		_, err := r.env.Stdout.Write(r.buf)
		return err
	}
	return nil
}

// onTransition runs the --exec command when c takes a session into one of
// the --on states: the session is in the view, fresh, in that state, and
// was not before (it was in another state, or stale, or not in the view).
func (r *watchRun) onTransition(c *change, line []byte) {
	e := c.entry
	state := string(e.Status.State)
	if c.kind == evRemoved || e.Verdict != reader.Fresh || !slices.Contains(r.o.onStates, state) {
		delete(r.inOn, e.Name)
		return
	}
	if prev, ok := r.inOn[e.Name]; ok && prev == state {
		return
	}
	r.inOn[e.Name] = state
	r.runner.start(e, line)
}

// report says what went wrong: on stderr, or in the table.
func (r *watchRun) report(msg string) {
	if r.mode == watchTable {
		select {
		case r.messages <- msg:
		default: // the table shows the latest few anyway
		}
		return
	}
	fmt.Fprintf(r.stderr, "statusls: %s\n", msg)
}

// redraw draws the table once the snapshot is in: when the view changed,
// or (force) when the time, the terminal or the messages did; and keeps a
// timer for the next second while the table shows ages or messages.
func (r *watchRun) redraw(force bool) error {
	if r.table == nil || !r.synced || !r.dirty && !force {
		return nil
	}
	r.dirty = false
	now := r.env.Clock.Now()
	if err := r.table.draw(r.view, now); err != nil {
		return err
	}
	if r.tick == nil && (len(r.view.shown) > 0 || len(r.table.msgs) > 0) {
		r.tick = r.env.Clock.NewTimer(time.Second)
		r.tickC = r.tick.C()
	}
	return nil
}

func (r *watchRun) stopTick() {
	if r.tick != nil {
		r.tick.Stop()
		r.tick, r.tickC = nil, nil
	}
}

func (r *watchRun) writeError(err error) int {
	if r.table != nil {
		r.table.end()
	}
	fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
	return ExitError
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
