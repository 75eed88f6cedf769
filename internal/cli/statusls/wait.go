package statusls

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

const waitDescription = `Returns as soon as a condition holds: at once if it holds already, else when
the status directory's notifications say it does (no polling).

--state waits until the session is fresh in one of the states. A session
that is not there yet (or stale) is waited for; one that was fresh and goes
away (removed, stale, or invalid) ends the wait with exit status 4. --gone
waits until the session has no fresh record: removed, stale, or invalid; a
session that was never there is gone. With --any, wait returns when any
session is fresh in one of the states, and prints its session id (the first
in file-name order if several already are).

With --host H, statusls wait runs on host H instead, through ssh; a lost
connection is retried, and --timeout still holds; --json adds "host".

Exit status: 0 the condition holds, 1 error, 2 usage error, 3 timeout,
4 the session went away while waiting for a state.`

// waitOptions are the flags of statusls wait.
type waitOptions struct {
	session         string
	sessionSet      bool
	any, gone, json bool
	agents, cwd     string
	timeout         time.Duration
	filter          render.Filter // --state, --agent, --cwd
	stateList       string
	where           common // --dir and --config-home

	hostFlags // --host: onHost
	untilEOF  bool
}

func (o *waitOptions) register(fs *base.FlagSet, env *cmdEnv) {
	c := &o.where
	fs.Func("session", "ID", "the session to wait for (its full id: statusls --wide)", func(s string) error { o.session, o.sessionSet = s, true; return nil }).Complete = sessionIDs(c, env)
	fs.Bool(&o.any, "any", false, "with --state: any session")
	stateFlag(fs, &o.stateList, "state", "until the session is fresh in one of these states\n(other:NAME for a state newer publishers may add)")
	fs.Bool(&o.gone, "gone", false, "until the session has no fresh record")
	fs.String(&o.agents, "agent", "", "A[,A]", "with --any: only sessions of these agents")
	fs.String(&o.cwd, "cwd", "", "PREFIX", "with --any: only sessions whose cwd is PREFIX or below")
	fs.Bool(&o.json, "json", false, "print the session's object, as statusls --json does,\ninstead (with --state)")
	fs.Duration(&o.timeout, "timeout", 0, "DUR", "give up after DUR (e.g. 30s, 10m; default: never)")
	fs.String(&c.dir, "dir", "", "DIR", "the status directory itself")
	fs.String(&c.configHome, "config-home", "", "DIR", "the config home (the status directory is DIR/agent-status)")
	fs.Bool(&o.untilEOF, "until-eof", false, "give up (exit 1) when standard input ends: for a wait run\nby another program, as wait --host runs it over ssh")
	o.hostFlags.register(fs, env, "wait on host H instead, through ssh (see above)", false, false)
}

// validate checks the flags together. It returns -1 to go on.
func (o *waitOptions) validate(env *cmdEnv) int {
	var err error
	if o.filter.States, err = parseStateList("state", o.stateList); err != nil {
		return usageError(env, "%v", err)
	}
	switch {
	case o.sessionSet == o.any:
		return usageError(env, "wait needs either --session ID or --any")
	case o.sessionSet && o.session == "":
		return usageError(env, "--session: empty session id")
	case o.gone && o.stateList != "":
		return usageError(env, "--state and --gone cannot be combined")
	case !o.gone && len(o.filter.States) == 0:
		return usageError(env, "wait needs --state S[,S] or --gone")
	case o.any && o.gone:
		return usageError(env, "--any waits for a state: use --state")
	case o.gone && o.json:
		return usageError(env, "--json prints the session in its state: use it with --state")
	case !o.any && (o.agents != "" || o.cwd != ""):
		return usageError(env, "--agent and --cwd select among sessions: use them with --any")
	case o.timeout < 0:
		return usageError(env, "--timeout must not be negative")
	}
	o.filter.Agents = splitList(o.agents)
	if o.filter.Cwd, err = expandPath(o.cwd, env); err != nil {
		return usageError(env, "--cwd: %v", err)
	}
	return -1
}

func waitCmd(o *waitOptions, env *cmdEnv) int {
	if code := o.validate(env); code >= 0 {
		return code
	}
	ws := &waitState{o: o, env: env, name: statusfile.FileName(o.session)}
	if o.hostFlags.active() {
		return ws.onHost()
	}
	if _, _, code := o.hostFlags.targets(env); code >= 0 {
		return code
	}
	w, _, code := watchDir(o.where.dir, o.where.configHome, watch.Options{Clock: env.Clock, Liveness: o.json}, env)
	if code >= 0 {
		return code
	}
	defer w.Close()
	var timeout <-chan time.Time
	if o.timeout > 0 {
		t := env.Clock.NewTimer(o.timeout)
		defer t.Stop()
		timeout = t.C()
	}

	eof := stdinEOF(env, o.untilEOF)
	for {
		select {
		case <-eof:
			fmt.Fprintln(env.Stderr, "statusls: standard input ended (--until-eof)")
			return base.ExitError
		case ev, ok := <-w.Events():
			if !ok {
				fmt.Fprintln(env.Stderr, "statusls: the watcher stopped")
				return base.ExitError
			}
			if code := ws.handle(&ev); code >= 0 {
				return code
			}
		case <-timeout:
			fmt.Fprintf(env.Stderr, "statusls: timed out after %v waiting for %s\n", o.timeout, ws.what())
			return base.ExitTimeout
		}
	}
}

// waitState follows one wait.
type waitState struct {
	o      *waitOptions
	env    *cmdEnv
	name   string        // --session: its file name
	synced bool          // the snapshot is in
	cur    *reader.Entry // --session: its entry, nil when none
	seen   bool          // --session --state: it was fresh since the wait began
	first  *reader.Entry // --any: the first match of the snapshot
}

// handle takes in one event and returns the exit status once the wait is
// over, else -1.
func (s *waitState) handle(ev *watch.Event) int {
	switch ev.Kind {
	case watch.Error:
		fmt.Fprintf(s.env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(ev.Err)))
		return -1
	case watch.Synced:
		s.synced = true
		if s.o.any {
			if s.first != nil {
				return s.done(s.first)
			}
			return -1
		}
		return s.check(ev)
	}
	if s.o.any {
		switch {
		case ev.After == nil || !s.o.filter.Match(ev.After):
		case s.synced:
			return s.done(ev.After)
		case s.first == nil: // the first match of the snapshot
			s.first = ev.After
		}
		return -1
	}
	if ev.Name != s.name {
		return -1
	}
	s.cur = ev.After
	if !s.synced {
		return -1
	}
	return s.check(ev)
}

// check decides a --session wait on what is known of the session now.
func (s *waitState) check(ev *watch.Event) int {
	fresh := s.cur != nil && s.cur.Verdict == reader.Fresh
	if s.o.gone {
		if !fresh {
			return base.ExitOK
		}
		return -1
	}
	if fresh {
		s.seen = true
		if slices.Contains(s.o.filter.States, string(s.cur.Status.State)) {
			return s.done(s.cur)
		}
		return -1
	}
	if !s.seen {
		return -1 // not there yet
	}
	why := "went stale"
	switch {
	case s.cur == nil && ev.Reason != "":
		why = "was removed (" + ev.Reason + ")"
	case s.cur == nil:
		why = "was removed"
	}
	fmt.Fprintf(s.env.Stderr, "statusls: session %s %s while waiting for %s\n", quotePath(statusfile.SanitizeText(s.o.session)), why, s.what())
	return base.ExitGone
}

// done prints the session that ended the wait, as asked.
func (s *waitState) done(e *reader.Entry) int {
	var out []byte
	switch {
	case s.o.json && s.o.hostFlags.active():
		out = append(render.AppendHostJSON(nil, s.o.hosts[0], e, nil), '\n')
	case s.o.json:
		out = append(render.AppendJSON(nil, e), '\n')
	case s.o.any:
		out = []byte(statusfile.SanitizeText(e.Status.Session) + "\n")
	}
	if _, err := s.env.Stdout.Write(out); err != nil {
		fmt.Fprintf(s.env.Stderr, "statusls: %s\n", statusfile.SanitizeText(base.Message(err)))
		return base.ExitError
	}
	return base.ExitOK
}

// what says what the wait is for, in messages.
func (s *waitState) what() string {
	states := statusfile.SanitizeText(strings.Join(s.o.filter.States, ","))
	switch {
	case s.o.any:
		return "any session in state " + states
	case s.o.gone:
		return "session " + quotePath(statusfile.SanitizeText(s.o.session)) + " to be gone"
	}
	return "session " + quotePath(statusfile.SanitizeText(s.o.session)) + " in state " + states
}

// onHost is wait --host H: statusls wait runs on H, through ssh, and its
// answer ends this wait as this machine's would.
func (s *waitState) onHost() int {
	o, env := s.o, s.env
	if len(o.hosts) != 1 {
		return usageError(env, "wait --host takes exactly one host")
	}
	if o.cwd != "" && !strings.HasPrefix(o.cwd, "/") {
		return usageError(env, "--cwd with --host needs an absolute path (of the host)")
	}
	hosts, cfg, code := o.hostFlags.targets(env)
	if code >= 0 {
		return code
	}
	host := hosts[0]
	args := []string{"--session", o.session}
	if o.any {
		args = []string{"--any"}
	}
	if o.gone {
		args = append(args, "--gone")
	} else {
		args = append(args, "--state", strings.Join(o.filter.States, ","))
	}
	if o.agents != "" {
		args = append(args, "--agent", o.agents)
	}
	if o.cwd != "" {
		args = append(args, "--cwd", o.cwd)
	}
	if o.json {
		args = append(args, "--json")
	}
	shown := statusfile.SanitizeText(host)
	res := remote.Wait(context.Background(), cfg, host, args, o.timeout, func(he *remote.HostError) {
		fmt.Fprintf(env.Stderr, "statusls: host %s offline: %s; retrying\n", shown, he.Msg)
	})
	if res.Err != nil {
		fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", statusfile.SanitizeText(res.Err.Host), statusfile.SanitizeText(res.Err.Msg))
		if res.Err.Hint != "" {
			fmt.Fprintf(env.Stderr, "statusls: hint: %s\n", statusfile.SanitizeText(res.Err.Hint))
		}
		return base.ExitError
	}
	switch res.Code {
	case base.ExitOK:
		if len(res.Output) == 0 {
			return base.ExitOK // it printed nothing: --session without --json
		}
		// The session as the host printed it: its object, or its id.
		e := &reader.Entry{Status: statusfile.Status{Session: string(res.Output)}}
		if o.json {
			var err error
			if e, err = remote.DecodeEntry(res.Output); err != nil {
				fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", shown, err)
				return base.ExitError
			}
		}
		return s.done(e)
	case base.ExitTimeout:
		fmt.Fprintf(env.Stderr, "statusls: timed out after %v waiting for %s on host %s\n", o.timeout, s.what(), shown)
	case base.ExitGone:
		fmt.Fprintf(env.Stderr, "statusls: session %s went away on host %s while waiting for %s\n", quotePath(statusfile.SanitizeText(o.session)), shown, s.what())
	default:
		fmt.Fprintf(env.Stderr, "statusls: host %s: statusls wait ended with exit status %d\n", shown, res.Code)
		return base.ExitError
	}
	return res.Code
}
