package statuspub

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// HeartbeatEnv names the environment variable that shortens the heartbeat
// of the owners that set and the hook adapters start (a Go duration, at
// least 10ms and at most 10s). It exists for tests; the default is
// [statusfile.DefaultHeartbeat].
const HeartbeatEnv = "STATUSPUB_HEARTBEAT"

// hookFlags are the flags of every command that publishes: serve, run,
// set, clear and the hook adapters.
type hookFlags struct {
	session, state, title, agent, cwd string
	waitingFor, tool, detail, ended   string // set only
	configHome, dir                   string
	pid                               int
	noTitle, noDetail, strict         bool
	fs                                *base.FlagSet // for what the command line set

	heartbeatOwner bool // serve --heartbeat-owner
}

// given reports whether the command line set the flag name.
func (f *hookFlags) given(name string) bool { return f.fs.Changed(name) }

// detailEnv turns the detail of waitingFor and ended off for every
// publisher that runs with it set (any value but "" and "0"): hooks run
// with the agent's environment, so one export covers them all.
const detailEnv = "AGENTSTATUS_NO_DETAIL"

const noDetailUsage = "leave the detail of waits and turn ends out (also: " + detailEnv + "=1)"

// registerWhy declares set's flags for the reason keys.
func (f *hookFlags) registerWhy(fs *base.FlagSet) {
	fs.String(&f.waitingFor, "waiting-for", "", "KIND", "blocked, waiting for: permission, question, auth or other").Complete = func() []string { return waitKinds }
	fs.String(&f.tool, "tool", "", "NAME", "with --waiting-for: the tool it waits on")
	fs.String(&f.ended, "ended", "", "REASON", "idle, the turn ended: done, cancelled, failed or rate_limited").Complete = func() []string { return endReasons }
	fs.String(&f.detail, "detail", "", "TEXT", "with --waiting-for or --ended: one line (the command, the question, the error)")
	fs.Bool(&f.noDetail, "no-detail", false, noDetailUsage)
}

// withoutDetail reports whether --no-detail or AGENTSTATUS_NO_DETAIL asks
// to leave details out.
func (f *hookFlags) withoutDetail(env *runner) bool {
	v := env.Getenv(detailEnv)
	return f.noDetail || v != "" && v != "0"
}

// register declares the flags of command name; record-changing flags
// (state, title, cwd, session) only when withRecord.
func (f *hookFlags) register(fs *base.FlagSet, withRecord bool) {
	f.fs = fs
	if withRecord {
		fs.String(&f.session, "session", "", "ID", "the session id (required)")
		fs.String(&f.state, "state", "", "STATE", "working, blocked or idle (default: what is on disk, else idle)").Complete = func() []string { return base.States }
		fs.String(&f.title, "title", "", "TITLE", "the task title (default: what is on disk)")
		fs.Bool(&f.noTitle, "no-title", false, "remove the task title")
		fs.String(&f.cwd, "cwd", "", "DIR", "the session's workspace (default: what is on disk, else the working directory)")
	} else {
		fs.Bool(&f.noDetail, "no-detail", false, noDetailUsage)
	}
	fs.String(&f.agent, "agent", "", "NAME", `the "agent" field`)
	fs.Int(&f.pid, "pid", 0, "PID", "the agent's process (default: the first ancestor that is not a shell)")
	fs.String(&f.configHome, "config-home", "", "DIR", "publish into DIR/agent-status")
	fs.String(&f.dir, "dir", "", "DIR", "publish into DIR itself (its parent is the config home)")
	fs.Bool(&f.strict, "strict", false, "exit 1 when anything fails (default: report it and exit 0)")
}

// statusDir resolves where to publish (SPEC.md L4, publishers ignore
// $STATUS_DIR).
func (f *hookFlags) statusDir(env *runner) (string, error) {
	loc, err := location.ForPublisher(f.dir, f.configHome, env.Getenv)
	if err != nil {
		return "", err
	}
	return loc.Dir, nil
}

// agentProcess is --pid, else the agent found from the parent process
// (see agentPID); found reports the latter, which yields to the process
// the record is bound to (SPEC.md H6).
func (f *hookFlags) agentProcess() (pid int, found bool) {
	if f.given("pid") {
		return f.pid, false
	}
	return hooksession.AgentPID(), true
}

// failed reports a failure of a short-lived command as ONE line on stderr.
// It exits 0, since a status file must never break the agent that runs
// the hook, unless --strict.
func failed(env *runner, strict bool, name string, err error) int {
	fmt.Fprintf(env.Stderr, "statuspub: %s: %s\n", name, base.Message(err))
	if strict {
		return base.ExitError
	}
	return base.ExitOK
}

// apply applies one update (a set, a clear, a hook's action) to the
// status directory the flags name and waits for it, unless a signal comes
// first: a hook command must exit on SIGTERM even while the file system
// hangs (SPEC.md H11). Whatever keeps the update from being applied is
// reported as command name's (see failed), never dropped (H10).
func (f *hookFlags) apply(env *runner, name string, update func(dir string) error) int {
	dir, err := f.statusDir(env)
	if err == nil {
		_, err = beforeSignal(env, " before the update was known to be on disk: it may not have been applied", func() (struct{}, error) {
			if err := update(dir); err != nil {
				return struct{}{}, fmt.Errorf("update not applied: %w", err)
			}
			return struct{}{}, nil
		})
	}
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	return base.ExitOK
}

// beforeSignal runs fn and returns what it returns, unless one of the
// signals the command catches comes first: then the error says
// "interrupted (SIGNAL)" and then what, and fn goes on in the background
// (the process is about to exit).
func beforeSignal[T any](env *runner, what string, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case sig := <-env.signals:
		var zero T
		return zero, fmt.Errorf("interrupted (%v)%s", sig, what)
	}
}

// checkPID refuses an explicit --pid that no process has: the record
// would be removed at once by its heartbeat owner.
func (f *hookFlags) checkPID() error {
	if f.given("pid") && f.pid > 0 && !hooksession.ProcessExists(f.pid) {
		return fmt.Errorf("--pid %d: no such process", f.pid)
	}
	return nil
}

// checkRecord checks the command line of set and clear (name): a --pid in
// range, no argument, a valid --session. It returns -1 when it is fine,
// else the exit status.
func (f *hookFlags) checkRecord(env *runner, name string, args []string) int {
	switch {
	case f.given("pid") && (f.pid < 0 || f.pid > math.MaxInt32):
		return env.prog.ReportUsage("%s: --pid %d out of range", name, f.pid)
	case len(args) > 0:
		return env.prog.ReportUsage("%s: unexpected argument %q", name, args[0])
	case f.session == "":
		return env.prog.ReportUsage("%s: --session is required", name)
	case name == "set" && f.given("title") && f.noTitle:
		return env.prog.ReportUsage("set: --title and --no-title exclude each other")
	}
	if err := statusfile.ValidateSession(f.session); err != nil {
		return env.prog.ReportUsage("%s: --session: %s", name, base.Message(err))
	}
	return -1
}

func setCmd(f *hookFlags, args []string, env *runner) int {
	if code := f.checkRecord(env, "set", args); code >= 0 {
		return code
	}
	ch := hooksession.Change{Agent: f.agent, NoDetail: f.withoutDetail(env)}
	ch.PID, ch.PIDFound = f.agentProcess()
	if f.given("state") {
		st, err := base.ParseState(f.state)
		if err != nil {
			return env.prog.ReportUsage("set: --state: %v", err)
		}
		ch.State = st
	}
	if err := f.why(&ch); err != nil {
		return env.prog.ReportUsage("set: %v", err)
	}
	switch {
	case f.noTitle:
		ch.Title = new(string)
	case f.given("title"):
		ch.Title = &f.title
	}
	if f.cwd != "" {
		abs, err := filepath.Abs(f.cwd)
		if err != nil {
			return env.prog.ReportUsage("set: --cwd: %v", err)
		}
		ch.Cwd = abs
	}
	if err := f.checkPID(); err != nil {
		return failed(env, f.strict, "set", err)
	}
	wd, _ := os.Getwd() // "" when unknown
	return f.apply(env, "set", func(dir string) error { return hooksession.Set(dir, f.session, ch, wd, env.Executable) })
}

// The kinds and reasons statuspub writes (SPEC.md §4.4).
var (
	waitKinds  = []string{"permission", "question", "auth", "other"}
	endReasons = []string{"done", "cancelled", "failed", "rate_limited"}
)

// why adds set's --waiting-for or --ended to ch, which imply the state
// blocked or idle.
func (f *hookFlags) why(ch *hooksession.Change) error {
	wait, end := f.given("waiting-for"), f.given("ended")
	switch {
	case wait && end:
		return errors.New("--waiting-for and --ended exclude each other")
	case f.given("tool") && !wait:
		return errors.New("--tool needs --waiting-for")
	case f.given("detail") && !wait && !end:
		return errors.New("--detail needs --waiting-for or --ended")
	case wait:
		if err := implyState(ch, "waiting-for", f.waitingFor, waitKinds, statusfile.Blocked); err != nil {
			return err
		}
		ch.Wait = statusfile.Waiting{Kind: f.waitingFor, Tool: f.tool, Detail: f.detail}
	case end:
		if err := implyState(ch, "ended", f.ended, endReasons, statusfile.Idle); err != nil {
			return err
		}
		ch.Ended = statusfile.Ended{Reason: f.ended, Detail: f.detail}
	}
	return nil
}

// implyState checks the value v of --flag against the known words and sets
// the state it implies in ch, unless ch already asks for another.
func implyState(ch *hooksession.Change, flag, v string, known []string, state statusfile.State) error {
	if !slices.Contains(known, v) {
		msg := fmt.Sprintf("--%s: unknown value %q", flag, v)
		if sug := base.Suggest(v, known); sug != "" {
			return fmt.Errorf("%s; did you mean %s?", msg, sug)
		}
		return fmt.Errorf("%s (%s)", msg, strings.Join(known, ", "))
	}
	if ch.State != "" && ch.State != state {
		return fmt.Errorf("--%s needs the state %s, not %s", flag, state, ch.State)
	}
	ch.State = state
	return nil
}

func clearCmd(f *hookFlags, args []string, env *runner) int {
	if code := f.checkRecord(env, "clear", args); code >= 0 {
		return code
	}
	return f.apply(env, "clear", func(dir string) error { return hooksession.Clear(dir, f.session) })
}

// hookCmd runs an agent adapter: decide turns the agent's payload into an
// action, which is then applied like set or clear.
// sourceOf, when not nil, names the agent's own state file.
func hookCmd(name, defaultAgent string, f *hookFlags, args []string, env *runner, payload payloadFunc, decide agenthook.Mapper, sourceOf sourceFunc) int {
	if f.given("pid") && (f.pid < 0 || f.pid > math.MaxInt32) {
		return failed(env, f.strict, name, fmt.Errorf("--pid %d out of range", f.pid))
	}
	data, err := payload(env, args)
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	a, err := decide(data)
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	if a.Kind == agenthook.Ignore {
		return base.ExitOK // an event this version does not know
	}
	if err := statusfile.ValidateSession(a.Session); err != nil {
		return failed(env, f.strict, name, err)
	}
	if err := f.checkPID(); err != nil {
		return failed(env, f.strict, name, err)
	}
	if a.Kind == agenthook.Remove {
		return f.apply(env, name, func(dir string) error { return hooksession.Clear(dir, a.Session) })
	}
	ch := hooksession.Change{State: a.State, Title: a.Title, Agent: cmp.Or(f.agent, defaultAgent), Cwd: a.Cwd, Task: a.Task,
		Wait: a.Waiting, Ended: a.Ended, NoDetail: f.withoutDetail(env), Background: a.Background,
		TasksKept: a.TasksKept, Subagent: a.Subagent, BackgroundIdle: a.BackgroundIdle,
		DeniedInBackground: a.DeniedInBackground}
	ch.PID, ch.PIDFound = f.agentProcess()
	if sourceOf != nil && ch.PID > 0 {
		// Only a source the adapter checked (SPEC.md H17).
		ch.Source = sourceOf(env, ch.PID, a)
	}
	wd, _ := os.Getwd() // "" when unknown
	return f.apply(env, name, func(dir string) error {
		err := hooksession.Set(dir, a.Session, ch, wd, env.Executable)
		if err == nil && a.Replaces {
			err = hooksession.EndOtherSessions(dir, a.Session, ch.PID)
		}
		return err
	})
}

// ownerCmd is the hidden `statuspub owner`, started by set.
func ownerCmd(dir, session string, args []string, prog *base.Program, env *runner) int {
	if dir == "" || session == "" || len(args) > 0 {
		return env.prog.ReportUsage("owner: usage: statuspub owner --dir DIR --session ID")
	}
	if err := hooksession.RunOwner(dir, session, heartbeatFromEnv(env), env.signals); err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: owner: %s\n", base.Message(err))
		return base.ExitError
	}
	return base.ExitOK
}

// heartbeatFromEnv is $STATUSPUB_HEARTBEAT when valid, else
// statusfile.DefaultHeartbeat.
func heartbeatFromEnv(env *runner) time.Duration {
	if v := env.Getenv(HeartbeatEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 10*time.Millisecond && d <= statusfile.HeartbeatInterval {
			return d
		}
	}
	return statusfile.DefaultHeartbeat
}
