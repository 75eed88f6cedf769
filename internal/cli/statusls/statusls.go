// Package statusls is the statusls command: it lists the agent sessions of a
// gentle-shell.agent-status/v1 status directory for people (a table on a
// terminal), scripts (TSV, byte-identical to the published jq one-liner),
// status bars (--summary, --count) and programs (--json, --ndjson, --jq),
// follows the changes as they happen (watch) or waits for one (wait), and
// explains (doctor), cleans (prune) and demonstrates (demo) the setup.
//
// All of the command's logic is here, with its streams, environment, clock
// and terminal injected through [Env]; cmd/statusls only calls [Main].
package statusls

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"golang.org/x/term"
)

// cmdEnv is one run of statusls: the process's [base.Env], the program
// parsing its command line (for usage errors), and watch --exec's grace at
// exit (0 means execGrace; tests shorten it).
type cmdEnv struct {
	base.Env
	prog      *base.Program
	execGrace time.Duration
}

// Main runs the command with the process's own environment.
func Main() int {
	// statusls is short-lived and its listing stays live until it is
	// printed: collecting at the default 100 % growth costs two cycles at
	// 10,000 sessions for nothing. At 400 % a 10,000-session listing runs
	// without a collection within 20 MiB (bench/statusls.sh). The memory
	// limit keeps large records from growing the heap to five times what
	// the listing holds (at most about 5 KiB a record: a title is kept only
	// as far as the sanitizer looks): 3,000 records of 60 KiB list within
	// 30 MiB of RSS (bench/memory.sh). Both can be overridden with GOGC and
	// GOMEMLIMIT.
	//
	// watch and wait run for long, with little live memory: they keep the
	// runtime's garbage collection defaults. Their work is one event at a
	// time, so one P is enough, and fewer Ps means fewer idle wake-ups: with
	// 1,000 sessions heartbeating every 10 s, statusls watch --json used
	// 1.35-1.60 % of a core with GOMAXPROCS=1 against 1.55-1.83 % with 2
	// (CPU time over 60 s, two runs each, on the 2-core development VM).
	// (Flags may come before the subcommand: look for it anywhere.)
	longRunning := slices.Contains(os.Args[1:], "watch") || slices.Contains(os.Args[1:], "wait")
	if longRunning && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if !longRunning {
		tuneGC(os.Getenv, 400, 24<<20)
	}
	env := base.OSEnv()
	// Whether stdout is a terminal (a console on Windows) and, if so, its
	// width in columns; its height in lines. 0 when the terminal does not
	// say: term.GetSize answers 0 with its error.
	fd := int(os.Stdout.Fd())
	env.Terminal = func() (bool, int) {
		if !term.IsTerminal(fd) {
			return false, 0
		}
		w, _, _ := term.GetSize(fd)
		return true, w
	}
	env.Rows = func() int {
		_, h, _ := term.GetSize(fd)
		return h
	}
	env.Keyboard = func() (io.Reader, func(), error) { return keyboard(os.Stdin) }
	return Run(os.Args[1:], env)
}

// tuneGC sets the garbage collector's percent and soft memory limit,
// each unless GOGC or GOMEMLIMIT says otherwise, and returns what restores
// them.
func tuneGC(getenv func(string) string, percent int, limit int64) (restore func()) {
	gc, oldLimit := -2, int64(-1)
	if getenv("GOGC") == "" {
		gc = debug.SetGCPercent(percent)
	}
	if getenv("GOMEMLIMIT") == "" {
		oldLimit = debug.SetMemoryLimit(limit)
	}
	return func() {
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
}

// usageError reports a usage error.
func usageError(env *cmdEnv, format string, args ...any) int {
	return env.prog.ReportUsage(format, args...)
}

// Run runs statusls with args (without the program name).
func Run(args []string, e base.Env) int {
	return runEnv(args, &cmdEnv{Env: e})
}

// runEnv is Run with the whole cmdEnv, which tests set up themselves.
func runEnv(args []string, env *cmdEnv) int {
	env.Fill()
	// --arg and --argjson take two values, which no flag parser
	// expresses: take them out first.
	var jqArgs []jqrun.Var
	p := program(env, &jqArgs, args)
	rest, err := extractJQArgs(args, &jqArgs)
	if err != nil {
		return usageError(env, "%v", err)
	}
	return p.Run(rest)
}

// resolve finds the directory and the time.
func (c *common) resolve(env *cmdEnv) (location.Location, time.Time, error) {
	loc, err := location.ForReader(c.dir, c.configHome, env.Getenv)
	if err != nil {
		return loc, time.Time{}, err
	}
	now := env.Clock.Now()
	if c.now != "" {
		t, ok := timefmt.Parse(c.now)
		if !ok {
			return loc, now, fmt.Errorf("--now: %q is not an RFC 3339 time (e.g. 2026-07-17T12:34:56.000Z)", c.now)
		}
		now = t
	}
	return loc, now, nil
}

// atClock is the clock of a one-shot listing: it reads the moment statusls
// took once, so that verdicts and the ages printed agree. Its timers are
// the system's (a listing arms none).
type atClock time.Time

func (c atClock) Now() time.Time { return time.Time(c) }

func (atClock) NewTimer(d time.Duration) clock.Timer { return clock.System.NewTimer(d) }
