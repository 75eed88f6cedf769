package remote

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Exit statuses of statusls wait that a remote wait passes on.
const (
	waitOK      = 0
	waitTimeout = 3
	waitGone    = 4
)

// WaitResult is how a remote wait ended.
type WaitResult struct {
	// Code is the remote statusls wait's exit status: 0 the condition
	// holds, 3 timeout, 4 the session went away; -1 when the host failed
	// (Err says why).
	Code int
	// Output is what it printed (the session id with --any, its object
	// with --json), sanitized; one line at most.
	Output []byte
	Err    *HostError
}

// Wait runs statusls wait with args on host until it decides, within
// timeout (0: none). A dropped connection is retried with backoff (1 s,
// doubling, at most 30 s); each retry asks again with what is left of the
// timeout. offline is called (when not nil) each time the host is lost.
func Wait(ctx context.Context, cfg *Config, host string, args []string, timeout time.Duration, offline func(*HostError)) WaitResult {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	backoff := time.Second
	for {
		remote := append([]string{"wait", "--until-eof"}, args...)
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return WaitResult{Code: waitTimeout}
			}
			remote = append(remote, "--timeout", left.Round(time.Millisecond).String())
		}
		r := waitOnce(ctx, cfg, host, remote, deadline)
		if r.Err == nil || r.Err.Kind != kindSSH && r.Err.Kind != kindTimeout || ctx.Err() != nil {
			return r
		}
		if offline != nil {
			offline(r.Err)
		}
		wait := backoff
		if !deadline.IsZero() {
			wait = min(wait, time.Until(deadline))
		}
		t := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			t.Stop()
			return r
		case <-t.C:
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

func waitOnce(ctx context.Context, cfg *Config, host string, remote []string, deadline time.Time) WaitResult {
	args, he := cfg.args(host, remote, watchSSHOptions...)
	if he != nil {
		return WaitResult{Code: -1, Err: he}
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		// The remote side times out first; this only stops a host that
		// does not.
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(cfg.timeout()))
		defer cancel()
	}
	cmd, stdout, stderr, he := cfg.start(ctx, host, args, true)
	if he != nil {
		he.Hint = "" // statusls wait has never printed one here
		return WaitResult{Code: -1, Err: he}
	}
	line, rerr := newLineReader(&limitedReader{io.LimitedReader{R: stdout, N: maxLineBytes + 1}}, maxLineBytes).next()
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	}
	switch {
	case werr == nil || code == waitTimeout || code == waitGone:
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return WaitResult{Code: -1, Err: classify(host, context.Background(), nil, nil, listErr(rerr, ""))}
		}
		return WaitResult{Code: code, Output: []byte(statusfile.SanitizeText(string(line)))}
	}
	return WaitResult{Code: -1, Err: classify(host, ctx, werr, stderr.b, nil)}
}
