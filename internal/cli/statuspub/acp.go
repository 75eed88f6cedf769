package statuspub

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/agentstatus/agentstatus/internal/acpbridge"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// acpCommand is `statuspub acp`: the Agent Client Protocol proxy of
// package acpbridge, with flags.
func acpCommand(env *runner, p *base.Program) *base.Command {
	return &base.Command{
		Name:    "acp",
		Summary: "run an ACP agent for an editor, publishing its sessions",
		Usage:   "acp [--agent NAME] [flags] -- COMMAND [ARGS...]",
		Description: `acp runs COMMAND, an agent speaking the Agent Client Protocol on its
standard input and output, in place of the editor's own start of it (Zed's
agent_servers: "command": "statuspub", "args": ["acp", "--", "gemini",
"--acp"]). Every byte passes unchanged and in order both ways; from the
messages it sees, acp publishes one record per ACP session, named
"acp:" and the session id: idle when the session is made or loaded, working
from a prompt, blocked on a permission request, idle when the turn ends,
with how it ended (SPEC.md 13.5). When the agent exits or the editor closes
the pipe every record goes, and acp exits with the agent's status, passing
SIGINT, SIGTERM and SIGHUP on to it. A failed write never touches the
stream: it is one line on stderr.`,
		Examples: `statuspub acp -- gemini --acp
statuspub acp -- opencode acp
statuspub install zed gemini      # the same, wired into Zed's settings.json`,
		Setup: func(fs *base.FlagSet) base.Runner {
			o := &hookFlags{}
			fs.String(&o.agent, "agent", "", "NAME", `the "agent" field (default from COMMAND: gemini, opencode, qwen, claude-code, codex, else its name)`)
			fs.String(&o.configHome, "config-home", "", "DIR", "publish into DIR/agent-status")
			fs.String(&o.dir, "dir", "", "DIR", "publish into DIR itself (its parent is the config home)")
			fs.Bool(&o.noDetail, "no-detail", false, noDetailUsage)
			fs.StopAtArg = true
			return func(args []string) int { return acpCmd(o, args, p, env) }
		},
	}
}

func acpCmd(o *hookFlags, argv []string, prog *base.Program, env *runner) int {
	c := prog.Lookup("acp")
	if len(argv) == 0 {
		return prog.UsageErrorf(c, "no command given (statuspub acp [flags] -- COMMAND [ARGS...])")
	}
	cfg := acpbridge.Config{
		Command: argv,
		Stdin:   env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Signals:  env.signals,
		Agent:    o.agent,
		Exe:      env.Executable,
		NoDetail: o.withoutDetail(env),
		Report: func(err error) {
			fmt.Fprintf(env.Stderr, "statuspub: acp: %s\n", base.Message(err))
		},
	}
	dir, err := o.statusDir(env)
	if err != nil {
		// The agent runs anyway: status is never a reason to stop work.
		fmt.Fprintf(env.Stderr, "statuspub: acp: not publishing: %s\n", base.Message(err))
		cfg.Report = func(error) {}
	}
	cfg.Dir = dir
	code, err := acpbridge.Run(cfg)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: acp: %s: %v\n", argv[0], errors.Unwrap(err))
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return base.ExitNotFound
		}
		return base.ExitCannotRun
	}
	return code
}
