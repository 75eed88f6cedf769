package statusls

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// doctorHosts is statusls doctor --host: what fails for each host, and
// the fix.
func doctorHosts(hf *hostFlags, env *Env) int {
	hosts, cfg, err := hf.targets(env)
	if err != nil {
		return usageError(env, "%s", err)
	}
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	if cfg.Reuse {
		fmt.Fprintf(out, "connection reuse: on (ControlMaster sockets in %s, kept %v after use)\n", quotePath(cfg.ControlDir), remote.DefaultControlPersist)
	} else {
		fmt.Fprintf(out, "connection reuse: off (%s is not a private directory of yours)\n", quotePath(cfg.ControlDir))
	}
	problem := false
	for _, r := range remote.List(context.Background(), cfg, hosts) {
		shown := statusfile.SanitizeText(r.Host)
		args, _ := cfg.Args(r.Host, []string{"--json", "--all"})
		fmt.Fprintf(out, "\nhost %s:\n", shown)
		fmt.Fprintf(out, "  ran: %s %s\n", quotePath(cfg.Program()), statusfile.SanitizeText(strings.Join(quoteAll(args), " ")))
		if r.Err != nil {
			problem = true
			fmt.Fprintf(out, "  PROBLEM (%s): %s\n", r.Err.Kind, r.Err.Msg)
			fmt.Fprintf(out, "  fix: %s\n", doctorFix(r.Err))
			continue
		}
		fresh := 0
		for _, e := range r.Entries {
			if e.Verdict == reader.Fresh {
				fresh++
			}
		}
		fmt.Fprintf(out, "  ok: ssh, statusls and its status directory answer (%d files, %d fresh sessions) in %v\n", len(r.Entries), fresh, r.Took.Round(time.Millisecond))
	}
	if problem {
		return ExitError
	}
	return ExitOK
}

// doctorFix says what to do about a failing host.
func doctorFix(he *remote.HostError) string {
	switch he.Kind {
	case remote.KindSSH:
		return "make 'ssh -o BatchMode=yes " + he.Host + " true' work without a prompt: load the key into ssh-agent (ssh-add), or name the host, user and key in ~/.ssh/config; statusls never asks for a password"
	case remote.KindMissing:
		return "install statusls on " + he.Host + " (go install github.com/agentstatus/agentstatus/cmd/statusls@latest), or set $" + remote.CommandEnv + " to its path there, e.g. ~/go/bin/statusls: ssh runs commands in a non-interactive shell, which may not read the profile that puts it on $PATH"
	case remote.KindVersion:
		return "upgrade statusls on " + he.Host + " to this version (go install github.com/agentstatus/agentstatus/cmd/statusls@latest)"
	case remote.KindTimeout:
		return "check that 'ssh " + he.Host + " statusls' answers; raise --host-timeout for a slow link"
	case remote.KindRefused:
		if he.Hint != "" {
			return he.Hint + "; 'ssh " + he.Host + " statusls doctor' explains more"
		}
		return "run 'ssh " + he.Host + " statusls doctor'"
	}
	if he.Hint != "" {
		return he.Hint
	}
	return "run 'ssh " + he.Host + " statusls --json --all' and look at what it prints"
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = remote.ShellQuote(a)
	}
	return out
}
