package remote

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/clock"
	"github.com/agentstatus/agentstatus/internal/hostname"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Defaults of a [Config].
const (
	defaultConnectTimeout = 5 * time.Second  // ssh's ConnectTimeout
	defaultTimeout        = 10 * time.Second // one host's listing, connection included
	defaultControlPersist = 60 * time.Second // a shared connection after its last use
	maxFanOut             = 32               // hosts queried at once
)

// Environment variables [ConfigFromEnv] reads.
const (
	// sshEnv names the ssh program (default: ssh, from $PATH).
	sshEnv = "STATUSLS_SSH"
	// commandEnv names statusls on the hosts (default: statusls, from the
	// remote $PATH). A leading ~/ is the remote home.
	commandEnv = "STATUSLS_REMOTE_COMMAND"
)

// Config says how hosts are reached. The zero value uses the defaults.
type Config struct {
	// SSH is the ssh program; "" means "ssh" from $PATH.
	SSH string
	// SSHArgs come before this package's own options (e.g. -F FILE).
	SSHArgs []string
	// Command is statusls on the hosts; "" means "statusls".
	Command string
	// ConnectTimeout is ssh's ConnectTimeout; 0 means 5 s.
	ConnectTimeout time.Duration
	// Timeout bounds one host's listing, connection included, and the
	// wait for a watched host's snapshot; 0 means 10 s.
	Timeout time.Duration
	// FanOut bounds the hosts queried at once; 0 means 32.
	FanOut int
	// MaxBytes bounds one host's whole listing; 0 means 32 MiB (about
	// 60,000 sessions).
	MaxBytes int64
	// ControlDir holds the sockets of shared connections, in a private
	// 0700 directory ([ConfigFromEnv] sets and checks one). Reuse must be
	// set, and ControlDir not "", for connections to be shared.
	ControlDir string
	// Reuse turns connection reuse on (ControlMaster=auto).
	Reuse bool
	// ControlPersist is how long a shared connection stays open after its
	// last use; 0 means 60 s.
	ControlPersist time.Duration
	// Env is the environment of ssh; nil means this process's.
	Env []string

	// Heartbeats asks [Watch] for Heartbeat events.
	Heartbeats bool
	// MinBackoff and MaxBackoff bound [Watch]'s wait before a
	// reconnection; it doubles at each failure in a row. 0 means 1 s and
	// 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Clock gives [Watch]'s events their At; nil means the system clock.
	Clock clock.Clock
}

// ConfigFromEnv returns the configuration statusls uses: the ssh program
// of $STATUSLS_SSH, statusls on the hosts of $STATUSLS_REMOTE_COMMAND, and
// connection reuse in a private directory of ours ($XDG_RUNTIME_DIR/agentstatus-ssh,
// else /tmp/agentstatus-ssh-UID), made when missing. When that directory is
// not private (or not possible), the error says why, and the configuration
// returned works without reuse.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{SSH: getenv(sshEnv), Command: getenv(commandEnv),
		ControlDir: defaultControlDir(getenv), ControlPersist: defaultControlPersist}
	err := prepareControlDir(cfg.ControlDir)
	cfg.Reuse = err == nil
	return cfg, err
}

func (c *Config) ssh() string            { return cmp.Or(c.SSH, "ssh") }
func (c *Config) maxBytes() int64        { return orDefault(c.MaxBytes, maxHostBytes) }
func (c *Config) timeout() time.Duration { return orDefault(c.Timeout, defaultTimeout) }

// orDefault is v, or def when v is not positive: a Config field left zero
// means its default.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// args returns ssh's arguments (without the program) that run the words
// of remote, quoted, on host, as [List], [Watch] and [Wait] do. It fails
// for a host hostname.Check refuses, as ssh's failure to reach it.
//
// The options come before "--", the host right after it, and the remote
// command as one argument: ssh would join several with spaces anyway, for
// the remote shell to split again.
func (c *Config) args(host string, remote []string, extra ...string) ([]string, *HostError) {
	if err := hostname.Check(host); err != nil {
		return nil, &HostError{Host: sanitizeHost(host), Kind: kindSSH, Msg: err.Error()}
	}
	ct := orDefault(c.ConnectTimeout, defaultConnectTimeout)
	args := append([]string(nil), c.SSHArgs...)
	args = append(args,
		"-T", // no terminal: the output is data
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int((ct+time.Second-1)/time.Second)),
	)
	if c.Reuse && c.ControlDir != "" {
		persist := orDefault(c.ControlPersist, defaultControlPersist)
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
	args = append(args, "--", host, remoteCommand(c.Command, remote...))
	return args, nil
}

// start runs ssh with args (from [Config.args]) for host, as [List],
// [Watch] and [Wait] do, and returns its standard output and the tail of
// its standard error. With stdin, ssh's standard input is a pipe left open
// until cmd.Wait: a remote --until-eof command ends when the connection
// does.
func (c *Config) start(ctx context.Context, host string, args []string, stdin bool) (*exec.Cmd, io.Reader, *tailBuffer, *HostError) {
	cmd := exec.CommandContext(ctx, c.ssh(), args...)
	cmd.Env = c.Env
	stderr := &tailBuffer{max: maxStderr}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	var err error
	if stdin {
		_, err = cmd.StdinPipe() // closed by cmd.Wait
	}
	stdout, err2 := cmd.StdoutPipe()
	if err = cmp.Or(err, err2); err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return nil, nil, nil, &HostError{Host: sanitizeHost(host), Kind: kindSSH, Msg: "cannot run ssh: " + statusfile.SanitizeText(err.Error()),
			Hint: "install OpenSSH's client, or set $" + sshEnv + " to the ssh program"}
	}
	return cmd, stdout, stderr, nil
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

// remoteCommand returns the command string the remote shell runs: the
// program (command, "" meaning statusls) and its arguments, each quoted by
// [shquote.Quote], except that a leading "~/" of the program stays unquoted
// for the remote shell to expand.
func remoteCommand(command string, args ...string) string {
	prog, home := cmp.Or(command, "statusls"), ""
	if rest, ok := strings.CutPrefix(prog, "~/"); ok {
		prog, home = rest, "~/"
	}
	return home + shquote.Join(append([]string{prog}, args...)...)
}

// defaultControlDir returns the default directory for shared connections' sockets:
// $XDG_RUNTIME_DIR/agentstatus-ssh when XDG_RUNTIME_DIR is set, else
// /tmp/agentstatus-ssh-<uid>. (Socket paths are limited to 104 bytes on
// some systems, hence a short directory.)
func defaultControlDir(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentstatus-ssh")
	}
	// Not $TMPDIR, which is too long for socket paths on macOS.
	return filepath.Join("/tmp", "agentstatus-ssh-"+strconv.Itoa(os.Getuid()))
}

// errControlDir is returned when the sockets' directory is not private.
var errControlDir = errors.New("the directory for shared ssh connections is not private")

// maxControlDir keeps ControlPath (the directory, "/", 20 hex digits, and
// the 17-byte temporary suffix ssh adds while it binds) within the 104
// bytes of a Unix socket's path on the strictest system.
const maxControlDir = 104 - 1 - 20 - 17 - 1

// prepareControlDir makes dir (mode 0700) when it is missing and checks
// that it is a directory of this account, not a symbolic link, with no
// permission for group or others: a socket there is a live login to a
// host, which another account must not reach or replace.
func prepareControlDir(dir string) error {
	if len(dir) > maxControlDir {
		return fmt.Errorf("%w: %s is longer than %d bytes, too long for socket paths", errControlDir, dir, maxControlDir)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return checkPrivateDir(dir)
}
