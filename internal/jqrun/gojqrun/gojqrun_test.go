package gojqrun_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/jqrun"
	_ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// slowWriter blocks its first write for a while: a pager whose reader
// looks away.
type slowWriter struct {
	once  sync.Once
	pause time.Duration
	bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { time.Sleep(w.pause) })
	return w.Buffer.Write(p)
}

// The timeout counts the time the filter runs, not the time spent waiting
// for the reader of the output or for the next input: a pause in each,
// longer than the timeout, is no timeout. The timeout is four times what
// the filter takes here on both inputs (at least 200 ms), so that only a
// timeout that counts a pause can stop it, and the pauses are 300 ms
// longer.
func TestTimeoutCountsOnlyTheFilter(t *testing.T) {
	testmain.SkipShort(t, "sleeps in its input and output to show which time the timeout counts")
	const filter = `range(2000) | "0123456789abcdefghi"`
	run := func(timeout, pause time.Duration) (out *slowWriter, code int, stderr string) {
		out = &slowWriter{pause: pause}
		var errb bytes.Buffer
		inputs := func(yield func(string, any) bool) {
			if !yield("first", 0) {
				return
			}
			time.Sleep(pause) // reading a slow file
			yield("second", 1)
		}
		r := &jqrun.Request{
			Prog: "statusls", Flag: "--jq", Filter: filter,
			Timeout: timeout, Compact: true, Raw: true,
			Inputs: inputs, Stdout: out, Stderr: &errb,
		}
		return out, jqrun.Run(r), errb.String()
	}
	start := time.Now()
	if _, code, stderr := run(time.Minute, 0); code != jqrun.ExitOK {
		t.Fatalf("without pauses: exit %d, stderr %q", code, stderr)
	}
	timeout := max(4*time.Since(start), 200*time.Millisecond)
	pause := timeout + 300*time.Millisecond
	// 2,000 lines of 20 bytes are 40,000 bytes per input: the second
	// input's results fill the 64 KiB buffer, so a write happens while
	// the filter runs.
	out, code, stderr := run(timeout, pause)
	if code != jqrun.ExitOK {
		t.Fatalf("pauses of %v under a timeout of %v: exit %d, stderr %q", pause, timeout, code, stderr)
	}
	if n := strings.Count(out.String(), "\n"); n != 4000 {
		t.Errorf("%d lines, want 4000", n)
	}
}

// Each input has the whole timeout: many inputs that each take a little
// are not stopped.
func TestTimeoutPerInput(t *testing.T) {
	var out, errb bytes.Buffer
	inputs := func(yield func(string, any) bool) {
		for i := 0; i < 12; i++ {
			if !yield("", i) {
				return
			}
		}
	}
	// Each input keeps the filter busy for about 50 ms: 600 ms in all,
	// under a timeout of 500 ms per input.
	r := &jqrun.Request{
		Prog: "statusls", Flag: "--jq-files", Timeout: 500 * time.Millisecond,
		Filter: `def busy($until): if now < $until then busy($until) else . end; busy(now + 0.05) | "done"`,
		Raw:    true, Inputs: inputs, Stdout: &out, Stderr: &errb,
	}
	if code := jqrun.Run(r); code != jqrun.ExitOK || out.String() != strings.Repeat("done\n", 12) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// A filter that never ends is stopped, and what it printed before is kept.
func TestTimeoutKeepsEarlierOutput(t *testing.T) {
	var out, errb bytes.Buffer
	r := &jqrun.Request{
		Prog: "statusls", Flag: "--jq", Timeout: 100 * time.Millisecond,
		Filter: `"before", (def f: f; f)`, Raw: true,
		Inputs: func(yield func(string, any) bool) { yield("", nil) },
		Stdout: &out, Stderr: &errb,
	}
	if code := jqrun.Run(r); code != jqrun.ExitError || out.String() != "before\n" || !strings.Contains(errb.String(), "statusls: --jq: filter stopped after 100ms") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
