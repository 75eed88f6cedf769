package statusls

import (
	"fmt"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
)

const summary = `statusls lists what your coding agents are doing, from their status files
(gentle-shell.agent-status/v1).`

const footer = `JSON (--json, --ndjson; a stable format): one object per session with the keys
file, schema, session, agent, pid, cwd, state, title, updatedAt, waitingFor
(blocked: {"kind","tool","detail","since"}), ended (idle: {"reason","detail",
"at"}), fresh, age (seconds), alive (true, false or null), verdict (fresh,
stale or invalid), reason and error (for invalid files, listed with --all);
unknown values are null. --json FIELDS prints only those keys: --json
session,state,title.

Table: the WHY column says why a session waits or how its turn ended
("Bash: rm -rf build", "question: Which database?", "cancelled", "rate
limited"); it is left out when no session says, and is the first column
to go when the terminal is narrow.

States: working, blocked and idle. A state outside them, which a newer
publisher may write (SPEC.md S2), is asked for as other:NAME:
--state other:reviewing. Anything else is a usage error.

Environment: STATUS_DIR, GENTLE_PI_CONFIG_HOME and HOME choose the status
directory; NO_COLOR (set and not empty) turns colour off, CLICOLOR_FORCE or
FORCE_COLOR (set and not "0") turns it on off a terminal; NO_COLOR wins,
--color wins over all of them. COLUMNS sets the table's width.

Other machines: --host H lists the sessions of host H (with --local, and
this machine's), through the system's ssh (BatchMode, a connect timeout,
shared connections), with statusls run there; see docs/statusls.md. With --host, "host" comes first in each
JSON object (null for this machine), and a host that failed is one object
with "verdict":"host-error", its kind in "reason", "error" and "hint".

Exit status: 0 success (also with no sessions), 1 error, 2 usage error; wait: 3 timeout,
4 the session went away; --host: 5 some hosts failed (one line each on stderr),
the others listed.`

// program is the statusls command line: the listing is the default
// command, the others are subcommands. A flag is one line in its Setup;
// see package base for how to add either.
func program(env *cmdEnv, jqArgs *[]jqrun.Var, fullArgs []string) *base.Program {
	p := &base.Program{
		Name:    "statusls",
		Summary: summary,
		Footer:  footer,
		Env:     &base.Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv},
	}
	env.prog = p
	p.Default = &base.Command{
		Usage: "[flags]                  list the fresh sessions",
		Examples: `# tmux: in ~/.tmux.conf (see examples/tmux)
set -ag status-right ' #(statusls --summary)'

# bash prompt: show how many agents wait for you
PS1='$(n=$(statusls --count --state blocked); [ "$n" -gt 0 ] && echo "[$n blocked] ")'"$PS1"

# sessions working under the current project, as JSON, three keys each
statusls --json session,state,title --cwd . --state working

# every session with its full id, to copy into 'statusls wait --session'
statusls --wide

# titles of blocked sessions
statusls --state blocked --jq '.[].title // empty'

# the published jq one-liner's filter, run safely over each file
statusls -r --jq-files 'select(.state == "blocked") | .task.title // empty'`,
		Setup: func(fs *base.FlagSet) base.Runner {
			o := &listOptions{}
			o.register(fs, env)
			// --json FIELDS: the next argument is the field list unless
			// it is a flag or a subcommand.
			fs.Lookup("json").Optional = func(next string) bool {
				return next != "" && next[0] != '-' && p.Lookup(next) == nil && next != "help" && next != "completion"
			}
			return noArgs(env, "", func() int {
				o.jqArgs = *jqArgs
				o.args = fullArgs
				if code := o.validate(env); code >= 0 {
					return code
				}
				return list(o, env)
			})
		},
	}
	p.Commands = []*base.Command{
		{
			Name:        "watch",
			Summary:     "follow the changes: a live table, or one line per event",
			Usage:       "watch [flags]",
			Description: watchDescription,
			Examples: `# a live table of the sessions ('q' or Ctrl-C quits)
statusls watch

# for editors and scripts: one JSON object per change
statusls watch --json

# a desktop notification when an agent has waited for you for 30 s, saying why
statusls watch --on blocked --after 30s --exec 'notify-send "$STATUS_AGENT is waiting" "$STATUS_WHY"'

# ... and when a turn of at least 2 minutes ends, at most once a minute per session
statusls watch --on idle --after-working 2m --cooldown 1m --exec 'notify-send "$STATUS_AGENT: $STATUS_WHY" "$STATUS_TITLE"'`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &watchOptions{}
				o.register(fs, env)
				return noArgs(env, "watch: ", func() int { return watchCmd(o, env) })
			},
		},
		{
			Name:        "wait",
			Summary:     "wait until a session is in a state, or gone",
			Usage:       "wait (--session ID | --any) (--state S[,S] | --gone) [flags]",
			Description: waitDescription,
			Examples: `# in a script: go on when session $ID has finished its turn (exit 4 if it ends first)
statusls wait --session "$ID" --state idle --timeout 30m

# wait until an agent working under this project needs you, and say which
statusls wait --any --state blocked --cwd .`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &waitOptions{}
				o.register(fs, env)
				return noArgs(env, "wait: ", func() int { return waitCmd(o, env) })
			},
		},
		{
			Name:        "doctor",
			Summary:     "explain the setup: which directory, why, what is in it",
			Usage:       "doctor [--dir DIR | --config-home DIR | --host H[,H]] [--json]",
			Description: doctorDescription,
			Examples: `statusls doctor
statusls doctor --dir /tmp/mystatus --json`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &doctorOptions{}
				o.common.register(fs)
				fs.Bool(&o.json, "json", false, "print the findings as one JSON object")
				o.hostFlags.register(fs, env, "check these hosts instead (repeatable)", true, false)
				return noArgs(env, "doctor: ", func() int {
					hosts, cfg, code := o.hostFlags.targets(env)
					switch {
					case code >= 0:
						return code
					case cfg != nil:
						return doctorHosts(hosts, cfg, o.json, env)
					}
					return doctor(o, env)
				})
			},
		},
		{
			Name:        "prune",
			Summary:     "remove files of sessions whose publisher is gone",
			Usage:       "prune [--dry-run] [--older-than D] [--dir DIR | --config-home DIR]",
			Description: pruneDescription,
			Examples: `statusls prune --dry-run
statusls prune`,
			Setup: func(fs *base.FlagSet) base.Runner {
				o := &pruneOptions{}
				o.register(fs)
				return noArgs(env, "prune: ", func() int { return prune(o, env) })
			},
		},
		{
			Name:        "demo",
			Summary:     "publish a few sessions into a temporary directory and list them",
			Usage:       "demo",
			Description: demoDescription,
			Examples:    `statusls demo`,
			Setup: func(fs *base.FlagSet) base.Runner {
				return noArgs(env, "demo: ", func() int { return demo(env) })
			},
		},
	}
	p.Commands = append(p.Commands, metricsCommand(env)) // metrics.go
	return p
}

// noArgs runs a command that takes no arguments besides its flags; what
// prefixes its usage error.
func noArgs(env *cmdEnv, what string, run func() int) base.Runner {
	return func(args []string) int {
		if len(args) > 0 {
			return usageError(env, "%sunexpected argument %q", what, args[0])
		}
		return run()
	}
}

// common are the flags that say where and when.
type common struct {
	dir, configHome string
	now             string
}

func (c *common) register(fs *base.FlagSet) {
	fs.Group("Where")
	fs.String(&c.dir, "dir", "", "DIR", "the status directory itself")
	fs.String(&c.configHome, "config-home", "", "DIR", "the config home (the status directory is DIR/agent-status)\nWithout these: $STATUS_DIR, else $GENTLE_PI_CONFIG_HOME/agent-status,\nelse ~/.pi/gentle-ai/agent-status.")
	fs.String(&c.now, "now", "", "TIME", "judge freshness at TIME (RFC 3339) instead of the clock")
}

// stateFlag declares --state (or --on) with completion of the states.
func stateFlag(fs *base.FlagSet, p *string, name, usage string) {
	fs.String(p, name, "", "S[,S]", usage).Complete = func() []string { return base.States }
}

// selection is the flags that choose sessions, the same for statusls and
// statusls watch: --all, --state, --agent and --cwd.
type selection struct {
	all                 bool
	states, agents, cwd string
}

// register adds the selection flags; allUsage and stateUsage say what
// --all and --state mean to the command.
func (s *selection) register(fs *base.FlagSet, allUsage, stateUsage string) {
	fs.Bool(&s.all, "all", false, allUsage)
	stateFlag(fs, &s.states, "state", stateUsage)
	fs.String(&s.agents, "agent", "", "A[,A]", "only sessions of these agents")
	fs.String(&s.cwd, "cwd", "", "PREFIX", "only sessions whose cwd is PREFIX or below (~ is expanded)")
}

// filter is the render.Filter the flags ask for, and -1; or, for a bad
// value, the exit status of the usage error it printed.
func (s *selection) filter(env *cmdEnv) (render.Filter, int) {
	states, err := parseStateList("state", s.states)
	if err != nil {
		return render.Filter{}, usageError(env, "%v", err)
	}
	f := render.Filter{All: s.all, States: states, Agents: splitList(s.agents)}
	if f.Cwd, err = expandPath(s.cwd, env); err != nil {
		return render.Filter{}, usageError(env, "--cwd: %v", err)
	}
	return f, -1
}

// parseStateList parses a --state or --on value; "" is no selection.
func parseStateList(flag, s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	states, err := base.ParseStates(s)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return states, nil
}

// sessionIDs lists the ids of the sessions (fresh or stale) in the status
// directory that flags (or the environment) name, for completion.
func sessionIDs(c *common, env *cmdEnv) func() []string {
	return func() []string {
		loc, err := location.ForReader(c.dir, c.configHome, env.Getenv)
		if err != nil {
			return nil
		}
		l, err := reader.List(loc.Dir, reader.Options{Clock: atClock(env.Clock.Now())})
		if err != nil {
			return nil
		}
		var ids []string
		for _, e := range render.Select(l.Entries, &render.Filter{All: true}) {
			ids = append(ids, e.Status.Session)
		}
		return ids
	}
}

// colorFlag declares --color.
func colorFlag(fs *base.FlagSet, p *string, usage string) {
	fs.String(p, "color", "auto", "WHEN", usage).Complete = func() []string { return []string{"auto", "always", "never"} }
}

func checkColor(env *cmdEnv, when string) int {
	switch when {
	case "auto", "always", "never":
		return -1
	}
	msg := fmt.Sprintf("--color: %q is not auto, always or never", when)
	if s := base.Suggest(when, []string{"auto", "always", "never"}); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return usageError(env, "%s", msg)
}
