package statusls

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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

// hostsWatch is one run of statusls watch --host.
type hostsWatch struct {
	o       *watchOptions
	env     *Env
	mode    string
	stderr  *lockedWriter
	views   map[string]*view // by host; "" is this machine
	seq     uint64
	buf     []byte
	waiting int  // hosts whose snapshot is not in yet
	synced  bool // the merged synced was printed
	runner  *execRunner
	trig    *trigger // when runner runs its command; sessions by host NUL file name

	// On a terminal: the table (watchhoststable.go).
	table   *tableScreen
	order   []string          // the hosts, "" (this machine) first
	offline map[string]string // host -> why it cannot be reached
	dirty   bool
	tick    clock.Timer
	tickC   <-chan time.Time
}

func watchHosts(o *watchOptions, env *Env) int {
	hosts, cfg, err := o.hostFlags.targets(env)
	if err != nil {
		return usageError(env, "%s", err)
	}
	r := &hostsWatch{o: o, env: env, stderr: &lockedWriter{w: env.Stderr}, views: map[string]*view{}}
	defer r.stderr.close()
	isTerm, termWidth := env.Terminal()
	r.mode = o.outputMode(isTerm)
	sigs := make(chan os.Signal, 4)
	defer env.Signals(sigs, watchSignals(r.mode)...)()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var local <-chan watch.Event
	if o.local {
		loc, err := location.ForReader(o.dir, o.configHome, env.Getenv)
		if err != nil {
			return usageError(env, "%v", err)
		}
		if code := checkDir(env, loc); code >= 0 {
			return code
		}
		w, err := watch.New(loc.Dir, watch.WithClock(env.Clock), watch.WithHeartbeats(o.heartbeats),
			watch.WithLiveness(r.mode == watchJSON || o.execSet))
		if err != nil {
			fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
			return base.ExitError
		}
		defer w.Close()
		local = w.Events()
		r.views[""] = newView(&o.filter)
		r.waiting++
	}
	if o.local {
		r.order = append(r.order, "")
	}
	for _, h := range hosts {
		r.views[h] = newView(&o.filter)
		r.waiting++
		r.order = append(r.order, h)
	}
	r.offline = map[string]string{}
	var keys chan byte // the table's keyboard: q quits
	if r.mode == watchTable {
		r.table = newTableScreen(env, o, location.Location{}, termWidth)
		if err := r.table.begin(); err != nil {
			return r.fail(err)
		}
		defer r.table.end()
		defer func() {
			if r.tick != nil {
				r.tick.Stop()
			}
		}()
		if env.Keyboard != nil {
			if in, restore, err := env.Keyboard(); err == nil {
				defer restore()
				keys = make(chan byte, 16)
				go readKeys(in, keys)
			}
		}
	}
	messages := make(chan string, 16) // the runner's reports, for the table
	if o.execSet {
		var out io.Writer = r.stderr
		if f, ok := env.Stderr.(*os.File); ok {
			out = f
		}
		report := func(msg string) { fmt.Fprintf(r.stderr, "statusls: %s\n", msg) }
		if r.table != nil {
			out = nil // the commands' output would break the table
			report = func(msg string) {
				select {
				case messages <- msg:
				default: // the table shows the latest few anyway
				}
			}
		}
		r.runner = newExecRunner(o.exec, env.Environ(), o.execTimeout, out, report)
		r.trig = newTrigger(o, env.Clock, func(e *reader.Entry, line []byte, extra []string) { r.runner.start(e, line, extra...) })
		defer r.runner.close(env.grace())
		defer r.trig.stop()
	}
	// The table's age column needs every updatedAt.
	heartbeats := o.heartbeats || r.mode == watchTable
	events := remote.Watch(ctx, cfg, hosts, remote.WatchOptions{Heartbeats: heartbeats, Clock: env.Clock})
	eof := stdinEOF(env, o.untilEOF)
	for {
		var err error
		select {
		case <-eof:
			return base.ExitOK
		case k, ok := <-keys:
			if !ok {
				keys = nil // the terminal's input ended: keep watching
				break
			}
			if k == 'q' || k == 'Q' || k == ctrlC {
				return base.ExitOK
			}
		case ev, ok := <-events:
			if !ok {
				return r.fail(errors.New("the watch stopped"))
			}
			err = r.handle(ev.Host, &ev.Event, ev.HostErr)
		case ev, ok := <-local:
			if !ok {
				return r.fail(errors.New("the watcher stopped"))
			}
			err = r.handle("", &ev, nil)
		case msg := <-messages:
			r.table.message(msg, env.Clock.Now())
			r.dirty = true
		case <-r.tickC:
			r.tick, r.tickC = nil, nil
			r.dirty = true
		case <-r.trig.C():
			r.trig.fire()
		case sig := <-sigs:
			if slices.Contains(resizeSignals, sig) {
				r.table.resize()
				r.dirty = true
				break
			}
			return base.ExitOK
		}
		if err == nil {
			err = r.redraw()
		}
		if err != nil {
			return r.fail(err)
		}
	}
}

// redraw draws the table, once every host has sent its snapshot, when
// something changed; and keeps a timer for the next second.
func (r *hostsWatch) redraw() error {
	if r.table == nil || !r.synced || !r.dirty {
		return nil
	}
	r.dirty = false
	if err := r.table.drawHosts(r.order, r.views, r.offline, r.env.Clock.Now()); err != nil {
		return err
	}
	if r.tick == nil {
		r.tick = r.env.Clock.NewTimer(time.Second)
		r.tickC = r.tick.C()
	}
	return nil
}

func (r *hostsWatch) fail(err error) int {
	if r.table != nil {
		r.table.end()
	}
	fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
	return base.ExitError
}

// handle takes in one event of one host ("" for this machine).
func (r *hostsWatch) handle(host string, ev *watch.Event, herr *remote.HostError) error {
	switch ev.Kind {
	case remote.HostOffline:
		r.offline[host], r.dirty = herr.Msg, true
		if r.table == nil {
			fmt.Fprintf(r.stderr, "statusls: host %s offline: %s; retrying\n", statusfile.SanitizeText(host), herr.Msg)
		}
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At, Err: herr.Msg})
	case remote.HostOnline:
		delete(r.offline, host)
		r.dirty = true
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At})
	case watch.Synced:
		r.waiting--
		if r.waiting > 0 || r.synced {
			return nil
		}
		r.synced, r.dirty = true, true
		return r.print("", &render.Event{Kind: evSynced, At: ev.At})
	}
	c, ok := r.views[host].apply(ev)
	if !ok {
		return nil
	}
	r.dirty = true
	if c.kind == evError {
		msg := hostPrefix(host) + statusfile.SanitizeText(ev.Err.Error())
		if r.table != nil {
			r.table.message(msg, r.env.Clock.Now())
		} else {
			fmt.Fprintf(r.stderr, "statusls: %s\n", msg)
		}
		return r.print(host, &render.Event{Kind: evError, At: ev.At, Err: ev.Err.Error()})
	}
	if c.kind == evHeartbeat && !r.o.heartbeats {
		return nil
	}
	rev := render.Event{Kind: c.kind, At: ev.At, Entry: c.entry, Reason: c.reason}
	if err := r.print(host, &rev); err != nil {
		return err
	}
	if r.runner != nil && c.entry != nil {
		line := bytes.TrimSuffix(r.buf, []byte{'\n'})
		r.trig.see(host+"\x00"+c.entry.Name, &c, line, "STATUS_HOST="+statusfile.SanitizeText(host))
	}
	return nil
}

func hostPrefix(host string) string {
	if host == "" {
		return ""
	}
	return "host " + statusfile.SanitizeText(host) + ": "
}

// print numbers ev and writes it as the mode says.
func (r *hostsWatch) print(host string, ev *render.Event) error {
	r.seq++
	ev.Seq = r.seq
	r.buf = remote.AppendEventJSON(r.buf[:0], host, ev)
	switch r.mode {
	case watchJSON:
		r.buf = append(r.buf, '\n')
		_, err := r.env.Stdout.Write(r.buf)
		return err
	case watchTSV:
		if ev.Kind == evError {
			return nil // on stderr only
		}
		line := append([]byte(statusfile.SanitizeText(ev.Kind)+"\t"+tsvHost(host)+"\t"), render.AppendEventTSV(nil, ev)[len(statusfile.SanitizeText(ev.Kind))+1:]...)
		_, err := r.env.Stdout.Write(line)
		return err
	}
	return nil
}
