package statuspub

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// HeartbeatEnv names the environment variable that shortens the heartbeat
// of the owners that set and the hook adapters start (a Go duration, at
// least 10ms and at most 10s). It exists for tests; the default is
// [statusfile.DefaultHeartbeat].
const HeartbeatEnv = "STATUSPUB_HEARTBEAT"

// hookFlags are the flags of set, clear and the hook adapters.
type hookFlags struct {
	session, state, title, agent, cwd string
	configHome, dir                   string
	pid                               int
	noTitle, strict                   bool
	given                             map[string]bool
}

// parseHookFlags parses the flags of command name; record-changing flags
// (state, title, cwd, session) only when withRecord.
func parseHookFlags(name string, args []string, env Env, withRecord bool) (*hookFlags, *flag.FlagSet, int) {
	f := &hookFlags{given: map[string]bool{}}
	fs := flag.NewFlagSet("statuspub "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if withRecord {
		fs.StringVar(&f.session, "session", "", "session id")
		fs.StringVar(&f.state, "state", "", "state")
		fs.StringVar(&f.title, "title", "", "task title")
		fs.BoolVar(&f.noTitle, "no-title", false, "no task title")
		fs.StringVar(&f.cwd, "cwd", "", "workspace")
	}
	fs.StringVar(&f.agent, "agent", "", "agent name")
	fs.IntVar(&f.pid, "pid", 0, "the agent's process id")
	fs.StringVar(&f.configHome, "config-home", "", "config home")
	fs.StringVar(&f.dir, "dir", "", "status directory")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 when the write fails")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return nil, nil, ExitOK
		}
		return nil, nil, usageError(env, "%s: %v", name, err)
	}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if f.given["pid"] && (f.pid < 0 || f.pid > math.MaxInt32) {
		return nil, nil, usageError(env, "%s: --pid %d out of range", name, f.pid)
	}
	return f, fs, -1
}

// statusDir resolves where to publish (SPEC.md L4, publishers ignore
// $STATUS_DIR).
func (f *hookFlags) statusDir(env Env) (string, error) {
	loc, err := location.ForPublisher(f.dir, f.configHome, env.Getenv)
	if err != nil {
		return "", err
	}
	return loc.Dir, nil
}

// agentProcess is --pid, else the agent found from the parent process
// (see agentPID).
func (f *hookFlags) agentProcess() int {
	if f.given["pid"] {
		return f.pid
	}
	return defaultAgentPID()
}

// failed reports a failure of a short-lived command as ONE line on stderr.
// It exits 0, since a status file must never break the agent that runs
// the hook, unless --strict.
func failed(env Env, strict bool, name string, err error) int {
	fmt.Fprintf(env.Stderr, "statuspub: %s: %s\n", name, oneLine(err.Error()))
	if strict {
		return ExitError
	}
	return ExitOK
}

func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

func setCmd(args []string, env Env) int {
	f, fs, code := parseHookFlags("set", args, env, true)
	if code >= 0 {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usageError(env, "set: unexpected argument %q", fs.Arg(0))
	case f.session == "":
		return usageError(env, "set: --session is required")
	case f.given["title"] && f.noTitle:
		return usageError(env, "set: --title and --no-title exclude each other")
	}
	if err := statusfile.ValidateSession(f.session); err != nil {
		return usageError(env, "set: %v", err)
	}
	ch := change{agent: f.agent, pid: f.agentProcess()}
	if f.given["state"] {
		st, err := statusfile.ParseState(f.state)
		if err != nil {
			return usageError(env, "set: %v", err)
		}
		ch.state = st
	}
	switch {
	case f.noTitle:
		ch.title = ptr("")
	case f.given["title"]:
		ch.title = ptr(f.title)
	}
	if f.cwd != "" {
		abs, err := filepath.Abs(f.cwd)
		if err != nil {
			return usageError(env, "set: --cwd: %v", err)
		}
		ch.cwd = abs
	}
	dir, err := f.statusDir(env)
	if err != nil {
		return failed(env, f.strict, "set", err)
	}
	if _, err := setRecord(dir, f.session, ch, workingDir(), env.Executable); err != nil {
		return failed(env, f.strict, "set", err)
	}
	return ExitOK
}

func clearCmd(args []string, env Env) int {
	f, fs, code := parseHookFlags("clear", args, env, true)
	if code >= 0 {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usageError(env, "clear: unexpected argument %q", fs.Arg(0))
	case f.session == "":
		return usageError(env, "clear: --session is required")
	}
	if err := statusfile.ValidateSession(f.session); err != nil {
		return usageError(env, "clear: %v", err)
	}
	dir, err := f.statusDir(env)
	if err != nil {
		return failed(env, f.strict, "clear", err)
	}
	if err := clearRecord(dir, f.session); err != nil {
		return failed(env, f.strict, "clear", err)
	}
	return ExitOK
}

// hookCmd runs an agent adapter: decide turns the agent's payload into an
// action, which is then applied like set or clear.
func hookCmd(name, defaultAgent string, args []string, env Env, payload func(fs *flag.FlagSet, strict bool) ([]byte, int), decide func([]byte) (hookAction, error)) int {
	f, fs, code := parseHookFlags(name, args, env, false)
	if code >= 0 {
		return code
	}
	data, code := payload(fs, f.strict)
	if code >= 0 {
		return code
	}
	a, err := decide(data)
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	if a.kind == actIgnore {
		return ExitOK // an event this version does not know
	}
	if err := statusfile.ValidateSession(a.session); err != nil {
		return failed(env, f.strict, name, err)
	}
	dir, err := f.statusDir(env)
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	if a.kind == actClear {
		err = clearRecord(dir, a.session)
	} else {
		agent := defaultAgent
		if f.agent != "" {
			agent = f.agent
		}
		ch := change{state: a.state, title: a.title, agent: agent, cwd: a.cwd, pid: f.agentProcess(), task: a.task}
		_, err = setRecord(dir, a.session, ch, workingDir(), env.Executable)
	}
	if err != nil {
		return failed(env, f.strict, name, err)
	}
	return ExitOK
}

func codexNotifyCmd(args []string, env Env) int {
	return hookCmd("codex-notify", "codex", args, env, func(fs *flag.FlagSet, _ bool) ([]byte, int) {
		if fs.NArg() == 0 {
			return nil, usageError(env, "codex-notify: no notification (Codex passes it as the last argument)")
		}
		return []byte(fs.Arg(fs.NArg() - 1)), -1
	}, codexAction)
}

// ownerCmd is the hidden `statuspub owner`, started by set.
func ownerCmd(args []string, env Env) int {
	fs := flag.NewFlagSet("statuspub owner", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "status directory")
	session := fs.String("session", "", "session id")
	if err := fs.Parse(args); err != nil || *dir == "" || *session == "" || fs.NArg() > 0 {
		return usageError(env, "owner: usage: statuspub owner --dir DIR --session ID")
	}
	if err := runOwner(*dir, *session, heartbeatFromEnv(env), env.Signals); err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: owner: %s\n", oneLine(err.Error()))
		return ExitError
	}
	return ExitOK
}

// heartbeatFromEnv is $STATUSPUB_HEARTBEAT when valid, else
// statusfile.DefaultHeartbeat.
func heartbeatFromEnv(env Env) time.Duration {
	if v := env.Getenv(HeartbeatEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 10*time.Millisecond && d <= statusfile.HeartbeatInterval {
			return d
		}
	}
	return statusfile.DefaultHeartbeat
}
