package statusls

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// waitHost is statusls wait --host H: statusls wait runs on H, through ssh.
func waitHost(o *waitOptions, env *Env) int {
	if len(o.hosts) != 1 {
		return usageError(env, "wait --host takes exactly one host")
	}
	if o.cwd != "" && !strings.HasPrefix(o.cwd, "/") {
		return usageError(env, "--cwd with --host needs an absolute path (of the host)")
	}
	hosts, cfg, err := o.hostFlags.targets(env)
	if err != nil {
		return usageError(env, "%s", err)
	}
	host := hosts[0]
	var args []string
	if o.any {
		args = append(args, "--any")
	} else {
		args = append(args, "--session", o.session)
	}
	if o.gone {
		args = append(args, "--gone")
	} else {
		args = append(args, "--state", strings.Join(o.states, ","))
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
	ws := &waitState{o: o}
	switch res.Code {
	case base.ExitOK:
		out := res.Output
		if o.json {
			e, err := remote.DecodeEntry(out)
			if err != nil {
				fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", shown, strings.TrimPrefix(err.Error(), "remote: "))
				return base.ExitError
			}
			out = render.AppendHostJSON(nil, host, e, nil)
		}
		if len(out) > 0 {
			if _, err := env.Stdout.Write(append(out, '\n')); err != nil {
				fmt.Fprintf(env.Stderr, "statusls: %s\n", statusfile.SanitizeText(err.Error()))
				return base.ExitError
			}
		}
	case base.ExitTimeout:
		fmt.Fprintf(env.Stderr, "statusls: timed out after %v waiting for %s on host %s\n", o.timeout, ws.what(), shown)
	case base.ExitGone:
		fmt.Fprintf(env.Stderr, "statusls: session %s went away on host %s while waiting for %s\n", quotePath(statusfile.SanitizeText(o.session)), shown, ws.what())
	default:
		fmt.Fprintf(env.Stderr, "statusls: host %s: statusls wait ended with exit status %d\n", shown, res.Code)
		return base.ExitError
	}
	return res.Code
}
