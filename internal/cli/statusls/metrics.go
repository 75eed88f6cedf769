package statusls

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/promtext"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

const metricsDescription = `Prints the sessions as metrics for Prometheus, from one listing of the status
directory: the Prometheus text format (version 0.0.4), or OpenMetrics with
--openmetrics. With --textfile DIR, writes them to DIR/agentstatus.prom for
node_exporter's textfile collector instead (atomically, mode 0644); statusls
watch --metrics-textfile FILE keeps such a file current. statusls opens no
port: node_exporter serves the file. See docs/fleet.md.

Metrics (gauges):
  agentstatus_sessions{state,agent}   fresh sessions; every agent seen has
                                      working, blocked and idle, 0 included
  agentstatus_oldest_seconds{state}   blocked: the longest wait so far (from
                                      waitingFor.since); idle: the oldest
                                      ended turn (from ended.at)
  agentstatus_stale_sessions          records older than 30 s
  agentstatus_invalid_files{reason}   per SPEC.md reason, every reason present
  agentstatus_session{session,agent,state,cwd}
                                      1 per fresh session, with --per-session
                                      only: one series per session
  agentstatus_host_up{host}           with --host: 1 listed, 0 failed
Titles never become labels. Label values are sanitized, cut (agent 64
bytes, session 128, cwd 256) and escaped.

Exit status: 0 success, 1 error (a refused directory, a failed write), 2
usage error; --host: 5 some hosts failed (agentstatus_host_up 0 for them).`

// metricsOptions are the flags of statusls metrics.
type metricsOptions struct {
	common
	openMetrics, perSession bool
	textfile                string
	hostFlags
}

func (o *metricsOptions) register(fs *base.FlagSet, env *cmdEnv) {
	fs.Group("Output")
	fs.Bool(&o.openMetrics, "openmetrics", false, "OpenMetrics 1.0 text (ends in \"# EOF\") instead of the\nPrometheus text format")
	fs.Bool(&o.perSession, "per-session", false, "add agentstatus_session, one series per fresh session\n(unbounded: mind your Prometheus's cardinality)")
	fs.String(&o.textfile, "textfile", "", "DIR", "write DIR/"+promtext.TextfileName+" for node_exporter's textfile\ncollector instead of printing; DIR must not be a symbolic\nlink nor writable by others")
	o.common.register(fs)
	o.hostFlags.register(fs, env, "these hosts (repeatable), each with host=\"H\"; with --local,\nthis machine too, as host=\"\"", true, true)
}

// metricsCmd is statusls metrics.
func metricsCmd(o *metricsOptions, env *cmdEnv) int {
	hosts, cfg, code := o.hostFlags.targets(env)
	if code >= 0 {
		return code
	}
	if o.textfile != "" && o.openMetrics {
		return usageError(env, "metrics: --textfile writes the Prometheus text format, which node_exporter reads: drop --openmetrics")
	}
	popts := promtext.Options{OpenMetrics: o.openMetrics, PerSession: o.perSession, HostLabel: o.hostFlags.active()}
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	var parts []*promtext.Host
	failed := 0
	if !popts.HostLabel || o.hostFlags.local {
		h := promtext.NewHost("", now, o.perSession)
		// Each entry is counted as it is read: nothing of the listing is
		// held but the counts (and, with --per-session, the labels).
		if err := eachRecord(loc.Dir, reader.Options{Clock: atClock(now)}, h.Add); err != nil {
			if !popts.HostLabel {
				return dirError(env, err)
			}
			fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
			h = promtext.NewHost("", now, false)
			h.Failed = true
			failed++
		}
		parts = append(parts, h)
	}
	if popts.HostLabel {
		for _, r := range remote.List(context.Background(), cfg, hosts) {
			h := promtext.NewHost(r.Host, now, o.perSession)
			if r.Err != nil {
				fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", r.Err.Host, r.Err.Msg)
				h.Failed = true
				failed++
			}
			for i := range r.Entries {
				h.Add(&r.Entries[i])
			}
			parts = append(parts, h)
		}
	}
	out := promtext.Append(nil, parts, popts)
	if o.textfile != "" {
		if err := promtext.WriteTextfile(filepath.Join(o.textfile, promtext.TextfileName), out); err != nil {
			return textfileError(env, err)
		}
	} else if _, err := env.Stdout.Write(out); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", base.Message(err))
		return base.ExitError
	}
	return hostsExit(failed, len(parts))
}

// textfileError reports a failed textfile write, with a hint for a
// refused directory.
func textfileError(env *cmdEnv, err error) int {
	fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
	var pe *perm.Error
	if errors.As(err, &pe) && pe.What == promtext.TextfileDir {
		fmt.Fprintln(env.Stderr, "statusls: hint: node_exporter would serve what another account put there; use a directory that is no symbolic link and that only you (and your group) can write, e.g. 'chmod o-w "+shquote.Quote(pe.Path)+"'")
	}
	return base.ExitError
}

// metricsCommand is the metrics subcommand.
func metricsCommand(env *cmdEnv) *base.Command {
	return &base.Command{
		Name:        "metrics",
		Summary:     "print the sessions as Prometheus metrics, or write node_exporter's textfile",
		Usage:       "metrics [--openmetrics] [--per-session] [--textfile DIR] [flags]",
		Description: metricsDescription,
		Examples: `# what Prometheus would read
statusls metrics

# for node_exporter --collector.textfile.directory=/var/lib/node_exporter/textfile
statusls metrics --textfile /var/lib/node_exporter/textfile

# kept current as sessions change (see examples/prometheus)
statusls watch --metrics-textfile /var/lib/node_exporter/textfile/agentstatus.prom

# a few hosts over ssh, each with host="H", this machine as host=""
statusls metrics --host dev1,dev2 --local`,
		Setup: func(fs *base.FlagSet) base.Runner {
			o := &metricsOptions{}
			o.register(fs, env)
			return noArgs(env, "metrics: ", func() int { return metricsCmd(o, env) })
		},
	}
}
