// Package statuspub is the statuspub command: publishing agent status for
// programs that cannot embed package statusfile.
package statuspub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	// ExitNotFound and ExitCannotRun are what `statuspub run` returns when
	// CMD cannot be started, as shells do.
	ExitCannotRun = 126
	ExitNotFound  = 127
)

// Env is what the command gets from its process: streams, environment and
// signals. Tests build their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Signals delivers SIGINT, SIGTERM and SIGHUP.
	Signals <-chan os.Signal
	// Executable is the statuspub program, which set and the hook adapters
	// start again as the heartbeat owner of a session. Empty starts no
	// owner (a test running Run in its own process).
	Executable string
}

// Main runs the command with the process's own environment.
func Main(signals <-chan os.Signal) int {
	exe, _ := os.Executable()
	return Run(os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Signals: signals, Executable: exe})
}

const usage = `statuspub publishes agent status files (gentle-shell.agent-status/v1).

Usage:
  statuspub serve --session ID [flags]       publish, then apply JSON lines from stdin
  statuspub run [flags] -- CMD [ARGS...]     publish "working" while CMD runs
  statuspub set --session ID [flags]         change a session's record once (for hooks)
  statuspub clear --session ID [flags]       remove a session's record
  statuspub claude-hook [flags] < INPUT      publish from a Claude Code hook
  statuspub codex-hook [flags] < INPUT       publish from a Codex hook
  statuspub gemini-hook [flags] < INPUT      publish from a Gemini CLI hook
  statuspub codex-notify [flags] JSON        publish from Codex's notify program
  statuspub install AGENT [--dry-run] [--uninstall] [--project]
                                             wire the hooks of claude, codex,
                                             gemini or opencode

Flags:
  --session ID        the session id (serve: required; run: default run-<CMD>-<pid>)
  --agent NAME        the "agent" field (default statuspub; claude-hook:
                      claude-code; codex-notify: codex)
  --state S           working, blocked or idle (serve: idle; run: working)
  --title T           the task title (default none)
  --pid N             the session's process (serve: statuspub's parent; run: CMD;
                      set and hooks: the first ancestor that is not a shell)
  --cwd DIR           the session's workspace (default the working directory)
  --config-home DIR   publish into DIR/agent-status
  --dir DIR           publish into DIR itself (its parent is the config home)
  --no-title          set: remove the task title
  --strict            set, clear, hooks: exit 1 when the write fails

set keeps what is on disk for --state, --title, --agent and --cwd when they
are not given (without a record: idle, no title, agent statuspub, the working
directory). The first set of a session starts a detached heartbeat owner that
rewrites the record every 9 s while the agent process lives, and removes it
when that process exits or 'clear' runs. The agent process is --pid, else the
first ancestor of statuspub that is not a shell (hooks run as 'sh -c CMD').
set, clear and the hook adapters report a failed write as one line on stderr
and exit 0 (1 with --strict): a status file never breaks the agent. They need
file locks that Windows lacks, and report so there.

claude-hook, codex-hook and gemini-hook read the hook input from stdin:
session start -> idle, prompt and tool use -> working, permission requests
and questions -> blocked, end of turn, failure and interrupt -> idle, session
end -> clear (SPEC.md 13.1). claude-hook's title is the in_progress item of
the latest TodoWrite, or the task in progress of the task tools; gemini-hook's
the in_progress item of write_todos. These
three never exit 2, which their agents take as "block": a usage error is one
line on stderr and exit 0 (1 with --strict). codex-notify takes Codex's JSON
as its last argument: agent-turn-complete -> idle. Unknown events are
ignored. See examples/ for the configuration.

install merges statuspub's hooks into the agent's own settings (Claude Code
~/.claude/settings.json, Codex ~/.codex/hooks.json and config.toml, Gemini CLI
~/.gemini/settings.json, OpenCode's plugin directory; --project: the working
directory's .claude/, .codex/, .gemini/, .opencode/), keeping every other key
and hook; it backs the file up and replaces it atomically, and refuses a file
it cannot parse (saying where), a symlink or a read-only file. Running it
twice changes nothing. --dry-run prints the diff.

serve reads one JSON object per line, {"state":"working"} or {"title":"Fix tests"}
({"title":null} clears the task), and answers each with {"ok":true} or
{"ok":false,"error":"..."} once the change is on disk or has failed. On end of
input, SIGTERM or SIGINT it removes its file and exits 0.

run exits with CMD's status and passes SIGINT, SIGTERM and SIGHUP on to it.

Examples:
  statuspub run --title "nightly tests" -- make test
  statuspub set --session "$ID" --state blocked --title "Waiting for review"
  statuspub clear --session "$ID"
  coproc statuspub serve --session "$ID" --agent my-agent
  echo '{"state":"blocked","title":"Waiting for review"}' >&"${COPROC[1]}"
`

type options struct {
	session, agent, state, title, cwd string
	pid                               int
	configHome, dir                   string
}

func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.session, "session", "", "session id")
	fs.StringVar(&o.agent, "agent", "statuspub", "agent name")
	fs.StringVar(&o.state, "state", "", "state")
	fs.StringVar(&o.title, "title", "", "task title")
	fs.IntVar(&o.pid, "pid", 0, "process id")
	fs.StringVar(&o.cwd, "cwd", "", "workspace")
	fs.StringVar(&o.configHome, "config-home", "", "config home")
	fs.StringVar(&o.dir, "dir", "", "status directory")
}

// Run runs statuspub with args (without the program name).
func Run(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], env)
	case "run":
		return run(args[1:], env)
	case "set":
		return setCmd(args[1:], env)
	case "clear":
		return clearCmd(args[1:], env)
	case "claude-hook":
		return claudeHook(args[1:], env)
	case "codex-hook":
		return codexHook(args[1:], env)
	case "gemini-hook":
		return geminiHook(args[1:], env)
	case "install":
		return installCmd(args[1:], env)
	case "codex-notify":
		return codexNotifyCmd(args[1:], env)
	case "owner": // hidden: started by set
		return ownerCmd(args[1:], env)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	return usageError(env, "unknown command %q", args[0])
}

func usageError(env Env, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statuspub: "+format+"\n", args...)
	fmt.Fprintln(env.Stderr, "statuspub: hint: run 'statuspub --help' for usage")
	return ExitUsage
}

func parse(name string, args []string, env Env) (*options, *flag.FlagSet, int) {
	o := &options{}
	fs := flag.NewFlagSet("statuspub "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return nil, nil, ExitOK
		}
		return nil, nil, usageError(env, "%s: %v", name, err)
	}
	return o, fs, -1
}

// publisherOptions turns flags into statusfile options.
func (o *options) publisherOptions(env Env, state statusfile.State, pid int) ([]statusfile.Option, error) {
	loc, err := location.ForPublisher(o.dir, o.configHome, env.Getenv)
	if err != nil {
		return nil, err
	}
	opts := []statusfile.Option{
		statusfile.WithDir(loc.Dir),
		statusfile.WithAgent(o.agent),
		statusfile.WithState(state),
		statusfile.WithTitle(o.title),
		statusfile.WithPID(pid),
		statusfile.WithErrorHandler(func(err error) {
			fmt.Fprintf(env.Stderr, "statuspub: %v\n", err)
		}),
	}
	if o.cwd != "" {
		opts = append(opts, statusfile.WithCwd(o.cwd))
	}
	return opts, nil
}

func (o *options) parseState(def statusfile.State) (statusfile.State, error) {
	if o.state == "" {
		return def, nil
	}
	return statusfile.ParseState(o.state)
}

func serve(args []string, env Env) int {
	o, fs, code := parse("serve", args, env)
	if code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(env, "serve: unexpected argument %q", fs.Arg(0))
	}
	if o.session == "" {
		return usageError(env, "serve: --session is required")
	}
	state, err := o.parseState(statusfile.Idle)
	if err != nil {
		return usageError(env, "serve: %v", err)
	}
	pid := o.pid
	if pid == 0 {
		pid = os.Getppid() // the program that spawned us
	}
	opts, err := o.publisherOptions(env, state, pid)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: %v\n", err)
		return ExitError
	}
	p, err := statusfile.NewPublisher(o.session, opts...)
	if err != nil {
		return usageError(env, "serve: %v", err)
	}
	defer p.Close()
	ctx := context.Background()
	p.Flush(ctx) // publish at once; a failure is reported by the error handler

	lines := make(chan []byte)
	go readLines(env.Stdin, lines)
	out := bufio.NewWriter(env.Stdout)
	answer := func(err error) {
		if err == nil {
			out.WriteString(`{"ok":true}` + "\n")
		} else {
			msg, _ := json.Marshal(err.Error())
			out.WriteString(`{"ok":false,"error":` + string(msg) + "}\n")
		}
		out.Flush()
	}
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return closeAndExit(p, env)
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if err := apply(p, line); err != nil {
				answer(err)
				continue
			}
			answer(p.Flush(ctx))
		case <-env.Signals:
			return closeAndExit(p, env)
		}
	}
}

func closeAndExit(p *statusfile.Publisher, env Env) int {
	if err := p.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: %v\n", err)
	}
	return ExitOK
}

// maxLine bounds one input line; longer lines are answered with an error.
const maxLine = 1 << 20

// readLines sends every line of r (without its newline) and closes lines at
// the end of input. A line longer than maxLine is sent truncated to
// maxLine+1 bytes, which apply rejects.
func readLines(r io.Reader, lines chan<- []byte) {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		for {
			chunk, err := br.ReadSlice('\n')
			if len(line) <= maxLine {
				line = append(line, chunk...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(line) == 0 {
				return
			}
			break
		}
		lines <- bytes.TrimSuffix(line, []byte("\n"))
	}
}

// apply applies one input line to p, or returns why it cannot.
func apply(p *statusfile.Publisher, line []byte) error {
	if len(line) > maxLine {
		return fmt.Errorf("line longer than %d bytes", maxLine)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return errors.New("not a JSON object")
	}
	cur := p.Status()
	state, title := cur.State, cur.Title
	if raw, ok := m["state"]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return errors.New(`"state" must be a string`)
		}
		st, err := statusfile.ParseState(s)
		if err != nil {
			return err
		}
		state = st
	}
	if raw, ok := m["title"]; ok {
		if string(bytes.TrimSpace(raw)) == "null" {
			title = ""
		} else if err := json.Unmarshal(raw, &title); err != nil {
			return errors.New(`"title" must be a string or null`)
		}
	}
	p.Set(state, title)
	return nil
}

func run(args []string, env Env) int {
	o, fs, code := parse("run", args, env)
	if code >= 0 {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return usageError(env, "run: no command given (statuspub run [flags] -- CMD [ARGS...])")
	}
	state, err := o.parseState(statusfile.Working)
	if err != nil {
		return usageError(env, "run: %v", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: run: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return ExitNotFound
		}
		return ExitCannotRun
	}
	pid := o.pid
	if pid == 0 {
		pid = cmd.Process.Pid
	}
	session := o.session
	if session == "" {
		session = "run-" + filepath.Base(argv[0]) + "-" + strconv.Itoa(cmd.Process.Pid)
	}
	var p *statusfile.Publisher
	opts, err := o.publisherOptions(env, state, pid)
	if err == nil {
		p, err = statusfile.NewPublisher(session, opts...)
	}
	if err != nil {
		// The command runs anyway: status is never a reason to stop work.
		fmt.Fprintf(env.Stderr, "statuspub: run: not publishing: %v\n", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-env.Signals:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	if p != nil {
		if cerr := p.Close(); cerr != nil {
			fmt.Fprintf(env.Stderr, "statuspub: %v\n", cerr)
		}
	}
	return exitStatus(cmd, err, env)
}

// exitStatus is CMD's exit status, or 128+signal when a signal ended it.
func exitStatus(cmd *exec.Cmd, err error, env Env) int {
	if cmd.ProcessState == nil {
		fmt.Fprintf(env.Stderr, "statuspub: run: %v\n", err)
		return ExitError
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
