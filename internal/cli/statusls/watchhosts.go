package statusls

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

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
	inOn    map[string]string // host NUL file name -> its --on state
}

func watchHosts(o *watchOptions, env *Env) int {
	hosts, cfg, err := o.hostFlags.targets(env)
	if err != nil {
		return usageError(env, "%s", err)
	}
	r := &hostsWatch{o: o, env: env, stderr: &lockedWriter{w: env.Stderr}, views: map[string]*view{}}
	defer r.stderr.close()
	switch {
	case o.json:
		r.mode = watchJSON
	case o.execSet && !o.tsv:
		r.mode = watchQuiet
	default:
		r.mode = watchTSV
	}
	sigs := make(chan os.Signal, 4)
	defer env.Signals(sigs, stopSignals...)()
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
			return ExitError
		}
		defer w.Close()
		local = w.Events()
		r.views[""] = newView(&o.filter)
		r.waiting++
	}
	for _, h := range hosts {
		r.views[h] = newView(&o.filter)
		r.waiting++
	}
	if o.execSet {
		var out io.Writer = r.stderr
		if f, ok := env.Stderr.(*os.File); ok {
			out = f
		}
		r.runner = newExecRunner(o.exec, env.Environ(), o.execTimeout, out, func(msg string) { fmt.Fprintf(r.stderr, "statusls: %s\n", msg) })
		r.inOn = map[string]string{}
		defer r.runner.close(execGrace)
	}
	events := remote.Watch(ctx, cfg, hosts, remote.WatchOptions{Heartbeats: o.heartbeats, Now: env.Clock.Now})
	for {
		var err error
		select {
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
		case <-sigs:
			return ExitOK
		}
		if err != nil {
			return r.fail(err)
		}
	}
}

func (r *hostsWatch) fail(err error) int {
	fmt.Fprintf(r.stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
	return ExitError
}

// handle takes in one event of one host ("" for this machine).
func (r *hostsWatch) handle(host string, ev *watch.Event, herr *remote.HostError) error {
	switch ev.Kind {
	case remote.HostOffline:
		fmt.Fprintf(r.stderr, "statusls: host %s offline: %s; retrying\n", statusfile.SanitizeText(host), herr.Msg)
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At, Err: herr.Msg})
	case remote.HostOnline:
		return r.print(host, &render.Event{Kind: string(ev.Kind), At: ev.At})
	case watch.Synced:
		r.waiting--
		if r.waiting > 0 || r.synced {
			return nil
		}
		r.synced = true
		return r.print("", &render.Event{Kind: evSynced, At: ev.At})
	}
	c, ok := r.views[host].apply(ev)
	if !ok {
		return nil
	}
	if c.kind == evError {
		fmt.Fprintf(r.stderr, "statusls: %s%s\n", hostPrefix(host), statusfile.SanitizeText(ev.Err.Error()))
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
		r.onTransition(host, &c)
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

// onTransition runs --exec when a session enters one of the --on states,
// as watch does on this machine, with STATUS_HOST set.
func (r *hostsWatch) onTransition(host string, c *change) {
	e := c.entry
	key := host + "\x00" + e.Name
	state := string(e.Status.State)
	if c.kind == evRemoved || e.Verdict != reader.Fresh || !contains(r.o.onStates, state) {
		delete(r.inOn, key)
		return
	}
	if prev, ok := r.inOn[key]; ok && prev == state {
		return
	}
	r.inOn[key] = state
	line := bytes.TrimSuffix(r.buf, []byte{'\n'})
	r.runner.start(e, line[:len(line):len(line)], "STATUS_HOST="+statusfile.SanitizeText(host))
}
