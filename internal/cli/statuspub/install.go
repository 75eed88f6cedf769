package statuspub

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/agentinstall/codexconfig"
	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/testhook"
)

// installOptions are the flags of install.
type installOptions struct {
	dryRun, uninstall, project bool
}

// installCmd is `statuspub install AGENT [--dry-run] [--uninstall]
// [--project]`: thin glue over package agentinstall.
func installCmd(o *installOptions, args []string, prog *base.Program, env Env) int {
	c := prog.Lookup("install")
	switch {
	case len(args) == 0:
		return prog.UsageErrorf(c, "which agent? (claude, codex, gemini or opencode)")
	case len(args) > 1:
		return prog.UsageErrorf(c, "unexpected argument %q", args[1])
	case !slices.Contains(agentinstall.Agents, args[0]):
		msg := fmt.Sprintf("unknown agent %q (claude, codex, gemini or opencode)", args[0])
		if s := base.Suggest(args[0], agentinstall.Agents); s != "" {
			msg = fmt.Sprintf("unknown agent %q; did you mean %s?", args[0], s)
		}
		return prog.UsageErrorf(c, "%s", msg)
	}
	agent := args[0]
	opts := agentinstall.Options{Agent: agent, Uninstall: o.uninstall, Command: hookCommand(env), Getenv: env.Getenv,
		CodexFeature: codexconfig.PlanFeature}
	if o.project {
		opts.Project = workingDir()
		if opts.Project == "" {
			return prog.Errorf(c, "cannot find the working directory")
		}
	}
	// Main catches SIGINT, SIGTERM and SIGHUP for every command: wait
	// for them too, or a Ctrl-C on an install stuck on a hanging file
	// system would do nothing. Each file is replaced atomically, so an
	// interrupted install leaves every file old or new.
	done := make(chan int, 1)
	go func() { done <- installPlan(o, opts, prog, c, env) }()
	select {
	case code := <-done:
		return code
	case sig := <-env.Signals:
		return prog.Errorf(c, "interrupted (%v): each settings file is either unchanged or replaced; run install again to finish", sig)
	}
}

// installPlan plans the changes of opts and applies them, unless
// --dry-run.
func installPlan(o *installOptions, opts agentinstall.Options, prog *base.Program, c *base.Command, env Env) int {
	changes, err := agentinstall.Plan(opts)
	if err != nil {
		return prog.Errorf(c, "%s", base.Message(err))
	}
	wrote := false
	for _, ch := range changes {
		for _, n := range ch.Notes {
			fmt.Fprintf(env.Stderr, "statuspub: note: %s\n", strings.NewReplacer("\r", " ", "\n", " ").Replace(n))
		}
		if !ch.Changed() {
			fmt.Fprintf(env.Stdout, "unchanged: %s\n", ch.Path)
			continue
		}
		if o.dryRun {
			fmt.Fprint(env.Stdout, ch.Diff())
			continue
		}
		testhook.At(testhook.InstallApply, ch.Path)
		backup, err := agentinstall.Apply(ch, time.Now())
		if err != nil {
			return prog.Errorf(c, "%s", base.Message(err))
		}
		wrote = true
		verb := "wrote"
		if ch.New == nil {
			verb = "removed"
		}
		if backup != "" {
			fmt.Fprintf(env.Stdout, "%s: %s (backup: %s)\n", verb, ch.Path, backup)
		} else {
			fmt.Fprintf(env.Stdout, "%s: %s\n", verb, ch.Path)
		}
	}
	if opts.Agent == "codex" && wrote && !o.uninstall {
		fmt.Fprintln(env.Stderr, "statuspub: note: Codex asks you to review new hooks: run /hooks in Codex once to trust them")
	}
	return ExitOK
}

// hookCommand is how the hooks start statuspub: "statuspub" when that is
// this program on PATH, else this program's absolute path.
func hookCommand(env Env) string {
	if env.Executable == "" {
		return "statuspub"
	}
	exe, err := filepath.EvalSymlinks(env.Executable)
	if err != nil {
		return env.Executable
	}
	if p, err := exec.LookPath("statuspub"); err == nil {
		if q, err := filepath.EvalSymlinks(p); err == nil {
			if a, err1 := os.Stat(q); err1 == nil {
				if b, err2 := os.Stat(exe); err2 == nil && os.SameFile(a, b) {
					return "statuspub"
				}
			}
		}
	}
	return exe
}
