package statusls

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/hostname"
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

// register declares --host, with usage as its help, and --host-timeout;
// with many, several hosts: --host H[,H], --all-hosts, and a heading in
// help; with local, --local.
func (h *hostFlags) register(fs *base.FlagSet, env *cmdEnv, usage string, many, local bool) {
	h.given, h.many = fs, many
	arg := "H"
	if many {
		fs.Group("Other machines (over ssh, each running statusls; see docs/statusls.md)")
		arg = "H[,H]"
	}
	fs.Func("host", arg, usage, func(s string) error {
		hosts, err := splitHosts(s)
		if err != nil {
			return err
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
	if local {
		fs.Bool(&h.local, "local", false, "with --host or --all-hosts: this machine too")
	}
	fs.Duration(&h.hostTimeout, "host-timeout", 0, "DUR", "give up on a host after DUR (default 10s)")
}

// active reports whether other machines are asked for.
func (h *hostFlags) active() bool { return len(h.hosts) > 0 || h.allHosts }

// targets returns the hosts to ask, and the ssh configuration; nothing
// when no host is asked for. A usage error, its exit status, else -1: a
// flag that only means something with --host (or --all-hosts) is one
// without it, rather than ignored.
func (h *hostFlags) targets(env *cmdEnv) ([]string, *remote.Config, int) {
	if !h.active() {
		need := "--host"
		if h.many {
			need = "--host or --all-hosts"
		}
		for _, name := range []string{"local", "host-timeout"} {
			if h.given.Changed(name) {
				return nil, nil, usageError(env, "--%s needs %s", name, need)
			}
		}
		return nil, nil, -1
	}
	if h.given.Changed("host-timeout") && h.hostTimeout <= 0 {
		return nil, nil, usageError(env, "--host-timeout must be positive")
	}
	hosts := h.hosts
	if h.allHosts {
		more, from, err := configuredHosts(env.Getenv)
		if err != nil {
			return nil, nil, usageError(env, "%s", err)
		}
		if len(more) == 0 && len(hosts) == 0 {
			return nil, nil, usageError(env, "--all-hosts: no hosts configured in %s (set $%s, or write them there, one per line)", from, hostsEnv)
		}
		hosts = appendNew(hosts, more...)
	}
	cfg, err := remote.ConfigFromEnv(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s: connections are not shared\n", statusfile.SanitizeText(err.Error()))
	}
	cfg.Timeout = h.hostTimeout // 0: remote's default
	return hosts, &cfg, -1
}

// localHostName is how the table shows this machine.
const localHostName = "(local)"

// hostsEnv is the environment variable listing the configured hosts,
// separated by commas or white space.
const hostsEnv = "STATUSLS_HOSTS"

// Why a host failed: remote.HostError's Kind, which --json prints as
// "reason" (SPEC.md M6).
const (
	failSSH     = "ssh"
	failTimeout = "timeout"
	failMissing = "statusls-missing"
	failVersion = "version"
	failRefused = "refused"
	failOutput  = "output"
)

// splitHosts splits a list of hosts separated by commas or white space,
// checks each with hostname.Check, and drops duplicates, keeping the
// first.
func splitHosts(s string) ([]string, error) {
	var out []string
	for _, h := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if err := hostname.Check(h); err != nil {
			return nil, err
		}
		out = appendNew(out, h)
	}
	return out, nil
}

// appendNew appends to list the hosts it does not hold yet.
func appendNew(list []string, hosts ...string) []string {
	for _, h := range hosts {
		if !slices.Contains(list, h) {
			list = append(list, h)
		}
	}
	return list
}

// hostsFile returns the path of the hosts file: $XDG_CONFIG_HOME/agentstatus/hosts,
// else ~/.config/agentstatus/hosts.
func hostsFile(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentstatus", "hosts"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cannot find the hosts file: neither XDG_CONFIG_HOME nor HOME is set")
	}
	return filepath.Join(home, ".config", "agentstatus", "hosts"), nil
}

// maxHostsFile bounds the hosts file.
const maxHostsFile = 1 << 20

// configuredHosts returns the configured hosts: those of $STATUSLS_HOSTS
// when it is set and not empty, else those of the hosts file (one or more
// hosts per line, separated by commas or white space; "#" starts a
// comment; a missing file is an empty list). from says which.
func configuredHosts(getenv func(string) string) (hosts []string, from string, err error) {
	if v := getenv(hostsEnv); strings.TrimSpace(v) != "" {
		hosts, err = splitHosts(v)
		if err != nil {
			return nil, "$" + hostsEnv, fmt.Errorf("$%s: %w", hostsEnv, err)
		}
		return hosts, "$" + hostsEnv, nil
	}
	path, err := hostsFile(getenv)
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHostsFile+1))
	if err == nil && len(b) > maxHostsFile {
		err = errors.New("output too large")
	}
	if err != nil {
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		more, err := splitHosts(line)
		if err != nil {
			return nil, path, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		hosts = appendNew(hosts, more...)
	}
	if err := sc.Err(); err != nil {
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return hosts, path, nil
}
