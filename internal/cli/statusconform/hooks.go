package statusconform

import (
	"context"
	"fmt"
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// hooksCommand is `statusconform hooks`.
func hooksCommand(ctx context.Context, env *runner) *base.Command {
	return &base.Command{
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
		Setup: func(fs *base.FlagSet) base.Runner {
			f := &hooksFlags{}
			f.register(fs)
			fs.StopAtArg = true
			return func(args []string) int { return hooks(ctx, f, args, env) }
		},
	}
}

// hooksFlags are the flags of hooks, one per line.
type hooksFlags struct {
	common
	agent   string
	timeout time.Duration
}

func (f *hooksFlags) register(fs *base.FlagSet) {
	fs.String(&f.agent, "agent", "", "NAME", "claude, codex, gemini, copilot or qwen (required)").Complete = func() []string { return agenthook.Agents }
	fs.Duration(&f.timeout, "timeout", 5*time.Second, "D", "per step (default 5s)")
	// The traces have no levels and no calibration: of the common flags,
	// only those that select and report.
	c := &f.common
	fs.Var(&c.run, "run", "GLOB", "only the ids GLOB matches (* matches across /); repeatable")
	fs.String(&c.expected, "expected-failures", "", "FILE", "ids (or globs) expected to fail, one a line, # comments: their\nfailures (XFAIL) do not fail the run, but their passes (XPASS) do")
	fs.Bool(&c.list, "list", false, "list the ids and their traps, then exit")
	fs.String(&c.jsonFile, "json", "", "FILE", "also write the full report as JSON to FILE")
	fs.String(&c.junitFile, "junit", "", "FILE", "also write the report as JUnit XML to FILE")
}

func hooks(ctx context.Context, f *hooksFlags, args []string, env *runner) int {
	c := &f.common
	if f.agent == "" {
		return usageError(env, "hooks: --agent is required (claude, codex, gemini, copilot or qwen)")
	}
	if f.timeout <= 0 {
		return usageError(env, "hooks: --timeout must be positive")
	}
	opts := conformance.Options{Command: args, Timeout: f.timeout, Agent: f.agent, List: true}
	traces, err := conformance.RunHooks(ctx, opts)
	if err != nil {
		return errorf(env, "hooks: the built-in traces do not parse: %v", err)
	}
	if len(traces.Results) == 0 {
		msg := fmt.Sprintf("no traces for agent %q (claude, codex, gemini, copilot or qwen)", f.agent)
		if s := base.Suggest(f.agent, agenthook.Agents); s != "" {
			msg = fmt.Sprintf("no traces for agent %q; did you mean %s?", f.agent, s)
		}
		return usageError(env, "hooks: %s", msg)
	}
	if c.list {
		opts.Run = c.run
		listed, _ := conformance.RunHooks(ctx, opts)
		for _, tr := range listed.Results {
			fmt.Fprintf(env.Stdout, "%s\t%s\n", tr.ID, tr.Requirements[0])
		}
		return base.ExitOK
	}
	if len(args) == 0 {
		return usageError(env, "hooks: no command given (statusconform hooks --agent NAME -- CMD [ARGS...])")
	}
	expected, err := c.expectedFailures()
	if err != nil {
		return usageError(env, "hooks: --expected-failures: %v", err)
	}
	opts.List, opts.Run, opts.ExpectedFailures = false, c.run, expected
	rep, err := conformance.RunHooks(ctx, opts)
	if err != nil {
		return errorf(env, "hooks: %v", err)
	}
	if len(rep.Results) == 0 {
		return usageError(env, "hooks: --run %s selects no trace", c.run.String())
	}
	return finish(ctx, rep, c, env)
}
