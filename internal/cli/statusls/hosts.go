package statusls

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// hostFlags take statusls to other machines.
type hostFlags struct {
	hosts       []string
	allHosts    bool
	local       bool
	hostTimeout time.Duration
	given       *base.FlagSet // which of them the command line set
	many        bool          // --all-hosts is one of them
}

// hostFlagsOf says which host flags a command takes.
type hostFlagsOf struct {
	usage string // --host's help
	many  bool   // several hosts: --host H[,H] and --all-hosts
	local bool   // --local
	group bool   // under their own heading in help
}

// register declares --host and --host-timeout, and what of declares
// besides.
func (h *hostFlags) register(fs *base.FlagSet, env *Env, of hostFlagsOf) {
	if of.group {
		fs.Group("Other machines (over ssh, each running statusls; see docs/statusls.md)")
	}
	h.given, h.many = fs, of.many
	many := of.many
	usage := of.usage
	arg := "H"
	if many {
		arg = "H[,H]"
	}
	fs.Func("host", arg, usage, func(s string) error {
		hosts, err := splitHosts(s)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "remote: "))
		}
		if len(hosts) == 0 {
			return errors.New("no host given")
		}
		h.hosts = append(h.hosts, hosts...)
		return nil
	}).Complete = func() []string {
		hosts, _, _ := configuredHosts(env.Getenv)
		return hosts
	}
	if many {
		fs.Bool(&h.allHosts, "all-hosts", false, "the hosts of $STATUSLS_HOSTS, else of ~/.config/agentstatus/hosts")
	}
	if of.local {
		fs.Bool(&h.local, "local", false, "with --host or --all-hosts: this machine too")
	}
	fs.Duration(&h.hostTimeout, "host-timeout", 0, "DUR", "give up on a host after DUR (default 10s)")
}

// misuse is a usage error for a flag that only means something with
// --host (or --all-hosts) given without it, rather than ignoring it. It
// returns -1 to go on.
func (h *hostFlags) misuse(env *Env) int {
	if h.active() || h.given == nil {
		return -1
	}
	need := "--host"
	if h.many {
		need = "--host or --all-hosts"
	}
	for _, name := range []string{"local", "host-timeout"} {
		if h.given.Changed(name) {
			return usageError(env, "--%s needs %s", name, need)
		}
	}
	return -1
}

// active reports whether other machines are asked for.
func (h *hostFlags) active() bool { return len(h.hosts) > 0 || h.allHosts }

// targets returns the hosts to ask, and the ssh configuration.
func (h *hostFlags) targets(env *Env) ([]string, *remote.Config, error) {
	if h.given.Changed("host-timeout") && h.hostTimeout <= 0 {
		return nil, nil, errors.New("--host-timeout must be positive")
	}
	hosts := h.hosts
	if h.allHosts {
		more, from, err := configuredHosts(env.Getenv)
		if err != nil {
			return nil, nil, err
		}
		if len(more) == 0 && len(hosts) == 0 {
			return nil, nil, fmt.Errorf("--all-hosts: no hosts configured in %s (set $%s, or write them there, one per line)", from, hostsEnv)
		}
		for _, m := range more {
			if !contains(hosts, m) {
				hosts = append(hosts, m)
			}
		}
	}
	cfg, err := remote.ConfigFromEnv(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s: connections are not shared\n", strings.TrimPrefix(statusfile.SanitizeText(err.Error()), "remote: "))
	}
	cfg.Timeout = h.hostTimeout // 0: remote's default
	return hosts, &cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// localHostName is how the table shows this machine.
const localHostName = "(local)"
