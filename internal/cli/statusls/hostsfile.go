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
	"strings"
	"unicode"

	"github.com/agentstatus/agentstatus/remote"
)

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
// checks each with remote.CheckHost, and drops duplicates, keeping the
// first.
func splitHosts(s string) ([]string, error) {
	var out []string
	for _, h := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if err := remote.CheckHost(h); err != nil {
			return nil, err
		}
		if !contains(out, h) {
			out = append(out, h)
		}
	}
	return out, nil
}

// hostsFile returns the path of the hosts file: $XDG_CONFIG_HOME/agentstatus/hosts,
// else ~/.config/agentstatus/hosts.
func hostsFile(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentstatus", "hosts"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("remote: cannot find the hosts file: neither XDG_CONFIG_HOME nor HOME is set")
	}
	return filepath.Join(home, ".config", "agentstatus", "hosts"), nil
}

// maxHostsFile bounds the hosts file.
const maxHostsFile = 1 << 20

// readHostsFile reads a hosts file: one or more hosts per line, separated
// by commas or white space; "#" starts a comment. A missing file is an
// empty list.
func readHostsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHostsFile+1))
	if err == nil && len(b) > maxHostsFile {
		err = errors.New("output too large")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		hosts, err := splitHosts(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		for _, h := range hosts {
			if !contains(out, h) {
				out = append(out, h)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// configuredHosts returns the configured hosts: those of $STATUSLS_HOSTS
// when it is set and not empty, else those of the hosts file. from says
// which.
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
	hosts, err = readHostsFile(path)
	return hosts, path, err
}
