package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

const pruneDescription = `Removes the status files of sessions that are stale (no heartbeat for more
than 30 s) and whose publisher is provably gone: no process has its pid.
Sessions whose pid is alive are kept; so are sessions whose pid is
unknown, or seems to belong to a process started after the last update (a
step of the wall clock can fake that), unless --older-than says how old is
too old. A session whose heartbeat owner runs, or that is being updated,
is kept. Only the file that was judged is removed: a file replaced
meanwhile (even one that reuses its inode) is left alone.

Also removes the temporary files of writers that are gone, and puts back a
record that an interrupted prune left moved aside.`

// pruneOptions are prune's flags.
type pruneOptions struct {
	common
	dryRun    bool
	olderThan time.Duration
}

func (o *pruneOptions) register(fs *base.FlagSet) {
	fs.Bool(&o.dryRun, "dry-run", false, "say what would be removed, remove nothing")
	fs.Duration(&o.olderThan, "older-than", 0, "D", "also remove stale records older than D (90m, 24h) whose pid is\nunknown or seems reused; choose D longer than any step of the\nclock you expect")
	o.common.register(fs)
}

// prune removes the files of stale sessions whose publisher is gone.
func prune(o *pruneOptions, env *cmdEnv) int {
	if o.olderThan < 0 {
		return usageError(env, "prune: --older-than %v is negative", o.olderThan)
	}
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	d, err := reader.Open(loc.Dir, reader.Options{Clock: atClock(now), Liveness: true})
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(env.Stdout, "no status directory: nothing to prune")
		return base.ExitOK
	}
	if err != nil {
		return dirError(env, err)
	}
	defer d.Close()
	l, err := d.List()
	if err != nil {
		return dirError(env, err)
	}
	g, err := openPruneGuard(loc.Dir, d)
	if err != nil {
		return dirError(env, err)
	}
	defer g.close()
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	stale, removed, failed := 0, 0, false
	fail := func(err error) {
		out.Flush()
		fmt.Fprintf(env.Stderr, "statusls: prune: %v\n", err)
		failed = true
	}
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.Verdict != reader.Stale {
			continue
		}
		stale++
		desc := e.Name + " (session " + strconv.Quote(statusfile.SanitizeText(e.Status.Session))
		if e.Status.Agent != "" {
			desc += ", agent " + statusfile.SanitizeText(e.Status.Agent)
		}
		desc += ")"
		why, ok := judge(e, o.olderThan)
		if !ok {
			fmt.Fprintf(out, "kept %s: %s\n", desc, why)
			continue
		}
		if o.dryRun {
			fmt.Fprintf(out, "would remove %s: %s\n", desc, why)
			removed++
			continue
		}
		ok, busy, err := g.remove(d, e)
		switch {
		case err != nil:
			fail(err)
		case busy != "":
			fmt.Fprintf(out, "kept %s: %s\n", desc, busy)
		case ok:
			fmt.Fprintf(out, "removed %s: %s\n", desc, why)
			removed++
		default:
			fmt.Fprintf(out, "kept %s: replaced or removed meanwhile\n", desc)
		}
	}
	verb := "removed"
	if o.dryRun {
		verb = "would remove"
	}
	if stale == 0 {
		fmt.Fprintln(out, "no stale sessions: nothing to prune")
	} else {
		fmt.Fprintf(out, "%s %d of %d stale session%s\n", verb, removed, stale, plural(stale))
	}
	g.leftovers(out, now, o.dryRun, fail)
	if failed {
		return base.ExitError
	}
	return base.ExitOK
}

// judge decides whether the stale entry e may be removed, and says why
// (SPEC.md D1–D3).
func judge(e *reader.Entry, olderThan time.Duration) (string, bool) {
	why := "stale for " + render.FormatAge(e.Age)
	if e.Age < 0 {
		why = "updated " + agoText(e.Age)
	}
	why += ", " + pidSays(e)
	switch {
	case e.Alive == reader.Dead:
		return why, true
	case e.Alive == reader.Alive:
		return why, false
	case olderThan > 0 && e.Age > olderThan:
		return why + ", older than " + render.FormatAge(olderThan), true
	}
	return why, false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pidSays says what the pid's liveness is.
func pidSays(e *reader.Entry) string {
	pid := strconv.Itoa(e.Status.PID)
	switch e.Alive {
	case reader.Dead:
		return "pid " + pid + " is gone"
	case reader.Reused:
		return "pid " + pid + " seems to belong to a process started after the last update (not proof: the clock may have been set)"
	case reader.Alive:
		return "pid " + pid + " is alive"
	}
	if e.Status.PID <= 0 {
		return "pid unknown"
	}
	return "cannot tell whether pid " + pid + " is alive on this system"
}
