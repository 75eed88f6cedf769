package statuspub

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentstatus/agentstatus/internal/agentinstall"
	"github.com/agentstatus/agentstatus/internal/agentinstall/codexconfig"
)

// installCmd is `statuspub install AGENT [--dry-run] [--uninstall]
// [--project]`: thin glue over package agentinstall.
func installCmd(args []string, env Env) int {
	fs := flag.NewFlagSet("statuspub install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dry := fs.Bool("dry-run", false, "print the diff, change nothing")
	uninstall := fs.Bool("uninstall", false, "remove the hooks")
	project := fs.Bool("project", false, "the project in the working directory, not the user's configuration")
	// The agent may come before or after the flags.
	var agent string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		agent, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return ExitOK
		}
		return usageError(env, "install: %v", err)
	}
	rest := fs.Args()
	if agent == "" && len(rest) > 0 {
		agent, rest = rest[0], rest[1:]
	}
	switch {
	case agent == "":
		return usageError(env, "install: which agent? (claude, codex, gemini or opencode)")
	case len(rest) > 0:
		return usageError(env, "install: unexpected argument %q", rest[0])
	case !slices.Contains(agentinstall.Agents, agent):
		return usageError(env, "install: unknown agent %q (claude, codex, gemini or opencode)", agent)
	}
	o := agentinstall.Options{Agent: agent, Uninstall: *uninstall, Command: hookCommand(env), Getenv: env.Getenv,
		CodexFeature: codexconfig.PlanFeature}
	if *project {
		o.Project = workingDir()
		if o.Project == "" {
			fmt.Fprintln(env.Stderr, "statuspub: install: cannot find the working directory")
			return ExitError
		}
	}
	changes, err := agentinstall.Plan(o)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statuspub: install: %s\n", oneLine(err.Error()))
		return ExitError
	}
	wrote := false
	for _, c := range changes {
		for _, n := range c.Notes {
			fmt.Fprintf(env.Stderr, "statuspub: note: %s\n", oneLine(n))
		}
		if !c.Changed() {
			fmt.Fprintf(env.Stdout, "unchanged: %s\n", c.Path)
			continue
		}
		if *dry {
			fmt.Fprint(env.Stdout, c.Diff())
			continue
		}
		backup, err := agentinstall.Apply(c, time.Now())
		if err != nil {
			fmt.Fprintf(env.Stderr, "statuspub: install: %s\n", oneLine(err.Error()))
			return ExitError
		}
		wrote = true
		verb := "wrote"
		if c.New == nil {
			verb = "removed"
		}
		if backup != "" {
			fmt.Fprintf(env.Stdout, "%s: %s (backup: %s)\n", verb, c.Path, backup)
		} else {
			fmt.Fprintf(env.Stdout, "%s: %s\n", verb, c.Path)
		}
	}
	if agent == "codex" && wrote && !*uninstall {
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
