// Package statusconform is the statusconform command: the conformance suite
// of the gentle-shell.agent-status/v1 protocol, run against a reader or a
// publisher in any language.
package statusconform

import (
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
			{
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
				Setup: func(fs *base.FlagSet) base.Runner {
					f := &readerFlags{}
					f.register(fs)
					fs.StopAtArg = true
					return func(args []string) int { return reader(ctx, f, args, env) }
				},
			},
			{
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
				Setup: func(fs *base.FlagSet) base.Runner {
					f := &publisherFlags{}
					f.register(fs)
					fs.StopAtArg = true
					return func(args []string) int { return publisher(ctx, f, args, env) }
				},
			},
			hooksCommand(ctx, env),
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

// readerFlags are the flags of reader, one per line.
type readerFlags struct {
	common
	timeout time.Duration
}

func (f *readerFlags) register(fs *base.FlagSet) {
	fs.Duration(&f.timeout, "timeout", 5*time.Second, "D", "per case (default 5s; at least 10 times what a first, timed\ncase took the reader)")
	f.common.register(fs)
}

// publisherFlags are the flags of publisher, one per line.
type publisherFlags struct {
	common
}

func (f *publisherFlags) register(fs *base.FlagSet) {
	f.common.register(fs)
}

// Run runs statusconform with args (without the program name). Of env it
// uses the standard output and error; [base.Env.Fill] gives the rest.
func Run(ctx context.Context, args []string, env base.Env) int {
	env.Fill()
	return program(ctx, &runner{Env: env}).Run(args)
}

// usageError reports a usage error of the running command, with a hint at
// its help.
func usageError(env *runner, format string, args ...any) int {
	return env.prog.ReportUsage(format, args...)
}

func errorf(env *runner, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statusconform: "+format+"\n", args...)
	return base.ExitError
}

// globs is a repeatable --run flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(s string) error { *g = append(*g, s); return nil }

type common struct {
	run       globs
	skip      globs
	list      bool
	jsonFile  string
	junitFile string
	expected  string
	level     string
	scale     float64
}

// register declares the flags both suites take, one per line.
func (c *common) register(fs *base.FlagSet) {
	fs.String(&c.level, "level", "hardened", "LEVEL", "core: what the published page requires (for a publisher, with\nthe config home already present); hardened (default): also this\ntoolkit's rules").Complete = func() []string { return []string{"core", "hardened"} }
	scaleFlag(fs, &c.scale)
	fs.Var(&c.run, "run", "GLOB", "only the ids GLOB matches (* matches across /); repeatable")
	fs.Var(&c.skip, "skip", "GLOB", "do not run the ids GLOB matches (reported as SKIP); repeatable")
	fs.String(&c.expected, "expected-failures", "", "FILE", "ids (or globs) expected to fail, one a line, # comments: their\nfailures (XFAIL) do not fail the run, but their passes (XPASS) do")
	fs.Bool(&c.list, "list", false, "list the ids, their level and rules, then exit")
	fs.String(&c.jsonFile, "json", "", "FILE", "also write the full report as JSON to FILE")
	fs.String(&c.junitFile, "junit", "", "FILE", "also write the report as JUnit XML to FILE")
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

// check validates the common flags.
func (c *common) check(cmd string, env *runner) (int, bool) {
	if c.level != "core" && c.level != "hardened" {
		return usageError(env, "%s: --level must be core or hardened, not %q", cmd, c.level), false
	}
	if c.scale < 1 {
		return usageError(env, "%s: --timeout-scale must be at least 1", cmd), false
	}
	return 0, true
}

// options are the options the common flags give.
func (c *common) options(args []string) conformance.Options {
	return conformance.Options{Command: args, Level: c.level, TimeoutScale: c.scale, Run: c.run, Skip: c.skip}
}

// expectedFailures reads the --expected-failures file, if any.
func (c *common) expectedFailures() ([]string, error) {
	if c.expected == "" {
		return nil, nil
	}
	f, err := os.Open(c.expected)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sel, err := conformance.ReadExpectedFailures(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.expected, err)
	}
	return sel, nil
}

// cannotRun reports a command that cannot be run at all in one line.
func cannotRun(env *runner, cmd string, err error) (int, bool) {
	if errors.Is(err, conformance.ErrCannotRun) {
		fmt.Fprintf(env.Stderr, "statusconform: %s: %v\n", cmd, err)
		return base.ExitUsage, true
	}
	return 0, false
}

func reader(ctx context.Context, f *readerFlags, args []string, env *runner) int {
	if code, ok := f.check("reader", env); !ok {
		return code
	}
	if f.timeout <= 0 {
		return usageError(env, "reader: --timeout must be positive")
	}
	opts := f.options(args)
	opts.Timeout = f.timeout
	return suite(ctx, "reader", "case", conformance.RunReader, &f.common, opts, env)
}

func publisher(ctx context.Context, f *publisherFlags, args []string, env *runner) int {
	if code, ok := f.check("publisher", env); !ok {
		return code
	}
	return suite(ctx, "publisher", "check", conformance.RunPublisher, &f.common, f.options(args), env)
}

// suite lists or runs the reader or publisher suite, as the flags say.
func suite(ctx context.Context, name, unit string, run func(context.Context, conformance.Options) (*conformance.Report, error), c *common, opts conformance.Options, env *runner) int {
	opts.List = true
	listed, err := run(ctx, opts)
	if err != nil {
		return errorf(env, "%s: the built-in cases do not parse: %v", name, err)
	}
	if c.list {
		for _, x := range listed.Results {
			fmt.Fprintf(env.Stdout, "%s\t%s\t%s\n", x.ID, x.Level, strings.Join(x.Rules, " "))
		}
		return base.ExitOK
	}
	if len(opts.Command) == 0 {
		return usageError(env, "%s: no command given (statusconform %s [flags] -- CMD [ARGS...])", name, name)
	}
	if len(listed.Results) == 0 {
		return usageError(env, "%s: --run %s selects no %s", name, c.run.String(), unit)
	}
	expected, err := c.expectedFailures()
	if err != nil {
		return usageError(env, "%s: --expected-failures: %v", name, err)
	}
	opts.List, opts.ExpectedFailures = false, expected
	rep, err := run(ctx, opts)
	if code, ok := cannotRun(env, name, err); ok {
		return code
	}
	if err != nil {
		return errorf(env, "%s: %v", name, err)
	}
	return finish(ctx, rep, c, env)
}

func finish(ctx context.Context, rep *conformance.Report, c *common, env *runner) int {
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
			err = out.write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
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
		return usageError(env, "materialize: want exactly one argument, the directory to write")
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
