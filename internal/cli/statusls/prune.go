package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"io/fs"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

const pruneDescription = `Removes the status files of sessions that are stale (no heartbeat for more
than 30 s) and whose publisher is provably gone: no process has its pid, or
the process that has it started after the record was written (the pid was
reused). Sessions whose pid is alive or unknown are kept: a publisher in
another pid namespace or on another host looks dead from here, and the
heartbeat, not the pid, is the evidence. Only regular status files of the
current account in the status directory are ever removed, and only if they
are still the file that was read.`

// pruneOptions are prune's flags.
type pruneOptions struct {
	common
	dryRun bool
}

func (o *pruneOptions) register(fs *base.FlagSet, env *Env) {
	fs.Bool(&o.dryRun, "dry-run", false, "say what would be removed, remove nothing")
	o.common.register(fs, env)
}

// prune removes the files of stale sessions whose publisher is gone.
func prune(o *pruneOptions, env *Env) int {
	c, dryRun := &o.common, o.dryRun
	loc, now, err := c.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	d, err := reader.Open(loc.Dir, reader.Options{Clock: atClock(now), Liveness: true})
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(env.Stdout, "no status directory: nothing to prune")
		return ExitOK
	}
	if err != nil {
		return dirError(env, loc, err)
	}
	defer d.Close()
	l, err := d.List()
	if err != nil {
		return dirError(env, loc, err)
	}
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	stale, removed, failed := 0, 0, false
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.Verdict != reader.Stale {
			continue
		}
		stale++
		why := staleFor(e.Age) + ", " + pidSays(e)
		desc := e.Name + " (session " + strconv.Quote(statusfile.SanitizeText(e.Status.Session))
		if e.Status.Agent != "" {
			desc += ", agent " + statusfile.SanitizeText(e.Status.Agent)
		}
		desc += ")"
		if !e.Alive.Gone() {
			fmt.Fprintf(out, "kept %s: %s\n", desc, why)
			continue
		}
		if dryRun {
			fmt.Fprintf(out, "would remove %s: %s\n", desc, why)
			removed++
			continue
		}
		ok, err := d.Remove(e)
		switch {
		case err != nil:
			out.Flush()
			fmt.Fprintf(env.Stderr, "statusls: prune: %v\n", err)
			failed = true
		case ok:
			fmt.Fprintf(out, "removed %s: %s\n", desc, why)
			removed++
		default:
			fmt.Fprintf(out, "kept %s: replaced or removed meanwhile\n", desc)
		}
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	switch {
	case stale == 0:
		fmt.Fprintln(out, "no stale sessions: nothing to prune")
	default:
		fmt.Fprintf(out, "%s %d of %d stale session%s\n", verb, removed, stale, plural(stale))
	}
	if failed {
		return ExitError
	}
	return ExitOK
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// staleFor says how stale a record is.
func staleFor(age time.Duration) string {
	if age < 0 {
		return "updated " + render.FormatAge(age) + " (in the future)"
	}
	return "stale for " + render.FormatAge(age)
}

// pidSays says what the pid's liveness is.
func pidSays(e *reader.Entry) string {
	pid := strconv.Itoa(e.Status.PID)
	switch e.Alive {
	case reader.Dead:
		return "pid " + pid + " is gone"
	case reader.Reused:
		return "pid " + pid + " now belongs to a process started after the last update"
	case reader.Alive:
		return "pid " + pid + " is alive"
	}
	if e.Status.PID <= 0 {
		return "pid unknown"
	}
	return "cannot tell whether pid " + pid + " is alive on this system"
}
