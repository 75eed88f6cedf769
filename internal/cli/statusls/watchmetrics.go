package statusls

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/promtext"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

// Writes of statusls watch --metrics-textfile: at most one per
// metricsMinGap, so that a burst of changes costs one write; and one at
// least every metricsRefresh without any, so that agentstatus_oldest_seconds
// moves on and node_textfile_mtime_seconds tells a running watch from a
// stopped one (examples/prometheus/agentstatus.rules.yml alerts on it).
// The refresh is a rewrite from memory: the directory is not read again.
const (
	metricsMinGap  = 250 * time.Millisecond
	metricsRefresh = 15 * time.Second
)

func (o *watchOptions) registerMetrics(fs *base.FlagSet) {
	fs.Group("Metrics (see 'statusls help metrics')")
	fs.String(&o.metricsFile, "metrics-textfile", "", "FILE", `keep FILE current with what 'statusls metrics' prints, for
node_exporter's textfile collector: rewritten atomically (mode
0644) on every change, at most every 250 ms, and every 15 s
for the ages; nothing else is printed. FILE's directory must
not be a symbolic link nor writable by others`)
}

// watchMetrics is statusls watch --metrics-textfile FILE: the watcher's
// view of this machine's directory, invalid files included, written as
// metrics to FILE until a signal stops it. A crash leaves the last
// complete file.
func watchMetrics(o *watchOptions, env *cmdEnv) int {
	for _, name := range []string{"json", "tsv", "on", "exec", "after", "after-working", "cooldown", "all", "state", "agent", "cwd", "heartbeats", "host", "all-hosts", "local", "wide", "color"} {
		if o.given.Changed(name) {
			return usageError(env, "--metrics-textfile cannot be combined with --%s: it counts every session of this machine (run it on each host)", name)
		}
	}
	w, _, code := watchDir(o.dir, o.configHome, watch.Options{Clock: env.Clock, Invalid: true}, env)
	if code >= 0 {
		return code
	}
	defer w.Close()
	sigs := make(chan os.Signal, 4)
	defer env.Signals(sigs, stopSignals...)()

	m := &metricsWriter{path: o.metricsFile, clock: env.Clock, view: map[string]*reader.Entry{}}
	defer m.stop()
	events := w.Events()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				fmt.Fprintln(env.Stderr, "statusls: the watcher stopped")
				return base.ExitError
			}
			// Take in what is already waiting (1,024 events at most)
			// before writing: a burst is one write.
			for n := 0; ok && n <= 1024; n++ {
				m.take(&ev, env)
				select {
				case ev, ok = <-events:
				default:
					ok = false
				}
			}
		case <-m.gapC:
			m.gap, m.gapC = nil, nil
		case <-m.refreshC:
			m.refresh, m.refreshC = nil, nil
			m.dirty = true
		case <-sigs:
			return base.ExitOK
		}
		if err := m.maybeWrite(); err != nil {
			if !m.written {
				// The first write: a refused directory is an error at
				// start, as a refused status directory is.
				return textfileError(env, err)
			}
			m.report(env, err)
		}
	}
}

// take applies one event of the watcher to the view.
func (m *metricsWriter) take(ev *watch.Event, env *cmdEnv) {
	switch ev.Kind {
	case watch.Synced:
		m.synced = true
	case watch.Error:
		fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(ev.Err)))
		return
	default:
		if ev.After != nil {
			m.view[ev.Name] = ev.After
		} else {
			delete(m.view, ev.Name)
		}
	}
	m.dirty = true
}

// metricsWriter keeps the view and writes it, coalescing.
type metricsWriter struct {
	path    string
	clock   clock.Clock
	view    map[string]*reader.Entry
	synced  bool // the snapshot is in
	dirty   bool // the file is behind the view (or the time)
	written bool // one write succeeded
	last    time.Time
	lastErr string

	gap, refresh   clock.Timer
	gapC, refreshC <-chan time.Time
	buf            []byte
}

// maybeWrite writes the file when it is behind and the last write is at
// least metricsMinGap ago; otherwise it arms the timer for when it will
// be.
func (m *metricsWriter) maybeWrite() error {
	if !m.synced || !m.dirty || m.gap != nil {
		return nil
	}
	now := m.clock.Now()
	if wait := m.last.Add(metricsMinGap).Sub(now); !m.last.IsZero() && wait > 0 {
		m.gap = m.clock.NewTimer(wait)
		m.gapC = m.gap.C()
		return nil
	}
	h := promtext.NewHost("", now, false)
	for _, e := range m.view {
		h.Add(e)
	}
	m.buf = promtext.Append(m.buf[:0], []*promtext.Host{h}, promtext.Options{})
	m.last, m.dirty = now, false
	if m.refresh != nil {
		m.refresh.Stop()
	}
	m.refresh = m.clock.NewTimer(metricsRefresh)
	m.refreshC = m.refresh.C()
	if err := promtext.WriteTextfile(m.path, m.buf); err != nil {
		return err
	}
	m.written, m.lastErr = true, ""
	return nil
}

// report says on stderr why a write failed, once until one succeeds
// again or the reason changes.
func (m *metricsWriter) report(env *cmdEnv, err error) {
	msg := statusfile.SanitizeText(base.Message(err))
	if msg == m.lastErr {
		return
	}
	m.lastErr = msg
	fmt.Fprintf(env.Stderr, "statusls: %s; still watching\n", msg)
	var pe *perm.Error
	if errors.As(err, &pe) {
		fmt.Fprintln(env.Stderr, "statusls: hint: the file is written again at the next change once the directory is safe")
	}
}

func (m *metricsWriter) stop() {
	if m.gap != nil {
		m.gap.Stop()
	}
	if m.refresh != nil {
		m.refresh.Stop()
	}
}
