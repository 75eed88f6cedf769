package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ReaderFunc is a reader under test that runs in the harness's own process:
// it lists statusDir as of now and returns the live sessions. For a
// directory it must refuse (SPEC.md R2) it returns an error.
type ReaderFunc func(ctx context.Context, statusDir string, now time.Time) ([]Session, error)

// ReaderOptions configure [RunReader].
type ReaderOptions struct {
	Level   Level         // the cases to run; Hardened (the default) includes Core
	Timeout time.Duration // per case; 5 s by default
	// TimeoutScale multiplies Timeout (after calibration); 1 by default.
	TimeoutScale float64
	Select       Selector // by id; all by default
	// Skip lists cases not to run: they are reported as SKIP.
	Skip Selector
	// Parallel bounds the cases run at once; by default the number of
	// processors (GOMAXPROCS).
	Parallel int
	// NoCalibrate turns off the first timed run that stretches the
	// timeout for a reader slower to start than the timeout allows for.
	NoCalibrate bool
	// Command is the reader under test, CMD then ARGS, run without a
	// shell. In ARGS, {dir} becomes the status directory and {now} the
	// time the reader must take as now.
	Command []string
	// Func is a reader under test in this process, used when Command is
	// empty.
	Func ReaderFunc
	// TempDir is where cases are materialized; the system's by default.
	TempDir string

	calibrated time.Duration // how long the calibration run took
}

// SelectCases returns the cases of level (and below) that sel selects.
func SelectCases(cases []*Case, level Level, sel Selector) []*Case {
	if level == "" {
		level = Hardened
	}
	var out []*Case
	for _, c := range cases {
		if level.Includes(c.Level) && sel.Match(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

// RunReader runs the reader under test once per selected case, in
// parallel, each in a fresh temporary directory, and reports on every case.
func RunReader(ctx context.Context, cases []*Case, opts ReaderOptions) (*Report, error) {
	if len(opts.Command) == 0 && opts.Func == nil {
		return nil, errors.New("conformance: no reader to run")
	}
	if opts.Level == "" {
		opts.Level = Hardened
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.TimeoutScale < 1 {
		opts.TimeoutScale = 1
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	rep := &Report{Suite: "reader", Command: opts.Command, Level: opts.Level, Started: time.Now()}
	if len(opts.Command) > 0 {
		if err := checkRunnable(opts.Command[0]); err != nil {
			return nil, err
		}
		if !opts.NoCalibrate {
			cal := calibrateReader(ctx, cases, opts)
			if cal.err != nil {
				return nil, cal.err
			}
			rep.Calibration = cal.note
			opts.Timeout = max(opts.Timeout, time.Duration(float64(cal.took)*readerCalibrationMargin))
			opts.calibrated = cal.took
		}
	}
	opts.Timeout = time.Duration(float64(opts.Timeout) * opts.TimeoutScale)
	rep.TimeoutScale = opts.TimeoutScale
	selected := SelectCases(cases, opts.Level, opts.Select)
	results := make([]Result, len(selected))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, c := range selected {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if opts.Skip.matchAny(c.ID) {
				results[i] = Result{ID: c.ID, Level: c.Level, Rules: c.Rules, Requirements: c.Requirements,
					Outcome: Skip, Reason: "skipped by --skip " + opts.Skip.first(c.ID)}
				return
			}
			results[i] = runCase(ctx, c, opts)
		}()
	}
	wg.Wait()
	rep.Results = results
	rep.finish()
	if note := silentReaderNote(rep, selected); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	return rep, nil
}

func runCase(ctx context.Context, c *Case, opts ReaderOptions) (res Result) {
	start := time.Now()
	res = Result{ID: c.ID, Level: c.Level, Rules: c.Rules, Requirements: c.Requirements}
	defer func() { res.Seconds = time.Since(start).Round(time.Millisecond).Seconds() }()
	res.Expected = ndjson(c.Sessions)
	if c.Expect == ExpectError {
		res.Expected = "(no sessions, and an error: a non-zero exit status or a line on standard error)"
	}
	root, err := os.MkdirTemp(opts.TempDir, "statusconform-")
	if err != nil {
		return harnessFailure(res, err)
	}
	defer removeAll(root)
	m, err := Materialize(c, root)
	var skip *SkipError
	if errors.As(err, &skip) {
		res.Outcome, res.Reason = Skip, skip.Reason
		res.Expected = ""
		return res
	}
	if err != nil {
		return harnessFailure(res, err)
	}
	stopChurn := m.Churn()
	defer stopChurn()
	for run := 1; run <= c.Runs; run++ {
		res = judge(ctx, c, m, opts, res)
		if res.Outcome == Fail && c.Runs > 1 {
			res.Reason = fmt.Sprintf("run %d of %d: %s", run, c.Runs, res.Reason)
		}
		if res.Outcome == Fail {
			break
		}
	}
	return res
}

// judge runs the reader once on the materialized case and judges the run.
func judge(ctx context.Context, c *Case, m *Materialized, opts ReaderOptions, res Result) Result {
	var (
		got      []Session
		exit     exitInfo
		readErr  error
		parseErr []string
	)
	if len(opts.Command) > 0 {
		argv := substitute(opts.Command, map[string]string{"dir": m.StatusDir, "now": c.NowText})
		r := runCommand(ctx, argv, environ(m.Env()), opts.Timeout)
		exit = r.exit
		res.Exit = exit.String()
		res.Stderr = r.stderr.String()
		got, parseErr = parseOutput(r.stdout.Bytes())
		res.Actual = strings.TrimRight(r.stdout.String(), "\n")
	} else {
		got, readErr, exit.timedOut = callReader(ctx, opts.Func, m.StatusDir, c.Now, opts.Timeout)
		if readErr != nil {
			res.Exit = "error: " + readErr.Error()
		}
		res.Actual = ndjson(got)
	}
	if res.Actual == "" {
		res.Actual = "(no output)"
	}

	fail := func(reason string, details ...string) Result {
		res.Outcome, res.Reason, res.Details = Fail, reason, details
		return res
	}
	switch {
	case exit.err != nil:
		return fail("the reader could not be run: " + exit.err.Error())
	case exit.timedOut:
		msg := fmt.Sprintf("the reader did not finish within %v and was killed: a reader must never hang", opts.Timeout)
		if opts.calibrated > 0 {
			msg += fmt.Sprintf(" (a first case took it %v; if this machine is busy, rerun with --timeout-scale %d)",
				opts.calibrated.Round(time.Millisecond), int(opts.TimeoutScale)*2)
		}
		return fail(msg)
	case exit.signal != "":
		return fail("the reader was killed by signal " + exit.signal)
	}
	if c.Expect == ExpectError {
		if len(got) > 0 || len(parseErr) > 0 {
			return fail("the reader showed sessions from a status directory it must refuse")
		}
		if !errorObservable(len(opts.Command) > 0, exit, res.Stderr, readErr) {
			return fail("the reader printed nothing and reported no error (R23: a non-zero exit status or a line on standard error): " +
				"to a script, that is an empty listing, not a refused directory")
		}
		res.Outcome = Pass
		return res
	}
	if readErr != nil {
		return fail("the reader failed: " + readErr.Error())
	}
	if exit.code != 0 {
		return fail(fmt.Sprintf("the reader exited with status %d, want 0", exit.code))
	}
	if len(parseErr) > 0 {
		return fail("the reader's output is not one JSON object per session", parseErr...)
	}
	if diffs := compareSessions(c.Sessions, got); len(diffs) > 0 {
		return fail("the reader showed other sessions than expected", diffs...)
	}
	res.Outcome = Pass
	return res
}

// errorObservable reports whether a reader reported an error as SPEC.md
// R23 defines it: a command by a non-zero exit status or a non-blank line
// on standard error, a ReaderFunc by returning an error.
func errorObservable(command bool, exit exitInfo, stderr string, readErr error) bool {
	if !command {
		return readErr != nil
	}
	return exit.code != 0 || strings.TrimSpace(stderr) != ""
}

func harnessFailure(res Result, err error) Result {
	res.Outcome, res.Reason = Fail, "harness error (not the reader's fault, but not a pass): "+err.Error()
	return res
}

// parseOutput reads one session per non-blank line.
func parseOutput(out []byte) ([]Session, []string) {
	var got []Session
	var errs []string
	for i, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := parseSessionLine(line, false)
		if err != nil {
			errs = append(errs, fmt.Sprintf("output line %d: %v: %s", i+1, err, truncate(string(line), 200)))
			continue
		}
		got = append(got, s)
	}
	return got, errs
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// callReader runs an in-process reader with a timeout. A reader that hangs
// is abandoned (its goroutine leaks) and reported as timed out.
func callReader(ctx context.Context, f ReaderFunc, dir string, now time.Time, timeout time.Duration) ([]Session, error, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type out struct {
		s   []Session
		err error
	}
	ch := make(chan out, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- out{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		s, err := f(ctx, dir, now)
		ch <- out{s, err}
	}()
	select {
	case o := <-ch:
		return o.s, o.err, false
	case <-ctx.Done():
		return nil, nil, true
	}
}
