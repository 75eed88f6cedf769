// Package statusconform is the statusconform command: the conformance suite
// of the gentle-shell.agent-status/v1 protocol, run against a reader or a
// publisher in any language.
package statusconform

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// Exit codes.
const (
	ExitOK     = 0 // every case passed (or was skipped)
	ExitFailed = 1 // a case failed, or the suite could not run
	ExitUsage  = 2
)

// Env is what the command gets from its process.
type Env struct {
	Stdout, Stderr io.Writer
}

// Main runs the command with the process's own streams. The first SIGINT
// or SIGTERM cancels the run; a second one, with the default handling
// restored, ends the program at once.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	defer stop()
	return Run(ctx, os.Args[1:], Env{Stdout: os.Stdout, Stderr: os.Stderr})
}

const summary = `statusconform checks readers and publishers of gentle-shell.agent-status/v1
against SPEC.md.`

const footer = `Exit status: 0 when nothing failed, 1 when something failed, 2 for usage.`

// program is the statusconform command line. A flag is one line in its
// register method; see package base for how to add a flag or a command.
func program(ctx context.Context, env Env) *base.Program {
	return &base.Program{
		Name:    "statusconform",
		Summary: summary,
		Footer:  footer,
		Env:     &base.Env{Stdout: env.Stdout, Stderr: env.Stderr},
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
of SPEC.md §11.`,
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
}

// readerFlags are the flags of reader, one per line.
type readerFlags struct {
	common
	level   string
	timeout time.Duration
}

func (f *readerFlags) register(fs *base.FlagSet) {
	fs.String(&f.level, "level", string(conformance.Hardened), "LEVEL", "which cases: core, or hardened (the default, which includes core)")
	fs.Duration(&f.timeout, "timeout", 5*time.Second, "D", "per case (default 5s)")
	f.common.register(fs)
}

// publisherFlags are the flags of publisher, one per line.
type publisherFlags struct {
	common
	scale float64
}

func (f *publisherFlags) register(fs *base.FlagSet) {
	fs.Func("timeout-scale", "N", "multiply every deadline by N (default 1)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		f.scale = v
		return nil
	})
	f.scale = 1
	f.common.register(fs)
}

// Run runs statusconform with args (without the program name).
func Run(ctx context.Context, args []string, env Env) int {
	return program(ctx, env).Run(args)
}

func usageError(env Env, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statusconform: "+format+"\n", args...)
	fmt.Fprintln(env.Stderr, "statusconform: hint: run 'statusconform --help' for usage")
	return ExitUsage
}

func errorf(env Env, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "statusconform: "+format+"\n", args...)
	return ExitFailed
}

// globs is a repeatable --run flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(s string) error { *g = append(*g, s); return nil }

type common struct {
	run      globs
	list     bool
	jsonFile string
}

func (c *common) register(fs *base.FlagSet) {
	fs.Var(&c.run, "run", "GLOB", "only the ids GLOB matches (* matches across /); repeatable")
	fs.Bool(&c.list, "list", false, "list the ids and what they check, then exit")
	fs.String(&c.jsonFile, "json", "", "FILE", "also write the full report as JSON to FILE")
}

func reader(ctx context.Context, f *readerFlags, args []string, env Env) int {
	c, level, timeout := &f.common, &f.level, &f.timeout
	lv := conformance.Level(*level)
	if lv != conformance.Core && lv != conformance.Hardened {
		return usageError(env, "reader: --level must be core or hardened, not %q", *level)
	}
	if *timeout <= 0 {
		return usageError(env, "reader: --timeout must be positive")
	}
	cases, err := conformance.Cases()
	if err != nil {
		return errorf(env, "reader: the built-in cases do not parse: %v", err)
	}
	sel := conformance.Selector(c.run)
	if c.list {
		for _, x := range conformance.SelectCases(cases, lv, sel) {
			fmt.Fprintf(env.Stdout, "%s\t%s\t%s\n", x.ID, x.Level, strings.Join(x.Rules, " "))
		}
		return ExitOK
	}
	if len(args) == 0 {
		return usageError(env, "reader: no command given (statusconform reader [flags] -- CMD [ARGS...])")
	}
	if len(conformance.SelectCases(cases, lv, sel)) == 0 {
		return usageError(env, "reader: --run %s selects no case", c.run.String())
	}
	rep, err := conformance.RunReader(ctx, cases, conformance.ReaderOptions{
		Level: lv, Timeout: *timeout, Select: sel, Command: args,
	})
	if err != nil {
		return errorf(env, "reader: %v", err)
	}
	return finish(ctx, rep, c.jsonFile, env)
}

func publisher(ctx context.Context, f *publisherFlags, args []string, env Env) int {
	c, scale := &f.common, &f.scale
	if *scale < 1 {
		return usageError(env, "publisher: --timeout-scale must be at least 1")
	}
	sel := conformance.Selector(c.run)
	checks := conformance.SelectChecks(sel)
	if c.list {
		for _, x := range checks {
			fmt.Fprintf(env.Stdout, "%s\t%s\n", x.ID, strings.Join(x.Rules, " "))
		}
		return ExitOK
	}
	if len(args) == 0 {
		return usageError(env, "publisher: no command given (statusconform publisher [flags] -- CMD [ARGS...])")
	}
	if len(checks) == 0 {
		return usageError(env, "publisher: --run %s selects no check", c.run.String())
	}
	rep, err := conformance.RunPublisher(ctx, conformance.PublisherOptions{
		Command: args, TimeoutScale: *scale, Select: sel,
	})
	if err != nil {
		return errorf(env, "publisher: %v", err)
	}
	return finish(ctx, rep, c.jsonFile, env)
}

func finish(ctx context.Context, rep *conformance.Report, jsonFile string, env Env) int {
	if err := rep.WriteText(env.Stdout); err != nil {
		return errorf(env, "%v", err)
	}
	if jsonFile != "" {
		f, err := os.Create(jsonFile)
		if err == nil {
			err = rep.WriteJSON(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return errorf(env, "writing the JSON report: %v", err)
		}
	}
	if ctx.Err() != nil {
		return errorf(env, "interrupted")
	}
	if !rep.OK() {
		return ExitFailed
	}
	return ExitOK
}

func materialize(args []string, env Env) int {
	if len(args) != 1 {
		return usageError(env, "materialize: want exactly one argument, the directory to write")
	}
	dir := args[0]
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return errorf(env, "materialize: %s is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errorf(env, "materialize: %v", err)
	}
	cases, err := conformance.Cases()
	if err != nil {
		return errorf(env, "materialize: the built-in cases do not parse: %v", err)
	}
	skipped, err := conformance.MaterializeAll(cases, dir)
	if err != nil {
		return errorf(env, "materialize: %v", err)
	}
	for _, c := range cases {
		if why, ok := skipped[c.ID]; ok {
			fmt.Fprintf(env.Stderr, "statusconform: materialize: skipped %s: %s\n", c.ID, why)
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %d cases to %s\n", len(cases)-len(skipped), dir)
	return ExitOK
}
