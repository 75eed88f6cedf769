package statusconform

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
)

// hooksUsage is the part of the usage about `statusconform hooks`.
const hooksUsage = `hooks runs the hook traces of one agent (claude, codex or gemini): for each
trace, in a fresh config home, CMD is started once per recorded hook payload
(not through a shell), the payload on its stdin, "{home}" in ARGS replaced
by the config home (also $GENTLE_PI_CONFIG_HOME and
$STATUSCONFORM_CONFIG_HOME); after each step the record must have the state
and title the trace expects, be gone, or be untouched. CMD must exit 0.

  --agent NAME            claude, codex or gemini (required)
  --timeout D             per step (default 5s)

  statusconform hooks --agent claude -- statuspub claude-hook --config-home {home}
`

func hooks(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("hooks", flag.ContinueOnError)
	var c common
	c.register(fs)
	agent := fs.String("agent", "", "claude, codex or gemini")
	timeout := fs.Duration("timeout", 5*time.Second, "per step")
	if code, ok := parseFlags(fs, args, env); !ok {
		return code
	}
	if *agent == "" {
		return usageError(env, "hooks: --agent is required (claude, codex or gemini)")
	}
	if *timeout <= 0 {
		return usageError(env, "hooks: --timeout must be positive")
	}
	traces, err := conformance.HookTraces(*agent)
	if err != nil {
		return errorf(env, "hooks: the built-in traces do not parse: %v", err)
	}
	if len(traces) == 0 {
		return usageError(env, "hooks: no traces for agent %q (claude, codex or gemini)", *agent)
	}
	sel := conformance.Selector(c.run)
	if c.list {
		for _, tr := range traces {
			if sel.Match("hooks/" + tr.ID) {
				fmt.Fprintf(env.Stdout, "hooks/%s\t%s\n", tr.ID, tr.Trap)
			}
		}
		return ExitOK
	}
	if fs.NArg() == 0 {
		return usageError(env, "hooks: no command given (statusconform hooks --agent NAME -- CMD [ARGS...])")
	}
	rep, err := conformance.RunHookTraces(ctx, traces, conformance.HookOptions{
		Command: fs.Args(), Timeout: *timeout, Run: sel,
	})
	if err != nil {
		return errorf(env, "hooks: %v", err)
	}
	if len(rep.Results) == 0 {
		return usageError(env, "hooks: --run %s selects no trace", strings.Join(c.run, ","))
	}
	return finish(ctx, rep, c.jsonFile, env)
}
