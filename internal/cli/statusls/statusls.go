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
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Exit codes.
const (
	ExitOK      = base.ExitOK    // success, also when there are no sessions
	ExitError   = base.ExitError // a runtime error: a refused directory, a failing --jq filter
	ExitUsage   = base.ExitUsage // a usage error: an unknown flag, a bad value, a --jq syntax error
	ExitTimeout = 3              // wait: the --timeout passed first
	ExitGone    = 4              // wait: the session went away while waiting for a state
	ExitPartial = 5              // --host: some hosts could not be listed; the others were
)

// Env is what the command gets from its process. Tests build their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ lists the environment, for $ENV and env in --jq filters.
	Environ func() []string
	// Terminal reports whether stdout is a terminal and its width in
	// columns (0 when unknown); nil means not a terminal.
	Terminal func() (bool, int)
	// Rows is the terminal's height in lines (0 when unknown); nil means
	// unknown. The watch table uses it.
	Rows func() int
	// Clock is the command's time: what "now" is for a listing, and the
	// timers of watch and wait. nil means the system clock.
	Clock statusfile.Clock
	// Signals relays sig to c until the returned function is called, as
	// signal.Notify and signal.Stop do (nil means them). watch stops on
	// SIGINT and SIGTERM, and redraws its table on SIGWINCH.
	Signals func(c chan<- os.Signal, sig ...os.Signal) (stop func())
	// TempDir is where demo makes its temporary config home; "" means
	// os.TempDir().
	TempDir string
	// Keyboard gives watch's table the keys typed on the terminal, unechoed
	// and one at a time, and the function that restores the terminal; nil
	// (or an error) means no keyboard. q quits.
	Keyboard func() (io.Reader, func(), error)

	prog *base.Program // the program running, for usage errors
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
	// (Flags may come before the subcommand: look for it anywhere.)
	longRunning := slices.Contains(os.Args[1:], "watch") || slices.Contains(os.Args[1:], "wait")
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
		Keyboard: func() (io.Reader, func(), error) { return keyboard(os.Stdin) },
	})
}

func (env *Env) fill() {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Environ == nil {
		env.Environ = func() []string { return nil }
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

// usageError reports a usage error.
func usageError(env *Env, format string, args ...any) int {
	prog := env.prog
	if prog == nil { // before the command line is parsed
		prog = program(env, nil, nil)
	}
	return prog.ReportUsage(format, args...)
}

// Run runs statusls with args (without the program name).
func Run(args []string, env Env) int {
	env.fill()
	// --arg and --argjson take two values, which no flag parser
	// expresses: take them out first.
	var jqArgs []jqArg
	rest, err := extractJQArgs(args, &jqArgs)
	if err != nil {
		return usageError(&env, "%v", err)
	}
	return program(&env, jqArgs, args).Run(rest)
}

// resolve finds the directory and the time.
func (c *common) resolve(env *Env) (location.Location, time.Time, error) {
	loc, err := location.ForReader(c.dir, c.configHome, env.Getenv)
	if err != nil {
		return loc, time.Time{}, err
	}
	now := env.Clock.Now()
	if c.now != "" {
		t, ok := statusfile.ParseTime(c.now)
		if !ok {
			return loc, now, fmt.Errorf("--now: %q is not an RFC 3339 time (e.g. 2026-07-17T12:34:56.000Z)", c.now)
		}
		now = t
	}
	return loc, now, nil
}

// listOptions are the flags of the listing command.
type listOptions struct {
	common
	table, tsv, json, ndjson, summary, count bool
	wide                                     bool
	jsonFields                               string
	fields                                   []string
	given                                    *base.FlagSet
	all                                      bool
	states, agents                           string
	cwd                                      string
	sort                                     string
	color                                    string

	jq         string
	jqSet      bool
	jqFilesSet bool
	args       []string // for re-executing the jq helper
	raw        bool
	compact    bool
	jqArgs     []jqArg
	jqTimeout  time.Duration

	filter render.Filter
	order  render.Order
	mode   string

	hostFlags // --host: hosts.go
}

func (o *listOptions) register(fs *base.FlagSet, env *Env) {
	fs.Group("Output (one of; default: a table on a terminal, else TSV)")
	fs.Bool(&o.table, "table", false, "an aligned table, most urgent first (blocked, working, idle)")
	fs.Bool(&o.tsv, "tsv", false, "agent<TAB>session<TAB>state<TAB>title, as the published jq one-liner")
	js := fs.String(&o.jsonFields, "json", "", "FIELDS", "a JSON array of sessions (see \"JSON\" below); with FIELDS, only\nthose keys: --json session,state,title")
	js.NoValue = "*"
	js.Complete = func() []string { return render.JSONFields }
	fs.Bool(&o.ndjson, "ndjson", false, "one JSON object per line")
	fs.Bool(&o.summary, "summary", false, "one line for status bars: \"1 blocked · 2 working\"; nothing when none")
	fs.Bool(&o.count, "count", false, "the number of sessions")
	fs.Bool(&o.wide, "wide", false, "the table shows full session ids (default: the shortest\nunambiguous prefix, at least 8 characters)")

	fs.Group("Selection")
	fs.Bool(&o.all, "all", false, "include stale sessions (and, in JSON, invalid files with their reason)")
	stateFlag(fs, &o.states, "state", "only sessions in these states: working, blocked, idle,\nor other:NAME for a state newer publishers may add")
	fs.String(&o.agents, "agent", "", "A[,A]", "only sessions of these agents")
	fs.String(&o.cwd, "cwd", "", "PREFIX", "only sessions whose cwd is PREFIX or below (~ is expanded)")
	fs.String(&o.sort, "sort", "", "ORDER", "attention (the table's default), updated, or name (the default otherwise)").Complete = func() []string { return []string{"attention", "updated", "name"} }

	fs.Group("jq (by gojq, run by the statusls-jq helper, found next to statusls, else in $PATH)")
	fs.Func("jq", "FILTER", "run FILTER once over the array --json prints, as gh does: the same\nobjects after --state, --agent, --cwd and --sort, fresh sessions only\nunless --all. Strings print raw; other values as JSON, indented only\non a terminal", func(s string) error { o.jq, o.jqSet = s, true; return nil })
	fs.Func("jq-files", "FILTER", "run FILTER over the JSON object of every readable status file, one\nfile at a time, in file-name order, strings sanitized for display;\nprints as jq does (the published one-liner's mode)", func(s string) error { o.jq, o.jqFilesSet = s, true; return nil })
	fs.Shorthand(fs.Bool(&o.raw, "raw-output", false, "--jq-files: print strings raw, without quotes (like jq -r); --jq\nalways does"), "r")
	fs.Shorthand(fs.Bool(&o.compact, "compact-output", false, "print other values compactly (--jq-files default: indented by two\nspaces)"), "c")
	fs.Func("arg", "NAME VALUE", "$NAME is the string VALUE", func(string) error { return errors.New("needs a name and a value") })
	fs.Func("argjson", "NAME JSON", "$NAME is the JSON value", func(string) error { return errors.New("needs a name and a value") })
	fs.Duration(&o.jqTimeout, "jq-timeout", 5*time.Second, "DUR", "stop a filter that runs longer than DUR on one input (default 5s;\ntime spent writing output or reading files does not count)")

	o.common.register(fs, env)
	o.hostFlags.register(fs, env, hostFlagsOf{usage: "list these hosts (repeatable): a HOST column, a \"host\" key;\nwithout --local, only them", many: true, local: true, group: true})

	fs.Group("Terminal")
	colorFlag(fs, &o.color, "auto (default: on a terminal), always, never; see \"Environment\"\nThe table fits $COLUMNS, else the terminal's width, else 80 columns.")
}

// validate checks the flags together, once parsed. It returns -1 to go on.
func (o *listOptions) validate(args []string, env *Env) int {
	if len(args) > 0 {
		return usageError(env, "unexpected argument %q", args[0])
	}
	o.json = o.given.Changed("json")
	if o.json && o.jsonFields != "*" {
		fields, err := parseJSONFields(o.jsonFields, o.hostFlags.active())
		if err != nil {
			return usageError(env, "%v", err)
		}
		o.fields = fields
	}
	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{o.table, "table"}, {o.tsv, "tsv"}, {o.json && !o.jqSet, "json"}, {o.ndjson, "ndjson"}, {o.summary, "summary"}, {o.count, "count"}, {o.jqSet, modeJQ}, {o.jqFilesSet, modeJQFiles}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	if len(modes) > 1 {
		return usageError(env, "--%s and --%s cannot be combined", modes[0], modes[1])
	}
	if len(modes) == 1 {
		o.mode = modes[0]
	}
	if code := checkJQFlags(o, env); code >= 0 {
		return code
	}
	if code := checkColor(env, o.color); code >= 0 {
		return code
	}
	o.filter = render.Filter{All: o.all, Invalid: o.all && (o.mode == "json" || o.mode == "ndjson" || o.mode == modeJQ)}
	states, err := parseStateList("state", o.states)
	if err != nil {
		return usageError(env, "%v", err)
	}
	o.filter.States = states
	o.filter.Agents = splitList(o.agents)
	if o.cwd != "" {
		p, err := expandPath(o.cwd, env)
		if err != nil {
			return usageError(env, "--cwd: %v", err)
		}
		o.filter.Cwd = p
	}
	if o.sort != "" {
		ord, err := render.ParseOrder(o.sort)
		if err != nil {
			return usageError(env, "--sort: %v", err)
		}
		o.order = ord
	}
	return -1
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
	if code := o.hostFlags.misuse(env); code >= 0 {
		return code
	}
	if o.hostFlags.active() {
		return listHosts(o, env)
	}
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	if o.mode == modeJQ || o.mode == modeJQFiles {
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
		Clock:    atClock(now),
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
			buf = render.AppendJSONFields(buf[:0], &entries[i], o.fields)
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
		fmt.Fprintf(env.Stderr, "statusls: %s\n", base.Message(err))
		return ExitError
	}
	return ExitOK
}

func writeTable(out io.Writer, entries []reader.Entry, o *listOptions, l *reader.Listing, loc location.Location, isTerm bool, termWidth int, env *Env) {
	if len(entries) == 0 {
		// A notice, not data: on stderr, so that stdout stays empty.
		if isTerm || o.mode == "table" {
			what := "fresh sessions"
			if o.all {
				what = "sessions"
			}
			if o.filter.Narrowed() {
				what = "matching " + what
			}
			fmt.Fprintf(env.Stderr, "statusls: no %s in %s\n", what, quotePath(render.TildePath(loc.Dir, env.Getenv("HOME"))))
			if l.Missing {
				fmt.Fprintln(env.Stderr, "statusls: hint: the directory does not exist yet; run 'statusls doctor' if you expected sessions")
			}
		}
		return
	}
	io.WriteString(out, render.Table(entries, render.TableOptions{
		Width: tableWidth(env, termWidth),
		Color: useColor(o.color, isTerm, env),
		Home:  env.Getenv("HOME"),
		Wide:  o.wide,
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

// useColor decides --color. auto colours a terminal unless NO_COLOR is set
// to anything non-empty (no-color.org) or TERM is dumb; CLICOLOR_FORCE or
// FORCE_COLOR, set to anything but "" and "0", colour off a terminal too
// (bixense.com/clicolors, force-color.org). NO_COLOR wins over them, and
// --color always or never over all.
func useColor(when string, isTerm bool, env *Env) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	if env.Getenv("NO_COLOR") != "" {
		return false
	}
	for _, v := range []string{"CLICOLOR_FORCE", "FORCE_COLOR"} {
		if x := env.Getenv(v); x != "" && x != "0" {
			return true
		}
	}
	return isTerm && env.Getenv("TERM") != "dumb"
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
		info, _ := inspectDir(pe.Path)
		fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(pe)))
		fmt.Fprintf(env.Stderr, "statusls: hint: %s\n", statusfile.SanitizeText(safeHint(pe, info)))
		return ExitError
	}
	fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
	fmt.Fprintln(env.Stderr, "statusls: hint: run 'statusls doctor' to check the setup")
	return ExitError
}

// refusalHint says what to do about a refused directory.
func refusalHint(pe *perm.Error) string {
	switch {
	case errors.Is(pe.Err, perm.ErrSymlink):
		return "readers do not follow a symbolic link at the status directory (SPEC.md R2); point --dir or $STATUS_DIR at the real directory"
	case errors.Is(pe.Err, perm.ErrWritable), errors.Is(pe.Err, perm.ErrAccessible):
		return "others could forge sessions there (SPEC.md R2, P4); run 'chmod 700 " + shquote.Quote(pe.Path) + "'"
	case errors.Is(pe.Err, perm.ErrNotOwned):
		return "the directory belongs to another account, whose files could be forged (SPEC.md R2); use your own with --dir or --config-home"
	case errors.Is(pe.Err, perm.ErrNotDir):
		return "the status directory is not a directory; check --dir, $STATUS_DIR and $GENTLE_PI_CONFIG_HOME with 'statusls doctor'"
	}
	return "run 'statusls doctor' to check the setup"
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
