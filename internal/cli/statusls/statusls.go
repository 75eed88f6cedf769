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
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Exit codes.
const (
	ExitOK      = 0 // success, also when there are no sessions
	ExitError   = 1 // a runtime error: a refused directory, a failing --jq filter
	ExitUsage   = 2 // a usage error: an unknown flag, a bad value, a --jq syntax error
	ExitTimeout = 3 // wait: the --timeout passed first
	ExitGone    = 4 // wait: the session went away while waiting for a state
)

// Env is what the command gets from its process. Tests build their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ lists the environment, for $ENV and env in --jq filters.
	Environ func() []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Terminal reports whether stdout is a terminal and its width in
	// columns (0 when unknown); nil means not a terminal.
	Terminal func() (bool, int)
	// Rows is the terminal's height in lines (0 when unknown); nil means
	// unknown. The watch table uses it.
	Rows func() int
	// Clock drives watch and wait (freshness, timers); nil means the
	// system clock.
	Clock statusfile.Clock
	// Signals relays sig to c until the returned function is called, as
	// signal.Notify and signal.Stop do (nil means them). watch stops on
	// SIGINT and SIGTERM, and redraws its table on SIGWINCH.
	Signals func(c chan<- os.Signal, sig ...os.Signal) (stop func())
	// TempDir is where demo makes its temporary config home; "" means
	// os.TempDir().
	TempDir string
}

// Main runs the command with the process's own environment.
func Main() int {
	// statusls is short-lived and its listing stays live until it is
	// printed: collecting at the default 100 % growth costs two cycles at
	// 10,000 sessions for nothing. At 400 % a 10,000-session listing runs
	// without a collection within 20 MiB (bench/statusls.sh); the memory
	// limit keeps very large directories from growing the heap to five
	// times what they hold. Both can be overridden with GOGC and
	// GOMEMLIMIT.
	//
	// watch and wait run for long, with little live memory: they keep the
	// runtime's garbage collection defaults. Their work is one event at a
	// time, so one P is enough, and fewer Ps means fewer idle wake-ups: with
	// 1,000 sessions heartbeating every 10 s, statusls watch --json used
	// 1.35-1.60 % of a core with GOMAXPROCS=1 against 1.55-1.83 % with 2
	// (CPU time over 60 s, two runs each, on the 2-core development VM).
	longRunning := len(os.Args) > 1 && (os.Args[1] == "watch" || os.Args[1] == "wait")
	if longRunning && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" && !longRunning {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" && !longRunning {
		debug.SetMemoryLimit(256 << 20)
	}
	return Run(os.Args[1:], Env{
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		Environ:  os.Environ,
		Terminal: func() (bool, int) { return terminal(os.Stdout) },
		Rows:     func() int { return terminalRows(os.Stdout) },
	})
}

func (env *Env) fill() {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Environ == nil {
		env.Environ = func() []string { return nil }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Terminal == nil {
		env.Terminal = func() (bool, int) { return false, 0 }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Rows == nil {
		env.Rows = func() int { return 0 }
	}
	if env.Clock == nil {
		env.Clock = statusfile.SystemClock
	}
	if env.Signals == nil {
		env.Signals = func(c chan<- os.Signal, sig ...os.Signal) func() {
			signal.Notify(c, sig...)
			return func() { signal.Stop(c) }
		}
	}
}

const usage = `statusls lists what your coding agents are doing, from their status files
(gentle-shell.agent-status/v1).

Usage:
  statusls [flags]                  list the fresh sessions
  statusls --jq FILTER [-r] [...]   run a jq program over every status file
  statusls watch [flags]            follow the changes: a live table, or one line per event
  statusls wait [flags]             wait until a session is in a state, or gone
  statusls doctor                   explain the setup: which directory, why, what is in it
  statusls prune [--dry-run]        remove files of sessions whose publisher is gone
  statusls demo                     publish a few sessions into a temporary directory and list them

'statusls watch --help' and 'statusls wait --help' describe their flags.

Output (one of; default: a table on a terminal, else TSV):
  --table             an aligned table, most urgent first (blocked, working, idle)
  --tsv               agent<TAB>session<TAB>state<TAB>title, as the published jq one-liner
  --json              a JSON array of sessions (see "JSON" below)
  --ndjson            one JSON object per line
  --summary           one line for status bars: "1 blocked · 2 working"; nothing when none
  --count             the number of sessions

Selection:
  --all               include stale sessions (and, in JSON, invalid files with their reason)
  --state S[,S]       only sessions in these states (working, blocked, idle, or any other)
  --agent A[,A]       only sessions of these agents
  --cwd PREFIX        only sessions whose cwd is PREFIX or below (~ is expanded)
  --sort ORDER        attention (the table's default), updated, or name (the default otherwise)
  --now TIME          judge freshness at TIME (RFC 3339) instead of the clock

jq:
  --jq FILTER         run FILTER (jq syntax, by gojq) over the JSON object of every readable
                      status file, in file-name order, strings sanitized for display
  -r                  print strings raw, without quotes (like jq -r)
  -c                  print other values compactly (default: indented by two spaces)
  --arg NAME VALUE    $NAME is the string VALUE
  --argjson NAME JSON $NAME is the JSON value
  --jq-timeout DUR    stop a filter that runs longer (default 5s)

Where:
  --dir DIR           the status directory itself
  --config-home DIR   the config home (the status directory is DIR/agent-status)
                      Without these: $STATUS_DIR, else $GENTLE_PI_CONFIG_HOME/agent-status,
                      else ~/.pi/gentle-ai/agent-status.

Other machines (over ssh, each running statusls; see README.md):
  --host H[,H]        list these hosts (repeatable), with a HOST column or a "host" key
  --all-hosts         the hosts of $STATUSLS_HOSTS, else of ~/.config/agentstatus/hosts
  --local             with --host or --all-hosts: this machine too
  --host-timeout DUR  give up on a host after DUR (default 10s)

Terminal:
  --color WHEN        auto (default: on a terminal, unless NO_COLOR is set), always, never
                      The table fits $COLUMNS, else the terminal's width, else 80 columns.

Exit status: 0 success (also with no sessions), 1 error, 2 usage error; wait: 3 timeout,
4 the session went away; --host: 5 some hosts failed (one line each on stderr), the
others listed.

Examples:
  # tmux: in ~/.tmux.conf
  set -g status-right '#(statusls --summary)'
  set -g status-interval 2

  # bash prompt: show how many agents wait for you
  PS1='$(n=$(statusls --count --state blocked); [ "$n" -gt 0 ] && echo "[$n blocked] ")'"$PS1"

  # the published jq one-liner's filter, run safely
  statusls -r --jq 'select(.schema == "gentle-shell.agent-status/v1") |
    select((now - (.updatedAt | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)) <= 30) |
    [.agent, .session, .state, (.task.title // "")] | @tsv'

  # sessions working under the current project, as JSON
  statusls --json --cwd . --state working

  # titles of blocked sessions
  statusls -r --jq 'select(.state == "blocked") | .task.title // empty'

  # a live table of the sessions; or, for editors, one JSON object per change
  statusls watch
  statusls watch --json

  # a desktop notification each time an agent starts waiting for you
  statusls watch --on blocked --exec 'notify-send "$STATUS_AGENT is waiting" "$STATUS_TITLE"'

  # in a script: go on when session $ID has finished its turn (exit 4 if it ends first)
  statusls wait --session "$ID" --state idle --timeout 30m

  # wait until an agent working under this project needs you, and say which
  statusls wait --any --state blocked --cwd .

  # this machine and two dev boxes, in the tmux line (each runs statusls over ssh)
  set -g status-right '#(statusls --summary --local --host devbox,gpu)'

JSON (--json, --ndjson; a stable format): one object per session with the keys
file, schema, session, agent, pid, cwd, state, title, updatedAt, fresh, age
(seconds), alive (true, false or null), verdict (fresh, stale or invalid),
reason and error (for invalid files, listed with --all); unknown values are null.
With --host, "host" comes first (null for this machine), and a host that failed is
one object with "verdict":"host-error", its kind in "reason", "error" and "hint".
`

// usageError reports a usage error.
func usageError(env *Env, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statusls: "+format+"\n", args...)
	fmt.Fprintln(env.Stderr, "statusls: hint: run 'statusls --help' for usage")
	return ExitUsage
}

// Run runs statusls with args (without the program name).
func Run(args []string, env Env) int {
	env.fill()
	if len(args) > 0 {
		switch args[0] {
		case "doctor":
			return doctor(args[1:], &env)
		case "prune":
			return prune(args[1:], &env)
		case "demo":
			return demo(args[1:], &env)
		case "watch":
			return watchCmd(args[1:], &env)
		case "wait":
			return waitCmd(args[1:], &env)
		case "help":
			fmt.Fprint(env.Stdout, usage)
			return ExitOK
		}
	}
	o, code := parseList(args, &env)
	if code >= 0 {
		return code
	}
	return list(o, &env)
}

// common are the flags every subcommand takes.
type common struct {
	dir, configHome string
	now             string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "dir", "", "status directory")
	fs.StringVar(&c.configHome, "config-home", "", "config home")
	fs.StringVar(&c.now, "now", "", "judge freshness at this time")
}

// resolve finds the directory and the time.
func (c *common) resolve(env *Env) (location.Location, time.Time, error) {
	loc, err := location.ForReader(c.dir, c.configHome, env.Getenv)
	if err != nil {
		return loc, time.Time{}, err
	}
	now := env.Now()
	if c.now != "" {
		t, ok := statusfile.ParseTime(c.now)
		if !ok {
			return loc, now, fmt.Errorf("--now: %q is not an RFC 3339 time (e.g. 2026-07-17T12:34:56.000Z)", c.now)
		}
		now = t
	}
	return loc, now, nil
}

// newFlagSet returns a flag set that reports its errors to us.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args, handling --help and errors. It returns -1 to go on.
func parseFlags(fs *flag.FlagSet, args []string, env *Env, help string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, help)
			return ExitOK
		}
		return usageError(env, "%s", strings.TrimPrefix(err.Error(), "flag: "))
	}
	if fs.NArg() > 0 {
		return usageError(env, "unexpected argument %q", fs.Arg(0))
	}
	return -1
}

// listOptions are the flags of the listing command.
type listOptions struct {
	common
	table, tsv, json, ndjson, summary, count bool
	all                                      bool
	states, agents                           string
	cwd                                      string
	sort                                     string
	color                                    string

	jq        string
	jqSet     bool
	raw       bool
	compact   bool
	jqArgs    []jqArg
	jqTimeout time.Duration

	filter render.Filter
	order  render.Order
	mode   string

	hostFlags // --host: hosts.go
}

func parseList(args []string, env *Env) (*listOptions, int) {
	o := &listOptions{}
	// --arg and --argjson take two values, which package flag cannot
	// express: take them out first.
	rest, err := extractJQArgs(args, &o.jqArgs)
	if err != nil {
		return nil, usageError(env, "%v", err)
	}
	fs := newFlagSet("statusls")
	o.common.register(fs)
	fs.BoolVar(&o.table, "table", false, "")
	fs.BoolVar(&o.tsv, "tsv", false, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.ndjson, "ndjson", false, "")
	fs.BoolVar(&o.summary, "summary", false, "")
	fs.BoolVar(&o.count, "count", false, "")
	fs.BoolVar(&o.all, "all", false, "")
	fs.StringVar(&o.states, "state", "", "")
	fs.StringVar(&o.agents, "agent", "", "")
	fs.StringVar(&o.cwd, "cwd", "", "")
	fs.StringVar(&o.sort, "sort", "", "")
	fs.StringVar(&o.color, "color", "auto", "")
	fs.Func("jq", "", func(s string) error { o.jq, o.jqSet = s, true; return nil })
	fs.BoolVar(&o.raw, "r", false, "")
	fs.BoolVar(&o.raw, "raw-output", false, "")
	fs.BoolVar(&o.compact, "c", false, "")
	fs.BoolVar(&o.compact, "compact-output", false, "")
	fs.DurationVar(&o.jqTimeout, "jq-timeout", 5*time.Second, "")
	o.hostFlags.register(fs)
	if code := parseFlags(fs, rest, env, usage); code >= 0 {
		return nil, code
	}

	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{o.table, "table"}, {o.tsv, "tsv"}, {o.json, "json"}, {o.ndjson, "ndjson"}, {o.summary, "summary"}, {o.count, "count"}, {o.jqSet, "jq"}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	if len(modes) > 1 {
		return nil, usageError(env, "--%s and --%s cannot be combined", modes[0], modes[1])
	}
	if len(modes) == 1 {
		o.mode = modes[0]
	}
	if o.mode == "jq" {
		for _, f := range []struct {
			set  bool
			name string
		}{{o.all, "all"}, {o.states != "", "state"}, {o.agents != "", "agent"}, {o.cwd != "", "cwd"}, {o.sort != "", "sort"}} {
			if f.set {
				return nil, usageError(env, "--jq cannot be combined with --%s: select in the filter instead", f.name)
			}
		}
		if o.jqTimeout <= 0 {
			return nil, usageError(env, "--jq-timeout must be positive")
		}
	} else {
		switch {
		case o.raw:
			return nil, usageError(env, "-r needs --jq")
		case o.compact:
			return nil, usageError(env, "-c needs --jq")
		case len(o.jqArgs) > 0:
			return nil, usageError(env, "--arg and --argjson need --jq")
		}
	}
	switch o.color {
	case "auto", "always", "never":
	default:
		return nil, usageError(env, "--color: %q is not auto, always or never", o.color)
	}
	o.filter = render.Filter{All: o.all, Invalid: o.all && (o.mode == "json" || o.mode == "ndjson")}
	o.filter.States = splitList(o.states)
	o.filter.Agents = splitList(o.agents)
	if o.cwd != "" {
		p, err := expandPath(o.cwd, env)
		if err != nil {
			return nil, usageError(env, "--cwd: %v", err)
		}
		o.filter.Cwd = p
	}
	if o.sort != "" {
		ord, err := render.ParseOrder(o.sort)
		if err != nil {
			return nil, usageError(env, "--sort: %v", err)
		}
		o.order = ord
	}
	return o, -1
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// list is the listing command.
func list(o *listOptions, env *Env) int {
	if o.hostFlags.active() {
		return listHosts(o, env)
	}
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	if o.mode == "jq" {
		return runJQ(o, loc, now, env)
	}
	isTerm, termWidth := env.Terminal()
	mode := o.mode
	if mode == "" {
		mode = "tsv"
		if isTerm {
			mode = "table"
		}
	}
	opts := reader.Options{
		Now:      func() time.Time { return now },
		Liveness: mode == "json" || mode == "ndjson",
	}
	l, err := reader.List(loc.Dir, opts)
	if err != nil {
		return dirError(env, loc, err)
	}
	entries := render.Select(l.Entries, &o.filter)
	order := o.order
	if order == "" {
		order = render.ByName
		if mode == "table" {
			order = render.ByAttention
		}
	}
	render.Sort(entries, order)

	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	switch mode {
	case "tsv":
		for i := range entries {
			if entries[i].Verdict == reader.Invalid {
				continue
			}
			buf = render.AppendTSV(buf[:0], &entries[i].Status)
			out.Write(buf)
		}
	case "json":
		if len(entries) == 0 {
			out.WriteString("[]\n")
			break
		}
		out.WriteString("[\n")
		for i := range entries {
			buf = render.AppendJSON(buf[:0], &entries[i])
			if i < len(entries)-1 {
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
			out.Write(buf)
		}
		out.WriteString("]\n")
	case "ndjson":
		for i := range entries {
			buf = render.AppendJSON(buf[:0], &entries[i])
			buf = append(buf, '\n')
			out.Write(buf)
		}
	case "summary":
		if s := render.Summary(entries); s != "" {
			out.WriteString(s + "\n")
		}
	case "count":
		n := 0
		for i := range entries {
			if entries[i].Verdict != reader.Invalid {
				n++
			}
		}
		out.WriteString(strconv.Itoa(n) + "\n")
	case "table":
		writeTable(out, entries, o, l, loc, isTerm, termWidth, env)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %v\n", err)
		return ExitError
	}
	return ExitOK
}

func writeTable(out io.Writer, entries []reader.Entry, o *listOptions, l *reader.Listing, loc location.Location, isTerm bool, termWidth int, env *Env) {
	if len(entries) == 0 {
		if isTerm {
			what := "fresh sessions"
			if o.all {
				what = "sessions"
			}
			if o.filter.Narrowed() {
				what = "matching " + what
			}
			fmt.Fprintf(out, "no %s in %s\n", what, quotePath(render.TildePath(loc.Dir, env.Getenv("HOME"))))
			if l.Missing {
				fmt.Fprintln(out, "(the directory does not exist yet; run 'statusls doctor' if you expected sessions)")
			}
		}
		return
	}
	io.WriteString(out, render.Table(entries, render.TableOptions{
		Width: tableWidth(env, termWidth),
		Color: useColor(o.color, isTerm, env),
		Home:  env.Getenv("HOME"),
	}))
}

// tableWidth is $COLUMNS, else the terminal's width, else 80.
func tableWidth(env *Env, termWidth int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(env.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if termWidth > 0 {
		return termWidth
	}
	return 80
}

// useColor decides --color: auto colours a terminal unless NO_COLOR is set
// (to anything non-empty, see no-color.org) or TERM is dumb.
func useColor(when string, isTerm bool, env *Env) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	return isTerm && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb"
}

// expandPath expands a leading ~ and makes p absolute.
func expandPath(p string, env *Env) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := env.Getenv("HOME")
		if home == "" {
			return "", errors.New("cannot expand ~: HOME is not set")
		}
		p = home + p[1:]
	}
	return filepath.Abs(p)
}

// dirError reports a status directory that cannot be listed.
func dirError(env *Env, loc location.Location, err error) int {
	var pe *perm.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", strings.TrimPrefix(pe.Error(), "perm: "))
		fmt.Fprintf(env.Stderr, "statusls: hint: %s\n", refusalHint(pe))
		return ExitError
	}
	fmt.Fprintf(env.Stderr, "statusls: %v\n", err)
	fmt.Fprintln(env.Stderr, "statusls: hint: run 'statusls doctor' to check the setup")
	return ExitError
}

// refusalHint says what to do about a refused directory.
func refusalHint(pe *perm.Error) string {
	switch {
	case errors.Is(pe.Err, perm.ErrSymlink):
		return "readers do not follow a symbolic link at the status directory (SPEC.md R2); point --dir or $STATUS_DIR at the real directory"
	case errors.Is(pe.Err, perm.ErrWritable), errors.Is(pe.Err, perm.ErrAccessible):
		return "others could forge sessions there (SPEC.md R2, P4); run 'chmod 700 " + shellQuote(pe.Path) + "'"
	case errors.Is(pe.Err, perm.ErrNotOwned):
		return "the directory belongs to another account, whose files could be forged (SPEC.md R2); use your own with --dir or --config-home"
	case errors.Is(pe.Err, perm.ErrNotDir):
		return "the status directory is not a directory; check --dir, $STATUS_DIR and $GENTLE_PI_CONFIG_HOME with 'statusls doctor'"
	}
	return "run 'statusls doctor' to check the setup"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@~", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quotePath shows a path (or name) safely: as it is when it is printable,
// else Go-quoted with control, invisible and bidi characters escaped.
func quotePath(s string) string {
	q := strconv.QuoteToGraphic(s)
	if q[1:len(q)-1] == s && !strings.ContainsAny(s, ` "'\`) {
		return s
	}
	return q
}
