package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Why a host failed: the values of [HostError].Kind, described there,
// which statusls --host --json prints as "reason" (SPEC.md M6).
const (
	kindSSH     = "ssh"
	kindTimeout = "timeout"
	kindMissing = "statusls-missing"
	kindVersion = "version"
	kindRefused = "refused"
	kindOutput  = "output"
)

// HostError is why one host could not be listed or watched.
type HostError struct {
	Host string
	// Kind says why, in one word: "ssh" (ssh could not run or reach the
	// host), "timeout" (no answer within the timeout), "statusls-missing"
	// (statusls is not on the host's $PATH), "version" (its statusls is
	// older than this package), "refused" (its statusls refused its status
	// directory, or failed otherwise), or "output" (it sent what statusls
	// never prints).
	Kind string
	// Msg says what happened, in one line, sanitized.
	Msg string
	// Hint says what to do about it.
	Hint string
}

func (e *HostError) Error() string { return e.Host + ": " + e.Msg }

// Result is one host's listing.
type Result struct {
	Host string
	// Entries are the host's entries, as statusls --json --all lists them
	// there: fresh, stale and invalid.
	Entries []reader.Entry
	// Err is set when the host could not be listed; Entries is then nil.
	Err *HostError
	// Took is how long the host took.
	Took time.Duration
	// Args are ssh's arguments (without the program) that list the host:
	// the options before "--", the host right after it, and statusls's
	// command line as one argument. Nil for a host name that ssh could
	// misread, which is never run.
	Args []string
}

// List lists every host in parallel (at most cfg.FanOut at once, each
// within cfg.Timeout) and returns one result per host, in the order given.
func List(ctx context.Context, cfg *Config, hosts []string) []Result {
	out := make([]Result, len(hosts))
	sem := make(chan struct{}, orDefault(cfg.FanOut, maxFanOut))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() {
			args, he := cfg.args(h, []string{"--json", "--all"})
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				out[i] = Result{Host: h, Args: args, Err: &HostError{Host: h, Kind: kindTimeout, Msg: "not queried: " + ctx.Err().Error()}}
				return
			}
			start := time.Now()
			if he != nil {
				out[i] = Result{Host: h, Err: he}
			} else {
				out[i] = listHost(ctx, cfg, h, args)
			}
			out[i].Took = time.Since(start)
		})
	}
	wg.Wait()
	return out
}

// listHost lists one host: it runs ssh with args, statusls --json --all
// there.
func listHost(ctx context.Context, cfg *Config, host string, args []string) Result {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	res := Result{Host: host, Args: args}
	cmd, stdout, stderr, he := cfg.start(ctx, host, args, false)
	if res.Err = he; he != nil {
		return res
	}
	entries, derr := decodeListing(&limitedReader{io.LimitedReader{R: stdout, N: cfg.maxBytes()}})
	if derr != nil {
		cancel() // stop reading a host that sends garbage
	}
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if res.Err = classify(host, ctx, werr, stderr.b, derr); res.Err == nil {
		res.Entries = entries
	}
	return res
}

// decodeListing reads statusls --json's array: "[", one object per line
// with a comma after all but the last, "]"; or "[]".
func decodeListing(r io.Reader) ([]reader.Entry, error) {
	lr := newLineReader(r, maxLineBytes)
	first, err := lr.next()
	if err != nil {
		return nil, listErr(err, "no output")
	}
	switch string(bytes.TrimSpace(first)) {
	case "[]":
		return nil, trailing(lr)
	case "[":
	default:
		return nil, fmt.Errorf("%w: the listing does not start with '['", errProtocol)
	}
	var out []reader.Entry
	for {
		line, err := lr.next()
		if err != nil {
			return nil, listErr(err, "the listing ends without ']'")
		}
		line = bytes.TrimSpace(line)
		if string(line) == "]" {
			return out, trailing(lr)
		}
		line = bytes.TrimSuffix(line, []byte{','})
		e, err := DecodeEntry(line)
		if err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
}

// trailing checks that nothing but white space follows the listing.
func trailing(lr *lineReader) error {
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return listErr(err, "")
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return fmt.Errorf("%w: output after the listing", errProtocol)
		}
	}
}

func listErr(err error, atEOF string) error {
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: %s", errProtocol, atEOF)
	case errors.Is(err, errLineTooLong), errors.Is(err, errTooLarge):
		return fmt.Errorf("%w: %v", errProtocol, err)
	}
	return err
}

// classify turns how ssh ended into a host error, or nil when the host
// answered. derr is the error decoding its output.
func classify(host string, ctx context.Context, werr error, stderr []byte, derr error) *HostError {
	he := &HostError{Host: host}
	word := hostWord(host)
	msg, remoteMsg, remoteHint := stderrLines(stderr)
	code := -1
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		he.Kind, he.Msg = kindTimeout, "no answer within the timeout"
		he.Hint = "check that " + shquote.Hint("ssh "+word+" statusls") + " answers; a slow host needs a longer --host-timeout"
	case code == 255:
		he.Kind, he.Msg = kindSSH, "ssh failed"
		if msg != "" {
			he.Msg += ": " + msg
		}
		he.Hint = "check that " + shquote.Hint("ssh -o BatchMode=yes "+word+" true") + " works without a prompt (keys in ssh-agent, the host in ~/.ssh/config)"
	case code == 127 || code == 126 || strings.Contains(msg, "statusls: not found") || strings.Contains(msg, "command not found"):
		he.Kind, he.Msg = kindMissing, "statusls is not installed or not on its $PATH"
		he.Hint = "install it there (go install github.com/agentstatus/agentstatus/cmd/statusls@latest), or set $" + commandEnv + " to its path, e.g. ~/go/bin/statusls (non-interactive ssh shells may not read your profile)"
	case code == 2:
		he.Kind, he.Msg = kindVersion, "its statusls refused the arguments: an older version?"
		if msg != "" {
			he.Msg += " (" + msg + ")"
		}
		he.Hint = "upgrade statusls on " + sanitizeHost(host) + " to this version"
	case code > 0:
		he.Kind, he.Msg = kindRefused, "its statusls failed (exit status "+fmt.Sprint(code)+")"
		he.Hint = "run " + shquote.Hint("statusls doctor --host "+word)
		if remoteMsg != "" {
			he.Msg = "its statusls: " + remoteMsg
			if remoteHint != "" {
				he.Hint = "on " + sanitizeHost(host) + ": " + remoteHint
			}
		}
	case werr != nil && derr == nil:
		he.Kind, he.Msg = kindSSH, "ssh: "+statusfile.SanitizeText(werr.Error())
	case derr != nil && errors.Is(derr, errOld):
		he.Kind, he.Msg = kindVersion, "its statusls is older than this one (its --json has no verdict)"
		he.Hint = "upgrade statusls on " + sanitizeHost(host) + " to this version"
	case derr != nil:
		he.Kind, he.Msg = kindOutput, "bad output: "+statusfile.SanitizeText(derr.Error())
		he.Hint = "run " + shquote.Hint("ssh "+word+" statusls --json --all") + " to see what it prints"
	default:
		return nil
	}
	he.Host = sanitizeHost(host)
	return he
}

// stderrLines reads ssh's standard error: its last non-empty line, but for
// ssh's own warnings about known hosts, and the remote statusls's own
// message and hint ("statusls: ..." and "statusls: hint: ..." lines), each
// sanitized and shortened.
func stderrLines(b []byte) (last, msg, hint string) {
	short := func(s string) string { return jsonstr.Shorten(statusfile.SanitizeText(s), 200, 197, "...") }
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "Warning: Permanently added") {
			last = l
		}
		if h, ok := strings.CutPrefix(l, "statusls: hint: "); ok {
			hint = short(h)
		} else if m, ok := strings.CutPrefix(l, "statusls: "); ok && msg == "" {
			msg = short(m)
		}
	}
	return short(last), msg, hint
}

func sanitizeHost(h string) string { return statusfile.SanitizeText(h) }

// hostWord is the host as one shell word, for the command lines in hints.
func hostWord(h string) string { return statusfile.SanitizeText(shquote.Quote(h)) }
