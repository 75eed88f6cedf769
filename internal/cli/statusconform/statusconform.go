// Package statusconform is the statusconform command: the conformance suite
// of the gentle-shell.agent-status/v1 protocol, run against a reader or a
// publisher in any language.
package statusconform

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
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

// Main runs the command with the process's own streams; ctx is cancelled
// on SIGINT or SIGTERM.
func Main(ctx context.Context) int {
	return Run(ctx, os.Args[1:], Env{Stdout: os.Stdout, Stderr: os.Stderr})
}

const usage = `statusconform checks readers and publishers of gentle-shell.agent-status/v1
against SPEC.md.

Usage:
  statusconform reader [flags] -- CMD [ARGS...]
  statusconform publisher [flags] -- CMD [ARGS...]
  statusconform hooks --agent NAME [flags] -- CMD [ARGS...]
  statusconform materialize DIR

reader runs CMD once per case (not through a shell) in a fresh directory,
with {dir} and {now} in ARGS replaced, and STATUS_DIR and STATUSCONFORM_NOW
(RFC 3339, UTC, milliseconds) in its environment. CMD prints one JSON object
per line for each live session, with keys session, agent, state, pid, cwd
and title (the displayed title or null), and exits 0.

  --level core|hardened   which cases (default hardened, which includes core)
  --timeout D             per case (default 5s)

publisher starts CMD once per scenario (a scenario decides one or more
checks), not through a shell, with {home}, {session} and {agent} in ARGS
replaced and STATUSCONFORM_CONFIG_HOME, STATUSCONFORM_SESSION and
STATUSCONFORM_AGENT in its environment, and drives it with the line protocol
of SPEC.md §11.

  --timeout-scale N       multiply every deadline by N (default 1)

Both:
  --run GLOB              only the ids GLOB matches (* matches across /); repeatable
  --list                  list the ids and what they check, then exit
  --json FILE             also write the full report as JSON to FILE

` + hooksUsage + `
materialize writes every reader case as DIR/<id>/ (a status directory and
expected.json), for implementers who would rather run their own tests.

Exit status: 0 when nothing failed, 1 when something failed, 2 for usage.

Examples:
  statusconform reader -- statusls --ndjson --now {now}
  statusconform reader --level core -- sh conformance/adapters/jq/reader.sh
  statusconform publisher -- statuspub serve --config-home {home} --session {session} --agent {agent}
  statusconform publisher -- python3 conformance/adapters/python/status_publisher.py
`

// Run runs statusconform with args (without the program name).
func Run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "reader":
		return reader(ctx, args[1:], env)
	case "publisher":
		return publisher(ctx, args[1:], env)
	case "materialize":
		return materialize(args[1:], env)
	case "hooks":
		return hooks(ctx, args[1:], env)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	return usageError(env, "unknown command %q", args[0])
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

func (c *common) register(fs *flag.FlagSet) {
	fs.Var(&c.run, "run", "glob of ids")
	fs.BoolVar(&c.list, "list", false, "list ids")
	fs.StringVar(&c.jsonFile, "json", "", "JSON report file")
}

func parseFlags(fs *flag.FlagSet, args []string, env Env) (int, bool) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return ExitOK, false
		}
		return usageError(env, "%s: %v", fs.Name(), err), false
	}
	return 0, true
}

func reader(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("reader", flag.ContinueOnError)
	var c common
	c.register(fs)
	level := fs.String("level", string(conformance.Hardened), "core or hardened")
	timeout := fs.Duration("timeout", 5*time.Second, "per case")
	if code, ok := parseFlags(fs, args, env); !ok {
		return code
	}
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
	if fs.NArg() == 0 {
		return usageError(env, "reader: no command given (statusconform reader [flags] -- CMD [ARGS...])")
	}
	if len(conformance.SelectCases(cases, lv, sel)) == 0 {
		return usageError(env, "reader: --run %s selects no case", c.run.String())
	}
	rep, err := conformance.RunReader(ctx, cases, conformance.ReaderOptions{
		Level: lv, Timeout: *timeout, Select: sel, Command: fs.Args(),
	})
	if err != nil {
		return errorf(env, "reader: %v", err)
	}
	return finish(ctx, rep, c.jsonFile, env)
}

func publisher(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("publisher", flag.ContinueOnError)
	var c common
	c.register(fs)
	scale := fs.Float64("timeout-scale", 1, "multiply deadlines")
	if code, ok := parseFlags(fs, args, env); !ok {
		return code
	}
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
	if fs.NArg() == 0 {
		return usageError(env, "publisher: no command given (statusconform publisher [flags] -- CMD [ARGS...])")
	}
	if len(checks) == 0 {
		return usageError(env, "publisher: --run %s selects no check", c.run.String())
	}
	rep, err := conformance.RunPublisher(ctx, conformance.PublisherOptions{
		Command: fs.Args(), TimeoutScale: *scale, Select: sel,
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
