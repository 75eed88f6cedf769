package statusls

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// doctorHostsReport is what doctor --host found; --json prints it as it
// is.
type doctorHostsReport struct {
	ConnectionReuse bool         `json:"connectionReuse"`
	ControlDir      string       `json:"controlDir"`
	Hosts           []doctorHost `json:"hosts"`
	OK              bool         `json:"ok"`
}

// doctorHost is one host's check.
type doctorHost struct {
	Host    string   `json:"host"`
	Command []string `json:"command"` // ssh's argv after the program
	OK      bool     `json:"ok"`
	Kind    string   `json:"kind,omitempty"` // the failure's kind (SPEC.md M6)
	Error   string   `json:"error,omitempty"`
	Fix     string   `json:"fix,omitempty"`
	Files   int      `json:"files"`
	Fresh   int      `json:"fresh"`
	Millis  int64    `json:"ms"`
}

// doctorHosts is statusls doctor --host: what fails for each host, and
// the fix.
func doctorHosts(hosts []string, cfg *remote.Config, asJSON bool, env *cmdEnv) int {
	rep := doctorHostsReport{ConnectionReuse: cfg.Reuse, ControlDir: cfg.ControlDir, Hosts: []doctorHost{}, OK: true}
	for _, r := range remote.List(context.Background(), cfg, hosts) {
		h := doctorHost{Host: statusfile.SanitizeText(r.Host), Command: r.Args, OK: r.Err == nil, Millis: r.Took.Milliseconds()}
		for i := range h.Command {
			h.Command[i] = statusfile.SanitizeText(h.Command[i])
		}
		if r.Err != nil {
			rep.OK = false
			h.Kind, h.Error, h.Fix = string(r.Err.Kind), r.Err.Msg, doctorFix(r.Err)
		} else {
			h.Files = len(r.Entries)
			for _, e := range r.Entries {
				if e.Verdict == reader.Fresh {
					h.Fresh++
				}
			}
		}
		rep.Hosts = append(rep.Hosts, h)
	}
	var text []string
	if cfg.Reuse {
		text = append(text, fmt.Sprintf("connection reuse: on (ControlMaster sockets in %s, kept %v after use)", quotePath(cfg.ControlDir), cfg.ControlPersist))
	} else {
		text = append(text, fmt.Sprintf("connection reuse: off (%s is not a private directory of yours)", quotePath(cfg.ControlDir)))
	}
	for _, h := range rep.Hosts {
		text = append(text, "\nhost "+h.Host+":",
			fmt.Sprintf("  ran: %s %s", quotePath(cmp.Or(cfg.SSH, "ssh")), statusfile.SanitizeText(shquote.Join(h.Command...))))
		if !h.OK {
			text = append(text, fmt.Sprintf("  PROBLEM (%s): %s", h.Kind, h.Error),
				"  fix: "+h.Fix)
			continue
		}
		text = append(text, fmt.Sprintf("  ok: ssh, statusls and its status directory answer (%d files, %d fresh sessions) in %v", h.Files, h.Fresh, (time.Duration(h.Millis)*time.Millisecond)))
	}
	return writeReport(env, asJSON, rep, rep.OK, text)
}

// doctorFix says what to do about a failing host.
func doctorFix(he *remote.HostError) string {
	// host is the host as one shell word, for the command lines below.
	host := statusfile.SanitizeText(shquote.Quote(he.Host))
	hint := statusfile.SanitizeText(he.Hint)
	switch he.Kind {
	case failSSH:
		return "make " + shquote.Hint("ssh -o BatchMode=yes "+host+" true") + " work without a prompt: load the key into ssh-agent (ssh-add), or name the host, user and key in ~/.ssh/config; statusls never asks for a password"
	case failMissing:
		return "install statusls on " + host + " (go install github.com/agentstatus/agentstatus/cmd/statusls@latest), or set $STATUSLS_REMOTE_COMMAND to its path there, e.g. ~/go/bin/statusls: ssh runs commands in a non-interactive shell, which may not read the profile that puts it on $PATH"
	case failVersion:
		return "upgrade statusls on " + host + " to this version (go install github.com/agentstatus/agentstatus/cmd/statusls@latest)"
	case failTimeout:
		return "check that " + shquote.Hint("ssh "+host+" statusls") + " answers; raise --host-timeout for a slow link"
	case failRefused:
		if hint != "" {
			return hint + "; " + shquote.Hint("ssh "+host+" statusls doctor") + " explains more"
		}
		return "run " + shquote.Hint("ssh "+host+" statusls doctor")
	}
	if hint != "" {
		return hint
	}
	return "run " + shquote.Hint("ssh "+host+" statusls --json --all") + " and look at what it prints"
}
