package statuspub

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/testhook"
)

// installOptions are the flags of install.
type installOptions struct {
	dryRun, uninstall, project bool
	trust, noDaemon            bool // Codex only
}

// installCmd is `statuspub install AGENT [--dry-run] [--uninstall]
// [--project]`: thin glue over package agentinstall.
func installCmd(o *installOptions, args []string, prog *base.Program, env *runner) int {
	c := prog.Lookup("install")
	if len(args) > 0 && args[0] == "zed" {
		return installZedCmd(o, args[1:], prog, c, env)
	}
	if msg := whichAgent(args, agentinstall.Agents, ""); msg != "" {
		return prog.UsageErrorf(c, "%s", msg)
	}
	agent := args[0]
	if (o.trust || o.noDaemon) && agent != "codex" {
		return prog.UsageErrorf(c, "--trust and --no-daemon are for codex")
	}
	if agent == "codex" && codexTOML == nil {
		return execInstallHelper(prog, c, env)
	}
	command, note, err := hookCommand(env, o.uninstall)
	if err != nil {
		return prog.Errorf(c, "%v", err)
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "statuspub: note: %s\n", note)
	}
	opts := agentinstall.Options{Agent: agent, Uninstall: o.uninstall, Command: command, Getenv: env.Getenv,
		Trust: o.trust, NoDaemon: o.noDaemon}
	if codexTOML != nil {
		opts.CodexConfig = codexTOML.plan
	}
	if o.project {
		opts.Project, _ = os.Getwd()
		if opts.Project == "" {
			return prog.Errorf(c, "cannot find the working directory")
		}
	}
	// Main catches SIGINT, SIGTERM and SIGHUP for every command: wait
	// for them too, or a Ctrl-C on an install stuck on a hanging file
	// system would do nothing. Each file is replaced atomically, so an
	// interrupted install leaves every file old or new.
	code, err := beforeSignal(env, ": each settings file is either unchanged or replaced; run install again to finish", func() (int, error) {
		return installPlan(o, opts, prog, c, env), nil
	})
	if err != nil {
		return prog.Errorf(c, "%v", err)
	}
	return code
}

// whichAgent says what is wrong with args as the one agent of agents
// (words such as " for Zed" in each message), or "" when nothing is.
func whichAgent(args, agents []string, what string) string {
	list := strings.Join(agents[:len(agents)-1], ", ") + " or " + agents[len(agents)-1]
	switch {
	case len(args) == 0:
		return fmt.Sprintf("which agent%s? (%s)", what, list)
	case len(args) > 1:
		return fmt.Sprintf("unexpected argument %q", args[1])
	case !slices.Contains(agents, args[0]):
		if s := base.Suggest(args[0], agents); s != "" {
			return fmt.Sprintf("unknown agent %q%s; did you mean %s?", args[0], what, s)
		}
		return fmt.Sprintf("unknown agent %q%s (%s)", args[0], what, list)
	}
	return ""
}

// installZedCmd is `statuspub install zed AGENT [--dry-run] [--uninstall]`:
// the agent's entry in Zed's agent_servers runs it through statuspub acp.
func installZedCmd(o *installOptions, args []string, prog *base.Program, c *base.Command, env *runner) int {
	if msg := whichAgent(args, agentinstall.ZedAgents, " for Zed"); msg != "" {
		return prog.UsageErrorf(c, "%s", msg)
	}
	switch {
	case o.trust || o.noDaemon:
		return prog.UsageErrorf(c, "--trust and --no-daemon are for codex's hooks, not for zed")
	case o.project:
		return prog.UsageErrorf(c, "--project is not for zed: Zed reads agent_servers from your own settings.json")
	}
	command, note, err := hookCommand(env, o.uninstall)
	if err != nil {
		return prog.Errorf(c, "%v", err)
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "statuspub: note: %s\n", note)
	}
	opts := agentinstall.Options{Agent: args[0], Zed: true, Uninstall: o.uninstall, Command: command, Getenv: env.Getenv}
	code, err := beforeSignal(env, ": each settings file is either unchanged or replaced; run install again to finish", func() (int, error) {
		return installPlan(o, opts, prog, c, env), nil
	})
	if err != nil {
		return prog.Errorf(c, "%v", err)
	}
	return code
}

// installPlan plans the changes of opts and applies them, unless
// --dry-run.
func installPlan(o *installOptions, opts agentinstall.Options, prog *base.Program, c *base.Command, env *runner) int {
	changes, err := agentinstall.Plan(opts)
	if err != nil {
		return prog.Errorf(c, "%s", base.Message(err))
	}
	for _, ch := range changes {
		for _, n := range ch.Notes {
			fmt.Fprintf(env.Stderr, "statuspub: note: %s\n", strings.NewReplacer("\r", " ", "\n", " ").Replace(n))
		}
		if !ch.Changed() {
			fmt.Fprintf(env.Stdout, "unchanged: %s\n", ch.Path)
			continue
		}
		if o.dryRun || opts.Zed {
			// Zed's settings are the user's own, hand-edited file:
			// show what changes in it.
			fmt.Fprint(env.Stdout, ch.Diff())
		}
		if o.dryRun {
			continue
		}
		testhook.At(testhook.InstallApply, ch.Path)
		backup, err := agentinstall.Apply(ch, time.Now())
		if err != nil {
			return prog.Errorf(c, "%s", base.Message(err))
		}
		verb := "wrote"
		if ch.New == nil {
			verb = "removed"
		}
		if backup != "" {
			backup = " (backup: " + backup + ")"
		}
		fmt.Fprintf(env.Stdout, "%s: %s%s\n", verb, ch.Path, backup)
	}
	if opts.Agent == "codex" && !o.uninstall && !o.dryRun && codexUntrusted(opts) {
		fmt.Fprintln(env.Stderr, "statuspub: Codex runs these hooks only once you trust them: start codex, type /hooks and press t (or run 'statuspub install codex --trust')")
	}
	if opts.Agent == "codex" && !o.uninstall && opts.Project == "" && !codexTOML.daemonOff(codexConfigPath(env)) {
		fmt.Fprintln(env.Stderr, "statuspub: note: with Codex's app-server daemon (its default) a session stays listed about 60 s after you quit Codex; 'codex --no-daemon' or 'statuspub install codex --no-daemon' makes it go at once")
	}
	return base.ExitOK
}

// codexTOML reads and edits Codex's config.toml for install codex: package
// codexconfig's functions in statuspub-install (cmd/statuspub-install, see
// [InstallMain]), nil in statuspub. codexconfig links the TOML parser,
// whose package initialisation reads the local time zone (/etc/localtime)
// in every process that links it, and statuspub is the program every
// agent starts on every hook event: statuspub re-executes
// statuspub-install for install codex instead.
var codexTOML *codexConfig

// codexConfig is what install needs of package codexconfig.
type codexConfig struct {
	plan      func(path string, req agentinstall.CodexConfigRequest) (agentinstall.Change, error)
	daemonOff func(path string) bool
}

// installHelper is statuspub with package codexconfig linked.
const installHelper = "statuspub-install"

// installHelperEnv carries, from statuspub to the statuspub-install it
// re-executes, statuspub's own path: the hooks install writes start
// statuspub, not the helper. It also keeps a helper without codexconfig
// from starting itself again.
const installHelperEnv = "STATUSPUB_INSTALL_FOR"

// InstallMain is Main for statuspub-install, with plan and daemonOff
// (package codexconfig's Plan and DaemonOff) editing and reading Codex's
// config.toml.
func InstallMain(plan func(path string, req agentinstall.CodexConfigRequest) (agentinstall.Change, error), daemonOff func(path string) bool) int {
	codexTOML = &codexConfig{plan: plan, daemonOff: daemonOff}
	return Main()
}

// execInstallHelper runs this install command (env.args) in
// statuspub-install and returns its exit status.
func execInstallHelper(prog *base.Program, c *base.Command, env *runner) int {
	if env.Getenv(installHelperEnv) != "" {
		return prog.Errorf(c, "this %s cannot edit Codex's config.toml", installHelper)
	}
	path, err := base.FindHelper(installHelper)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: install codex needs %s, which is not installed next to statuspub or in $PATH\n", installHelper)
		fmt.Fprintf(env.Stderr, "statuspub: hint: go install github.com/agentstatus/agentstatus/cmd/%s@latest\n", installHelper)
		return base.ExitError
	}
	environ := append(os.Environ(), installHelperEnv+"="+env.Executable)
	code, err := base.ExecHelper(env.Env, path, env.args, environ)
	if err != nil {
		return prog.Errorf(c, "%s: %v", installHelper, err)
	}
	return code
}

// codexConfigPath is the user's Codex config.toml.
func codexConfigPath(env *runner) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(env.Getenv("HOME"), ".codex", "config.toml")
}

// codexUntrusted reports whether Codex would not yet run statuspub's hooks
// as installed by opts: a project's always need the review; the user's
// when config.toml lacks the trust of one.
func codexUntrusted(opts agentinstall.Options) bool {
	if opts.Project != "" {
		return true
	}
	for _, st := range agentinstall.Check(opts.Getenv) {
		if st.Agent == "codex" {
			return len(st.Untrusted) > 0
		}
	}
	return false
}

// hookCommand is how the hooks start statuspub: the absolute path that
// stays valid for the way this statuspub is installed (see
// [agentinstall.HookProgram]), also because Codex runs hooks with a PATH
// of its own, not the user's shell's, in which a bare "statuspub" in
// ~/bin or ~/go/bin fails with status 127. A statuspub run from npx's
// cache is refused, unless to uninstall: its hooks are found by name.
func hookCommand(env *runner, uninstall bool) (command, note string, err error) {
	if env.Executable == "" {
		return "statuspub", "", nil
	}
	command, note, err = agentinstall.HookProgram(env.Executable, exec.LookPath)
	if errors.Is(err, agentinstall.ErrNPXCache) {
		if uninstall {
			return "statuspub", "", nil
		}
		return "", "", errors.New("this statuspub runs from npx's temporary cache, which npm empties when it likes: install it first (npm install -g agentstatus), then run install again")
	}
	if err != nil {
		return "", "", err
	}
	return command, note, nil
}
