package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/shquote"
)

// Defaults of a [Config].
const (
	// DefaultConnectTimeout is ssh's ConnectTimeout.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultTimeout bounds one host's listing, connection included.
	DefaultTimeout = 10 * time.Second
	// DefaultControlPersist is how long a shared connection outlives its
	// last use.
	DefaultControlPersist = 60 * time.Second
	// MaxFanOut is the default number of hosts queried at once.
	MaxFanOut = 32
)

// Environment variables a [Config] can be read from ([ConfigFromEnv]).
const (
	// SSHEnv names the ssh program (default: ssh, from $PATH).
	SSHEnv = "STATUSLS_SSH"
	// CommandEnv names statusls on the hosts (default: statusls, from the
	// remote $PATH). A leading ~/ is the remote home.
	CommandEnv = "STATUSLS_REMOTE_COMMAND"
)

// Config says how hosts are reached. The zero value uses the defaults.
type Config struct {
	// SSH is the ssh program; "" means "ssh" from $PATH.
	SSH string
	// SSHArgs come before this package's own options (e.g. -F FILE).
	SSHArgs []string
	// Command is statusls on the hosts; "" means "statusls".
	Command string
	// ConnectTimeout is ssh's ConnectTimeout; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Timeout bounds one host's listing, connection included; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// FanOut bounds the hosts queried at once; 0 means MaxFanOut.
	FanOut int
	// MaxBytes bounds one host's whole listing; 0 means MaxHostBytes.
	MaxBytes int64
	// ControlDir holds the sockets of shared connections; "" means
	// [ControlDir]'s default. Reuse must be set for it to be used.
	ControlDir string
	// Reuse turns connection reuse on (ControlMaster=auto).
	Reuse bool
	// ControlPersist is how long a shared connection stays open after its
	// last use; 0 means DefaultControlPersist.
	ControlPersist time.Duration
	// Env is the environment of ssh; nil means this process's.
	Env []string
}

// ConfigFromEnv fills SSH and Command from $STATUSLS_SSH and
// $STATUSLS_REMOTE_COMMAND, and turns reuse on in the default directory.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{SSH: getenv(SSHEnv), Command: getenv(CommandEnv), Reuse: true}
}

// Program returns the ssh program that runs.
func (c *Config) Program() string { return c.ssh() }

func (c *Config) ssh() string {
	if c.SSH == "" {
		return "ssh"
	}
	return c.SSH
}

func (c *Config) maxBytes() int64 {
	if c.MaxBytes <= 0 {
		return MaxHostBytes
	}
	return c.MaxBytes
}

func (c *Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c *Config) fanOut() int {
	if c.FanOut <= 0 {
		return MaxFanOut
	}
	return c.FanOut
}

// Args returns ssh's arguments (without the program) that run the words
// of remote, quoted, on host. It fails for a host [CheckHost] refuses.
//
// The options come before "--", the host right after it, and the remote
// command as one argument: ssh would join several with spaces anyway, for
// the remote shell to split again.
func (c *Config) Args(host string, remote []string, extra ...string) ([]string, error) {
	if err := CheckHost(host); err != nil {
		return nil, err
	}
	ct := c.ConnectTimeout
	if ct <= 0 {
		ct = DefaultConnectTimeout
	}
	args := append([]string(nil), c.SSHArgs...)
	args = append(args,
		"-T", // no terminal: the output is data
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int((ct+time.Second-1)/time.Second)),
	)
	if c.Reuse && c.ControlDir != "" {
		persist := c.ControlPersist
		if persist <= 0 {
			persist = DefaultControlPersist
		}
		args = append(args,
			"-o", "ControlMaster=auto",
			"-o", "ControlPath="+controlPath(c.ControlDir, host),
			"-o", "ControlPersist="+strconv.Itoa(int((persist+time.Second-1)/time.Second)),
		)
	} else {
		// A ControlMaster=auto of the user's own config would leave a
		// master behind in a directory we did not check.
		args = append(args, "-o", "ControlMaster=no", "-o", "ControlPath=none")
	}
	args = append(args, extra...)
	args = append(args, "--", host, RemoteCommand(c.Command, remote...))
	return args, nil
}

// controlPath is the socket of host's shared connection: one per host name
// as given (not ssh's %C, which is one per machine: ssh sends an alias's
// SetEnv only when it opens its own connection, so two aliases of one
// machine need two). A change to the host's ssh_config applies once the
// shared connection has closed (ControlPersist, or ssh -O exit).
func controlPath(dir, host string) string {
	sum := sha256.Sum256([]byte(host))
	return filepath.Join(dir, hex.EncodeToString(sum[:10]))
}

// RemoteCommand returns the command string the remote shell runs: the
// program (command, "" meaning statusls) and its arguments, each quoted by
// [shquote.Quote], except that a leading "~/" of the program stays unquoted
// for the remote shell to expand.
func RemoteCommand(command string, args ...string) string {
	if command == "" {
		command = "statusls"
	}
	var b strings.Builder
	if rest, ok := strings.CutPrefix(command, "~/"); ok {
		b.WriteString("~/")
		b.WriteString(shquote.Quote(rest))
	} else {
		b.WriteString(shquote.Quote(command))
	}
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shquote.Quote(a))
	}
	return b.String()
}

// ControlDir returns the default directory for shared connections' sockets:
// $XDG_RUNTIME_DIR/agentstatus-ssh when XDG_RUNTIME_DIR is set, else
// /tmp/agentstatus-ssh-<uid>. (Socket paths are limited to 104 bytes on
// some systems, hence a short directory.)
func DefaultControlDir(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentstatus-ssh")
	}
	// Not $TMPDIR, which is too long for socket paths on macOS.
	return filepath.Join("/tmp", "agentstatus-ssh-"+strconv.Itoa(os.Getuid()))
}

// ErrControlDir is returned when the sockets' directory is not private.
var ErrControlDir = errors.New("remote: the directory for shared ssh connections is not private")

// maxControlDir keeps ControlPath (the directory, "/", 20 hex digits, and
// the 17-byte temporary suffix ssh adds while it binds) within the 104
// bytes of a Unix socket's path on the strictest system.
const maxControlDir = 104 - 1 - 20 - 17 - 1

// PrepareControlDir makes dir (mode 0700) when it is missing and checks
// that it is a directory of this account, not a symbolic link, with no
// permission for group or others: a socket there is a live login to a
// host, which another account must not reach or replace.
func PrepareControlDir(dir string) error {
	if len(dir) > maxControlDir {
		return fmt.Errorf("%w: %s is longer than %d bytes, too long for socket paths", ErrControlDir, dir, maxControlDir)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("remote: %w", err)
	}
	return checkPrivateDir(dir)
}
