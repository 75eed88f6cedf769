// Package statusconform is the statusconform command: the conformance suite
// of the gentle-shell.agent-status/v1 protocol, run against a reader or a
// publisher in any language.
package statusconform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// runner is one run of the command: its environment and the program
// running (for usage errors).
type runner struct {
	base.Env
	prog *base.Program
}

// Main runs the command with the process's own streams. The first SIGINT
// or SIGTERM cancels the run; a second one, with the default handling
// restored, ends the program at once.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	defer stop()
	return Run(ctx, os.Args[1:], base.OSEnv())
}

const summary = `statusconform checks readers and publishers of gentle-shell.agent-status/v1
against SPEC.md.`

const footer = `Exit status: 0 when nothing failed (but expected failures), 1 when something
failed, 2 for usage or a command that cannot be run.`

// program is the statusconform command line. A flag is one line in its
// register method; see package base for how to add a flag or a command.
func program(ctx context.Context, env *runner) *base.Program {
	p := &base.Program{
		Name:    "statusconform",
		Summary: summary,
		Footer:  footer,
		Env:     &env.Env,
		Commands: []*base.Command{
			suiteCommand(ctx, env, &base.Command{
				Name:    "reader",
				Summary: "run the reader cases against a reader command",
				Usage:   "reader [flags] -- CMD [ARGS...]",
				Description: `reader runs CMD once per case (not through a shell) in a fresh directory,
with {dir} and {now} in ARGS replaced, and STATUS_DIR and STATUSCONFORM_NOW
(RFC 3339, UTC, milliseconds) in its environment. CMD prints one JSON object
per line for each live session, with keys session, agent, state, pid, cwd
and title (the displayed title or null), and exits 0.`,
				Examples: `statusconform reader -- statusls --ndjson --now {now}
statusconform reader --level core -- sh conformance/adapters/jq/reader.sh`,
			}),
			suiteCommand(ctx, env, &base.Command{
				Name:    "publisher",
				Summary: "drive a publisher command through the publisher checks",
				Usage:   "publisher [flags] -- CMD [ARGS...]",
				Description: `publisher starts CMD once per scenario (a scenario decides one or more
checks), not through a shell, with {home}, {session} and {agent} in ARGS
replaced and STATUSCONFORM_CONFIG_HOME, STATUSCONFORM_SESSION and
STATUSCONFORM_AGENT in its environment, and drives it with the line protocol
of SPEC.md §11. Its deadlines (2 s) stretch to 4 times what a first, timed
start of CMD took.`,
				Examples: `statusconform publisher -- statuspub serve --config-home {home} --session {session} --agent {agent}
statusconform publisher -- python3 conformance/adapters/python/status_publisher.py`,
			}),
			suiteCommand(ctx, env, &base.Command{
				Name:    "hooks",
				Summary: "feed one agent's hook traces to a hook adapter command",
				Usage:   "hooks --agent NAME [flags] -- CMD [ARGS...]",
				Description: `hooks runs the hook traces of one agent (claude, codex, gemini, copilot or
qwen): for each
trace, in a fresh config home, CMD is started once per recorded hook payload
(not through a shell), the payload on its stdin, "{home}" in ARGS replaced
by the config home (also $GENTLE_PI_CONFIG_HOME and
$STATUSCONFORM_CONFIG_HOME); after each step the record must have the state
and title the trace expects, be gone, or be untouched. CMD must exit 0
(agents read exit status 2 as "block") and print nothing on stdout (agents
read that too). The traces and the rules they check
are in SPEC.md 13.`,
				Examples: `statusconform hooks --agent claude -- statuspub claude-hook --config-home {home}
statusconform hooks --agent codex --list
statusconform hooks --agent gemini --run 'hooks/gemini/tool-*' -- ./my-adapter --home {home}`,
			}),
			suiteCommand(ctx, env, &base.Command{
				Name:    "acp",
				Summary: "replay the ACP traces through a bridge command",
				Usage:   "acp [--agent NAME] [flags] -- CMD [ARGS...]",
				Description: `acp runs the ACP traces (conformance/acptraces: real exchanges between an
editor and Gemini CLI or OpenCode, and synthetic ones for a batch and for
state_update) through CMD, a bridge that runs the agent given after its own
arguments as statuspub acp does, "{home}" in ARGS replaced by the config
home (also $GENTLE_PI_CONFIG_HOME). The harness is
the editor, and the agent too; every line must come out unchanged on the
other side, and after each line the trace expects a record of, the
session's record (acp: and its id) must show it within --timeout. SPEC.md
13.5.`,
				Examples: `statusconform acp -- statuspub acp --config-home {home} --
statusconform acp --agent opencode -- python3 conformance/adapters/python/acp_bridge.py --`,
			}),
			reportCommand(ctx, env),
			{
				Name:    "materialize",
				Summary: "write every reader case as a directory, for other test suites",
				Usage:   "materialize DIR",
				Description: `materialize writes every reader case as DIR/<id>/ (a status directory and
expected.json), for implementers who would rather run their own tests.`,
				Examples: `statusconform materialize /tmp/cases`,
				Setup: func(fs *base.FlagSet) base.Runner {
					return func(args []string) int { return materialize(args, env) }
				},
			},
		},
	}
	env.prog = p
	return p
}

// suiteCommand completes cmd, the command of one suite (reader, publisher
// or hooks), with its flags and its run.
func suiteCommand(ctx context.Context, env *runner, cmd *base.Command) *base.Command {
	cmd.Setup = func(fs *base.FlagSet) base.Runner {
		f := &suiteFlags{}
		f.register(fs, cmd.Name)
		fs.StopAtArg = true
		return func(args []string) int { return suite(ctx, cmd.Name, f, args, env) }
	}
	return cmd
}

// Run runs statusconform with args (without the program name). Of env it
// uses the standard output and error; [base.Env.Fill] gives the rest.
func Run(ctx context.Context, args []string, env base.Env) int {
	env.Fill()
	return program(ctx, &runner{Env: env}).Run(args)
}

func errorf(env *runner, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statusconform: "+format+"\n", args...)
	return base.ExitError
}

// globs is a repeatable --run flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(s string) error { *g = append(*g, s); return nil }

// suiteFlags are the flags of reader, publisher and hooks.
type suiteFlags struct {
	run       globs
	skip      globs
	list      bool
	jsonFile  string
	junitFile string
	expected  string
	level     string
	scale     float64
	timeout   time.Duration
	agent     string // hooks
}

// register declares the flags of the suite cmd, one per line. The hook
// traces have no levels, no calibration and nothing to skip.
func (f *suiteFlags) register(fs *base.FlagSet, cmd string) {
	switch cmd {
	case "reader":
		fs.Duration(&f.timeout, "timeout", 5*time.Second, "D", "per case (default 5s; at least 10 times what a first, timed\ncase took the reader)")
	case "hooks":
		fs.String(&f.agent, "agent", "", "NAME", "claude, codex, gemini, copilot or qwen (required)").Complete = func() []string { return agenthook.Agents }
		fs.Duration(&f.timeout, "timeout", 5*time.Second, "D", "per step (default 5s)")
	case "acp":
		fs.String(&f.agent, "agent", "", "NAME", "only the traces of gemini or opencode")
		fs.Duration(&f.timeout, "timeout", 2*time.Second, "D", "per expected record (default 2s)")
	}
	if cmd != "hooks" && cmd != "acp" {
		fs.String(&f.level, "level", "hardened", "LEVEL", "core: what the published page requires (for a publisher, with\nthe config home already present); hardened (default): also this\ntoolkit's rules").Complete = func() []string { return []string{"core", "hardened"} }
		scaleFlag(fs, &f.scale)
	}
	fs.Var(&f.run, "run", "GLOB", "only the ids GLOB matches (* matches across /); repeatable")
	if cmd != "hooks" && cmd != "acp" {
		fs.Var(&f.skip, "skip", "GLOB", "do not run the ids GLOB matches (reported as SKIP); repeatable")
	}
	fs.String(&f.expected, "expected-failures", "", "FILE", "ids (or globs) expected to fail, one a line, # comments: their\nfailures (XFAIL) do not fail the run, but their passes (XPASS) do")
	listed := "list the ids, their level and rules, then exit"
	if cmd == "hooks" {
		listed = "list the ids and their traps, then exit"
	}
	fs.Bool(&f.list, "list", false, listed)
	fs.String(&f.jsonFile, "json", "", "FILE", "also write the full report as JSON to FILE")
	fs.String(&f.junitFile, "junit", "", "FILE", "also write the report as JUnit XML to FILE")
}

// scaleFlag declares --timeout-scale, 1 by default.
func scaleFlag(fs *base.FlagSet, scale *float64) {
	*scale = 1
	fs.Func("timeout-scale", "N", "multiply every deadline by N (default 1)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*scale = v
		return nil
	})
}

// readExpectedFailures reads an expected-failures file; "" is none.
func readExpectedFailures(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	sel, err := conformance.ReadExpectedFailures(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sel, nil
}

// runError reports the error of a run of cmd: a command that cannot be
// run at all is a usage error (exit status 2), anything else exit status 1.
func runError(env *runner, cmd string, err error) int {
	if errors.Is(err, conformance.ErrCannotRun) {
		fmt.Fprintf(env.Stderr, "statusconform: %s: %v\n", cmd, err)
		return base.ExitUsage
	}
	return errorf(env, "%s: %v", cmd, err)
}

// suite lists or runs the suite name (reader, publisher or hooks), as the
// flags say.
func suite(ctx context.Context, name string, f *suiteFlags, args []string, env *runner) int {
	switch {
	case name == "hooks" && f.agent == "":
		return env.prog.ReportUsage("hooks: --agent is required (claude, codex, gemini, copilot or qwen)")
	case name != "hooks" && name != "acp" && f.level != "core" && f.level != "hardened":
		return env.prog.ReportUsage("%s: --level must be core or hardened, not %q", name, f.level)
	case name != "hooks" && name != "acp" && f.scale < 1:
		return env.prog.ReportUsage("%s: --timeout-scale must be at least 1", name)
	case name != "publisher" && f.timeout <= 0:
		return env.prog.ReportUsage("%s: --timeout must be positive", name)
	}
	run, unit, usage := conformance.RunReader, "case", "statusconform reader [flags] -- CMD [ARGS...]"
	switch name {
	case "publisher":
		run, unit, usage = conformance.RunPublisher, "check", "statusconform publisher [flags] -- CMD [ARGS...]"
	case "hooks":
		run, unit, usage = conformance.RunHooks, "trace", "statusconform hooks --agent NAME -- CMD [ARGS...]"
	case "acp":
		run, unit, usage = conformance.RunACP, "trace", "statusconform acp [--agent NAME] -- CMD [ARGS...]"
	}
	opts := conformance.Options{Command: args, Level: f.level, TimeoutScale: f.scale, Timeout: f.timeout,
		Agent: f.agent, Skip: f.skip, List: true}
	if name == "hooks" {
		traces, err := run(ctx, opts)
		if err != nil {
			return errorf(env, "hooks: the built-in traces do not parse: %v", err)
		}
		if len(traces.Results) == 0 {
			msg := fmt.Sprintf("no traces for agent %q (claude, codex, gemini, copilot or qwen)", f.agent)
			if s := base.Suggest(f.agent, agenthook.Agents); s != "" {
				msg = fmt.Sprintf("no traces for agent %q; did you mean %s?", f.agent, s)
			}
			return env.prog.ReportUsage("hooks: %s", msg)
		}
	}
	opts.Run = f.run
	listed, err := run(ctx, opts)
	if err != nil {
		return errorf(env, "%s: the built-in cases do not parse: %v", name, err)
	}
	if f.list {
		for _, x := range listed.Results {
			if name == "hooks" || name == "acp" {
				fmt.Fprintf(env.Stdout, "%s\t%s\n", x.ID, x.Requirements[0])
			} else {
				fmt.Fprintf(env.Stdout, "%s\t%s\t%s\n", x.ID, x.Level, strings.Join(x.Rules, " "))
			}
		}
		return base.ExitOK
	}
	if len(args) == 0 {
		return env.prog.ReportUsage("%s: no command given (%s)", name, usage)
	}
	if len(listed.Results) == 0 && name != "hooks" {
		return env.prog.ReportUsage("%s: --run %s selects no %s", name, f.run.String(), unit)
	}
	expected, err := readExpectedFailures(f.expected)
	if err != nil {
		return env.prog.ReportUsage("%s: --expected-failures: %v", name, err)
	}
	opts.List, opts.ExpectedFailures = false, expected
	rep, err := run(ctx, opts)
	if err != nil {
		return runError(env, name, err)
	}
	if len(rep.Results) == 0 {
		// Only the traces are checked after the run, as they always were.
		return env.prog.ReportUsage("%s: --run %s selects no %s", name, f.run.String(), unit)
	}
	return finish(ctx, rep, f, env)
}

func finish(ctx context.Context, rep *conformance.Report, c *suiteFlags, env *runner) int {
	for _, g := range rep.UnusedExpectedFailures {
		fmt.Fprintf(env.Stderr, "statusconform: %s: %s matches no result of this run\n", c.expected, g)
	}
	if err := rep.WriteText(env.Stdout); err != nil {
		return errorf(env, "%v", err)
	}
	for _, out := range []struct {
		file  string
		write func(io.Writer) error
		what  string
	}{{c.jsonFile, rep.WriteJSON, "JSON"}, {c.junitFile, rep.WriteJUnit, "JUnit"}} {
		if out.file == "" {
			continue
		}
		f, err := os.Create(out.file)
		if err == nil {
			err = cmp.Or(out.write(f), f.Close())
		}
		if err != nil {
			return errorf(env, "writing the %s report: %v", out.what, err)
		}
	}
	if ctx.Err() != nil {
		return errorf(env, "interrupted")
	}
	if !rep.OK() {
		return base.ExitError
	}
	return base.ExitOK
}

func materialize(args []string, env *runner) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return env.prog.ReportUsage("materialize: want exactly one argument, the directory to write")
	}
	dir := args[0]
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return errorf(env, "materialize: %s is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errorf(env, "materialize: %v", err)
	}
	written, skipped, err := conformance.Materialize(dir)
	if err != nil {
		return errorf(env, "materialize: %v", err)
	}
	for _, id := range slices.Sorted(maps.Keys(skipped)) {
		fmt.Fprintf(env.Stderr, "statusconform: materialize: skipped %s: %s\n", id, skipped[id])
	}
	fmt.Fprintf(env.Stdout, "wrote %d cases to %s\n", written, dir)
	return base.ExitOK
}
