// Package statuspub is the statuspub command: publishing agent status for
// programs that cannot embed package statusfile.
package statuspub

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/internal/acpbridge"
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// runner is one run of the command: its environment, the program
// running (for usage errors), Run's arguments (for re-executing
// statuspub-install) and the signals it catches.
type runner struct {
	base.Env
	prog    *base.Program
	args    []string
	signals <-chan os.Signal // SIGINT, SIGTERM and SIGHUP
}

// Main runs the command with the process's own environment, catching
// SIGINT, SIGTERM and SIGHUP for it. env.Executable is statuspub, which set
// and the hook adapters start again as the heartbeat owner of a session.
func Main() int {
	// A write to a closed stdout (serve answering a program that has
	// exited) must be an error, not a SIGPIPE that ends serve before it
	// removes its record. Caught, not ignored: CMD of run and the owner
	// get the default action back when they are started.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	env := base.OSEnv()
	env.Executable, _ = os.Executable()
	if p := os.Getenv(installHelperEnv); p != "" && codexTOML != nil {
		env.Executable = p // statuspub-install, started by statuspub
	}
	return Run(os.Args[1:], env)
}

const summary = `statuspub publishes agent status files (gentle-shell.agent-status/v1).`

const footer = `set, clear and the hook adapters report a failed write as one line on stderr
and exit 0 (1 with --strict): a status file never breaks the agent. The hook
adapters (claude-hook, codex-hook, gemini-hook, codex-notify) go further:
whatever goes wrong, a usage error included, they exit 0 with one line on
stderr, or 1 with --strict, and never 2, which an agent reads as "block".
They need file locks that Windows lacks, and report so there.

Exit status: 0 success, 1 error, 2 usage error; run and acp: CMD's own
status, 126 when CMD cannot run, 127 when it is not found.`

// Commands, one entry each. A flag is one line in its Setup; see package
// base for how to add either.
func program(env *runner) *base.Program {
	p := &base.Program{
		Name:    "statuspub",
		Summary: summary,
		Footer:  footer,
		Env:     &env.Env,
	}
	env.prog = p
	p.Commands = []*base.Command{
		{
			Name:    "serve",
			Summary: "publish, then apply JSON lines from stdin",
			Usage:   "serve --session ID [flags]",
			Description: `serve publishes the session at once, then reads one JSON object per line,
{"state":"working"} or {"title":"Fix tests"} ({"title":null} clears the
task), and answers each with {"ok":true} or {"ok":false,"error":"..."} once
the change is on disk or has failed. {"waitingFor":{"kind":"permission",
"tool":"Bash","detail":"rm -rf build"}} makes the session blocked and says
on what; {"ended":{"reason":"cancelled","detail":null}} makes it idle and
says how the turn ended (SPEC.md 4.4, 11). On end of input, SIGTERM or
SIGINT it removes its file and exits 0. With --heartbeat-owner a detached
heartbeat owner keeps the file fresh, as for the hook adapters, and removes
it within a second of the end of --pid's process, even when serve is killed
with it (not on Windows).`,
			Examples: `coproc statuspub serve --session "$ID" --agent my-agent
echo '{"state":"blocked","title":"Waiting for review"}' >&"${COPROC[1]}"`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &hookFlags{}
				o.registerPublisher(fs, "idle", "statuspub's parent")
				fs.Bool(&o.noDetail, "no-detail", false, noDetailUsage)
				fs.Bool(&o.heartbeatOwner, "heartbeat-owner", false, "keep the record through a detached owner that outlives serve (SPEC.md H3, H4)")
				return func(args []string) int { return serve(o, args, p, env) }
			},
		},
		{
			Name:    "run",
			Summary: "publish \"working\" while CMD runs",
			Usage:   "run [flags] -- CMD [ARGS...]",
			Description: `run starts CMD, publishes its session while it runs, and exits with CMD's
status. It passes SIGINT, SIGTERM and SIGHUP on to CMD. The flags end at
CMD's name, so CMD's own flags are CMD's.`,
			Examples: `statuspub run --title "nightly tests" -- make test`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &hookFlags{}
				o.registerPublisher(fs, "working", "CMD")
				fs.StopAtArg = true
				return func(args []string) int { return run(o, args, p, env) }
			},
		},
		acpCommand(env, p),
		{
			Name:    "set",
			Summary: "change a session's record once (for scripts and hooks)",
			Usage:   "set --session ID [flags]",
			Description: `set keeps what is on disk for --state, --title, --agent and --cwd when they
are not given (without a record: idle, no title, agent statuspub, the working
directory). The first set of a session starts a detached heartbeat owner that
rewrites the record every 9 s while the agent process lives, and removes it
when that process exits or 'clear' runs. The agent process is --pid, else the
first ancestor of statuspub that is not a shell (hooks run as 'sh -c CMD').`,
			Examples: `statuspub set --session "$ID" --state blocked --title "Waiting for review"
statuspub set --session "$ID" --state idle --no-title`,
			Setup: func(fs *base.FlagSet) base.Runner {
				f := &hookFlags{}
				f.register(fs, true)
				f.registerWhy(fs)
				fs.Lookup("session").Complete = f.sessionIDs(env)
				return func(args []string) int { return setCmd(f, args, env) }
			},
		},
		{
			Name:     "clear",
			Summary:  "remove a session's record",
			Usage:    "clear --session ID [flags]",
			Examples: `statuspub clear --session "$ID"`,
			Setup: func(fs *base.FlagSet) base.Runner {
				f := &hookFlags{}
				f.register(fs, true)
				fs.Lookup("session").Complete = f.sessionIDs(env)
				return func(args []string) int { return clearCmd(f, args, env) }
			},
		},
	}
	// The adapters that read the hook input on stdin differ in what they
	// map and where the agent keeps its own state.
	for _, h := range []struct {
		name, agent, shown, summary, exit2, events, examples string
		mapper                                               agenthook.Mapper
		source                                               sourceFunc
	}{
		{"claude-hook", "claude-code", "Claude Code", "Claude Code", "block", `claude-hook reads the hook input from stdin: SessionStart -> idle,
UserPromptSubmit and tool use -> working, PermissionRequest, Elicitation and
permission or question notifications -> blocked, Stop and StopFailure ->
idle, SessionEnd -> clear; subagents' events, other agents' notifications
and compaction write nothing. The title is the in_progress item of the
latest TodoWrite, or the task in progress of the task tools. Unknown events
are ignored. Every event and why: SPEC.md 13.1.`, `statuspub install claude     # wires every event into ~/.claude/settings.json
# or by hand, in .claude/settings.json, for each hook event:
#   {"type": "command", "command": "statuspub claude-hook"}
echo '{"session_id":"s1","hook_event_name":"UserPromptSubmit"}' | statuspub claude-hook`, agenthook.Claude, claudeSource},
		{"codex-hook", "codex", "Codex", "Codex", "block", `codex-hook reads the hook input from stdin: SessionStart -> idle,
UserPromptSubmit and tool use -> working, PermissionRequest -> blocked, Stop,
StopFailure and Interrupt -> idle, SessionEnd -> clear; subagents' events
and compaction write nothing. Unknown events are ignored. Every event and
why: SPEC.md 13.1. For Codex versions without hooks, use codex-notify.`, `statuspub install codex      # ~/.codex/hooks.json, and the hooks feature in config.toml
echo '{"session_id":"s1","hook_event_name":"Interrupt","cwd":"/src"}' | statuspub codex-hook`, agenthook.Codex, codexSource},
		{"gemini-hook", "gemini", "Gemini CLI", "Gemini CLI", "block", `gemini-hook reads the hook input from stdin: SessionStart -> idle,
BeforeAgent and tool use -> working, a ToolPermission notification ->
blocked, AfterAgent -> idle, SessionEnd -> clear; model events (AfterModel
fires for every streamed chunk) and compression write nothing. The title is
the in_progress item of write_todos. Unknown events are ignored. Every event
and why: SPEC.md 13.1.`, `statuspub install gemini     # wires every event into ~/.gemini/settings.json
echo '{"session_id":"s1","hook_event_name":"BeforeAgent","cwd":"/src"}' | statuspub gemini-hook`, agenthook.Gemini, geminiSource},
		{"copilot-hook", "copilot", "Copilot CLI", "GitHub Copilot CLI", "deny", `copilot-hook reads the hook input from stdin, in the shape Copilot CLI
sends for PascalCase event names: SessionStart -> idle, UserPromptSubmit and
tool use -> working, a permission_prompt or elicitation_dialog notification
-> blocked, Stop and a model call's unrecoverable ErrorOccurred -> idle,
SessionEnd -> clear; a recoverable one (retried, or ended by the session
log's session.error) keeps working. Unknown events are ignored. Every event
and why: SPEC.md 13.1.`, `statuspub install copilot    # ~/.copilot/hooks/agentstatus.json
echo '{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"/src"}' | statuspub copilot-hook`, agenthook.Copilot, copilotSource},
		{"qwen-hook", "qwen", "Qwen Code", "Qwen Code", "block", `qwen-hook reads the hook input from stdin: SessionStart -> idle,
UserPromptSubmit and tool use -> working, PermissionRequest and a
permission_prompt notification -> blocked, Stop, StopFailure, an
interrupted tool and the idle_prompt notification -> idle, SessionEnd ->
clear. Unknown events are ignored. Every event and why: SPEC.md 13.1.`, `statuspub install qwen       # wires every event into ~/.qwen/settings.json
echo '{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"/src"}' | statuspub qwen-hook`, agenthook.Qwen, qwenSource},
	} {
		p.Commands = append(p.Commands, &base.Command{
			Name:    h.name,
			Summary: "publish from a " + h.summary + " hook (the hook input on stdin)",
			Usage:   h.name + " [flags] < INPUT",
			Hook:    true,
			Description: h.events + "\n\nWhatever goes wrong, it exits 0 with one line on stderr (1 with --strict),\nnever 2: " +
				h.shown + " reads exit status 2 as \"" + h.exit2 + "\".",
			Examples: h.examples,
			Setup:    hookSetup(env, h.name, h.agent, stdinPayload(h.shown), h.mapper, h.source),
		})
	}
	p.Commands = append(p.Commands, []*base.Command{
		{
			Name:    "codex-notify",
			Summary: "publish from Codex's notify program (the JSON as last argument)",
			Usage:   "codex-notify [flags] JSON",
			Hook:    true,
			Description: `codex-notify takes Codex's JSON as its last argument:
agent-turn-complete -> idle. Unknown events are ignored. See examples/codex.

Whatever goes wrong, it exits 0 with one line on stderr (1 with --strict),
never 2.`,
			Examples: `# in ~/.codex/config.toml:
#   notify = ["statuspub", "codex-notify"]`,
			Setup: hookSetup(env, "codex-notify", "codex", notifyPayload, agenthook.CodexNotify, nil),
		},
		{
			Name:    "install",
			Summary: "wire statuspub into an agent's hooks (claude, codex, gemini, opencode, copilot, qwen) or Zed's agent_servers",
			Usage:   "install [zed] AGENT [--dry-run] [--uninstall] [--project] [--trust] [--no-daemon]",
			Description: `install merges statuspub's hooks into the agent's own settings: Claude Code
~/.claude/settings.json, Codex ~/.codex/hooks.json, Gemini CLI
~/.gemini/settings.json, OpenCode the plugin agentstatus.js in
~/.config/opencode/plugins/, GitHub Copilot CLI the hooks file
~/.copilot/hooks/agentstatus.json, Qwen Code ~/.qwen/settings.json. With
--project, the working directory's .claude/, .codex/, .gemini/,
.opencode/plugins/, .github/hooks/ or .qwen/.

Codex runs new hooks only once you trust them: in Codex, type /hooks and
press t. --trust records that trust in ~/.codex/config.toml instead, exactly
as Codex's review does (one [hooks.state."..."] trusted_hash per hook); it is
never the default. Codex's app-server daemon (its default) keeps a session
about 60 s after you quit it: --no-daemon sets [features] daemon_auto_start =
false in config.toml, so that each Codex runs its own hooks and its session
goes when it quits (or run codex --no-daemon).

It keeps every other key and every other tool's hooks, backs the file up as
NAME.agentstatus-backup-TIME (OpenCode's plugin: in the folder above
plugins/, which OpenCode loads) and replaces it atomically, and refuses a file
it cannot parse (saying where), a symbolic link or a read-only file. Running
it twice changes nothing. statusls doctor says which agents are wired.

install zed AGENT (gemini, opencode, qwen, claude or codex: Claude Code and
Codex through their ACP adapters, claude-agent-acp or claude-code-acp and
codex-acp) makes Zed run the agent through statuspub acp instead: the
agent's entry in agent_servers of Zed's settings.json (~/.config/zed/, on
Linux $XDG_CONFIG_HOME/zed/ when set; Windows %APPDATA%\Zed\) gets
statuspub's path as "command" and "acp --agent NAME -- COMMAND ARGS..." as
"args", keeping its other keys, comments and trailing commas; it prints the
diff. What it replaced is kept in settings.json.agentstatus-restore beside
it, so that --uninstall puts the entry back as it was (SPEC.md 13.5).`,
			Examples: `statuspub install claude --dry-run     # print the diff, change nothing
statuspub install claude
statuspub install codex --project      # this repository's .codex/
statuspub install codex --trust        # and trust the hooks, as /hooks in Codex would
statuspub install gemini --uninstall
statuspub install zed gemini           # Zed runs gemini --acp through statuspub acp`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &installOptions{}
				fs.Bool(&o.dryRun, "dry-run", false, "print the diff, change nothing")
				fs.Bool(&o.uninstall, "uninstall", false, "remove statuspub's hooks")
				fs.Bool(&o.project, "project", false, "the project in the working directory, not your own configuration")
				fs.Bool(&o.trust, "trust", false, "codex: record statuspub's hooks as trusted, as Codex's /hooks review does")
				fs.Bool(&o.noDaemon, "no-daemon", false, "codex: turn Codex's app-server daemon off, so that a session goes when you quit")
				return func(args []string) int { return installCmd(o, args, p, env) }
			},
		},
		{
			Name:   "owner",
			Hidden: true, // started by set
			Usage:  "owner --dir DIR --session ID",
			Setup: func(fs *base.FlagSet) base.Runner {
				var dir, session string
				fs.String(&dir, "dir", "", "DIR", "status directory")
				fs.String(&session, "session", "", "ID", "session id")
				return func(args []string) int { return ownerCmd(dir, session, args, p, env) }
			},
		},
	}...)
	return p
}

// payloadFunc gets a hook adapter's payload from its arguments or stdin.
type payloadFunc func(env *runner, args []string) ([]byte, error)

// hookSetup declares the flags of the hook adapter name, which runs
// hookCmd.
func hookSetup(env *runner, name, agent string, payload payloadFunc, m agenthook.Mapper, sourceOf sourceFunc) func(*base.FlagSet) base.Runner {
	return func(fs *base.FlagSet) base.Runner {
		f := &hookFlags{}
		f.register(fs, false)
		return func(args []string) int { return hookCmd(name, agent, f, args, env, payload, m, sourceOf) }
	}
}

// sessionIDs lists the ids of the sessions (fresh or stale) in the status
// directory that the flags name, for completion.
func (f *hookFlags) sessionIDs(env *runner) func() []string {
	return func() []string {
		dir, err := f.statusDir(env)
		if err != nil {
			return nil
		}
		l, err := reader.List(dir, reader.Options{})
		if err != nil {
			return nil
		}
		var ids []string
		for _, e := range l.Entries {
			if e.Verdict == reader.Fresh || e.Verdict == reader.Stale {
				ids = append(ids, e.Status.Session)
			}
		}
		return ids
	}
}

// registerPublisher declares the flags of serve and run.
func (o *hookFlags) registerPublisher(fs *base.FlagSet, defState, defPID string) {
	fs.String(&o.session, "session", "", "ID", "the session id (serve: required; run: default run-<CMD>-<pid>)")
	fs.String(&o.agent, "agent", "statuspub", "NAME", `the "agent" field (default statuspub)`)
	fs.String(&o.state, "state", "", "STATE", "working, blocked or idle (default "+defState+")").Complete = func() []string { return base.States }
	fs.String(&o.title, "title", "", "TITLE", "the task title (default none)")
	fs.Int(&o.pid, "pid", 0, "PID", "the session's process (default "+defPID+")")
	fs.String(&o.cwd, "cwd", "", "DIR", "the session's workspace (default the working directory)")
	fs.String(&o.configHome, "config-home", "", "DIR", "publish into DIR/agent-status")
	fs.String(&o.dir, "dir", "", "DIR", "publish into DIR itself (its parent is the config home)")
}

// Run runs statuspub with args (without the program name). Every command
// catches SIGINT, SIGTERM and SIGHUP (env.Signals) while it runs. A nil
// env.Getenv is os.Getenv.
func Run(args []string, env base.Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	env.Fill()
	signals := make(chan os.Signal, 4)
	defer env.Signals(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)()
	return program(&runner{Env: env, args: args, signals: signals}).Run(args)
}

// publisherOptions turns flags into statusfile options.
func (o *hookFlags) publisherOptions(env *runner, state statusfile.State, pid int) (statusfile.Options, error) {
	dir, err := o.statusDir(env)
	if err != nil {
		return statusfile.Options{}, err
	}
	return statusfile.Options{
		Dir:      dir,
		Agent:    o.agent,
		State:    state,
		Title:    o.title,
		PID:      pid,
		Cwd:      o.cwd,
		NoDetail: o.withoutDetail(env),
		ErrorHandler: func(err error) {
			fmt.Fprintf(env.Stderr, "statuspub: %s\n", base.Message(err))
		},
	}, nil
}

func (o *hookFlags) parseState(def statusfile.State) (statusfile.State, error) {
	if o.state == "" {
		return def, nil
	}
	return base.ParseState(o.state)
}

func serve(o *hookFlags, args []string, prog *base.Program, env *runner) int {
	c := prog.Lookup("serve")
	if len(args) > 0 {
		return prog.UsageErrorf(c, "unexpected argument %q", args[0])
	}
	if o.session == "" {
		return prog.UsageErrorf(c, "--session is required")
	}
	state, err := o.parseState(statusfile.Idle)
	if err != nil {
		return prog.UsageErrorf(c, "--state: %v", err)
	}
	pid := cmp.Or(o.pid, os.Getppid()) // default: the program that spawned us
	opts, err := o.publisherOptions(env, state, pid)
	if err != nil {
		return prog.Errorf(c, "%s", base.Message(err))
	}
	var p servePublisher
	if o.heartbeatOwner && runtime.GOOS != "windows" {
		if err := statusfile.ValidateSession(o.session); err != nil {
			return prog.UsageErrorf(c, "--session: %s", base.Message(err))
		}
		p = newOwnedPublisher(env, opts.Dir, o.session, opts)
	} else {
		sp, err := statusfile.NewPublisher(o.session, opts)
		if err != nil {
			return prog.UsageErrorf(c, "--session: %s", base.Message(err))
		}
		p = sp
	}
	// Every return below goes through closeAndExit.
	ctx := context.Background()
	// Publish at once; a failure is reported by the error handler. A
	// write that hangs (a frozen file system) is not waited for.
	flushBounded(ctx, p)

	lines := make(chan []byte)
	go readLines(env.Stdin, lines)
	out := bufio.NewWriter(env.Stdout)
	answer := func(err error) {
		if err == nil {
			out.WriteString(`{"ok":true}` + "\n")
		} else {
			msg, _ := json.Marshal(base.Message(err))
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
			answer(flushBounded(ctx, p))
		case <-env.signals:
			return closeAndExit(p, env)
		}
	}
}

// serveFlushWait bounds how long serve waits for a change to reach the
// disk before it answers {"ok":false}: on a frozen file system a write
// never returns, and the program on the other end must still get an
// answer to every line (SPEC.md P13). The change is not lost: the
// publisher writes it when the file system thaws. A variable for tests.
var serveFlushWait = 5 * time.Second

// serveCloseWait bounds how long serve waits, when it stops, for a write
// in progress and the removal of the record: a signal must end it even on
// a frozen file system. A variable for tests.
var serveCloseWait = 2 * time.Second

// errWriteHangs is the answer for a change not on disk after serveFlushWait.
var errWriteHangs = errors.New("the write did not finish in time (is the file system frozen?): the change is kept and written when it can be")

func flushBounded(ctx context.Context, p servePublisher) error {
	ctx, cancel := context.WithTimeout(ctx, serveFlushWait)
	defer cancel()
	err := p.Flush(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return errWriteHangs
	}
	return err
}

// closeAndExit closes p, waiting at most serveCloseWait, and reports a
// failure.
func closeAndExit(p servePublisher, env *runner) int {
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(serveCloseWait):
		err = errors.New("a write still hangs: the status file was not removed")
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: %s\n", base.Message(err))
	}
	return base.ExitOK
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
func apply(p servePublisher, line []byte) error {
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
		st, err := base.ParseState(s)
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
	wait, end, err := whyOfLine(m)
	if err != nil {
		return err
	}
	switch {
	case wait != nil && state != statusfile.Blocked && m["state"] != nil:
		return fmt.Errorf(`"waitingFor" needs the state blocked, not %s`, state)
	case end != nil && state != statusfile.Idle && m["state"] != nil:
		return fmt.Errorf(`"ended" needs the state idle, not %s`, state)
	case wait != nil:
		p.SetTitle(title)
		p.SetWaiting(*wait)
	case end != nil:
		p.SetTitle(title)
		p.SetEnded(*end)
	default:
		p.Set(state, title)
	}
	return nil
}

// whyOfLine reads the "waitingFor" and "ended" of a serve line (null or
// absent: none): objects whose kind or reason is one SPEC.md defines, and
// whose tool and detail are strings or null.
func whyOfLine(m map[string]json.RawMessage) (*statusfile.Waiting, *statusfile.Ended, error) {
	type why struct{ Kind, Reason, Tool, Detail *string } // keys match case-insensitively
	read := func(key, word string, known []string) (*why, error) {
		raw, ok := m[key]
		if !ok || string(bytes.TrimSpace(raw)) == "null" {
			return nil, nil
		}
		var w why
		bad := fmt.Errorf(`%q must be null or an object {"%s":...} with %s`, key, word, strings.Join(known, ", "))
		if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &w) != nil {
			return nil, bad
		}
		v := w.Kind
		if word == "reason" {
			v = w.Reason
		}
		if v == nil || !slices.Contains(known, *v) {
			return nil, bad
		}
		return &w, nil
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	w, err := read("waitingFor", "kind", waitKinds)
	if err != nil {
		return nil, nil, err
	}
	e, err := read("ended", "reason", endReasons)
	switch {
	case err != nil:
		return nil, nil, err
	case w != nil && e != nil:
		return nil, nil, errors.New(`"waitingFor" and "ended" exclude each other`)
	case w != nil:
		return &statusfile.Waiting{Kind: *w.Kind, Tool: str(w.Tool), Detail: str(w.Detail)}, nil, nil
	case e != nil:
		if e.Tool != nil {
			return nil, nil, errors.New(`"ended" has no "tool"`)
		}
		return nil, &statusfile.Ended{Reason: *e.Reason, Detail: str(e.Detail)}, nil
	}
	return nil, nil, nil
}

func run(o *hookFlags, argv []string, prog *base.Program, env *runner) int {
	c := prog.Lookup("run")
	if len(argv) == 0 {
		return prog.UsageErrorf(c, "no command given (statuspub run [flags] -- CMD [ARGS...])")
	}
	state, err := o.parseState(statusfile.Working)
	if err != nil {
		return prog.UsageErrorf(c, "--state: %v", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: run: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return base.ExitNotFound
		}
		return base.ExitCannotRun
	}
	pid := cmp.Or(o.pid, cmd.Process.Pid)
	session := cmp.Or(o.session, "run-"+filepath.Base(argv[0])+"-"+strconv.Itoa(cmd.Process.Pid))
	var p *statusfile.Publisher
	opts, err := o.publisherOptions(env, state, pid)
	if err == nil {
		p, err = statusfile.NewPublisher(session, opts)
	}
	if err != nil {
		// The command runs anyway: status is never a reason to stop work.
		fmt.Fprintf(env.Stderr, "statuspub: run: not publishing: %s\n", base.Message(err))
	}
	stopSignals := acpbridge.ForwardSignals(cmd.Process, env.signals)
	err = cmd.Wait()
	stopSignals()
	if p != nil {
		if cerr := p.Close(); cerr != nil {
			fmt.Fprintf(env.Stderr, "statuspub: %s\n", base.Message(cerr))
		}
	}
	// CMD's exit status, or 128+signal when a signal ended it.
	if cmd.ProcessState == nil {
		fmt.Fprintf(env.Stderr, "statuspub: run: %v\n", err)
		return base.ExitError
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
