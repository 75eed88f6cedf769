package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HostsEnv is the environment variable listing the configured hosts,
// separated by commas or white space.
const HostsEnv = "STATUSLS_HOSTS"

// maxHostLen bounds a host name (ssh itself refuses longer ones).
const maxHostLen = 255

// ErrBadHost is returned for a host name this package refuses.
var ErrBadHost = errors.New("remote: bad host name")

// CheckHost refuses host names that ssh could misread: empty ones, those
// starting with "-" (an option to ssh), and those holding white space,
// control or invisible characters, or more than 255 bytes. A name may be
// an ssh_config alias, a host name or address, or user@host.
func CheckHost(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("%w: empty", ErrBadHost)
	case strings.HasPrefix(h, "-"):
		return fmt.Errorf("%w: %q starts with '-', which ssh would take for an option", ErrBadHost, h)
	case len(h) > maxHostLen:
		return fmt.Errorf("%w: longer than %d bytes", ErrBadHost, maxHostLen)
	case !utf8.ValidString(h):
		// Ranging over h would turn each invalid byte (such as 0x9b, the
		// C1 CSI byte) into U+FFFD, which counts as graphic.
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrBadHost, h)
	}
	for _, r := range h {
		if unicode.IsSpace(r) || !unicode.IsGraphic(r) || r == '\'' || r == '"' || r == '\\' || r == '`' || r == '$' || r == ';' || r == '|' || r == '&' {
			return fmt.Errorf("%w: %q holds a character ssh host names never do", ErrBadHost, h)
		}
	}
	return nil
}

// SplitHosts splits a list of hosts separated by commas or white space,
// checks each with [CheckHost], and drops duplicates, keeping the first.
func SplitHosts(s string) ([]string, error) {
	var out []string
	for _, h := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if err := CheckHost(h); err != nil {
			return nil, err
		}
		out = appendNew(out, h)
	}
	return out, nil
}

func appendNew(list []string, h string) []string {
	for _, x := range list {
		if x == h {
			return list
		}
	}
	return append(list, h)
}

// HostsFile returns the path of the hosts file: $XDG_CONFIG_HOME/agentstatus/hosts,
// else ~/.config/agentstatus/hosts.
func HostsFile(getenv func(string) string) (string, error) {
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

// ReadHostsFile reads a hosts file: one or more hosts per line, separated
// by commas or white space; "#" starts a comment. A missing file is an
// empty list.
func ReadHostsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(&limitedReader{r: f, n: maxHostsFile})
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		hosts, err := SplitHosts(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		for _, h := range hosts {
			out = appendNew(out, h)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Hosts returns the configured hosts: those of $STATUSLS_HOSTS when it is
// set and not empty, else those of the hosts file. from says which.
func Hosts(getenv func(string) string) (hosts []string, from string, err error) {
	if v := getenv(HostsEnv); strings.TrimSpace(v) != "" {
		hosts, err = SplitHosts(v)
		if err != nil {
			return nil, "$" + HostsEnv, fmt.Errorf("$%s: %w", HostsEnv, err)
		}
		return hosts, "$" + HostsEnv, nil
	}
	path, err := HostsFile(getenv)
	if err != nil {
		return nil, "", err
	}
	hosts, err = ReadHostsFile(path)
	return hosts, path, err
}
