package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// RunReader runs the reader under test ([Options].Command) once per
// selected reader case, in parallel, each in a fresh temporary directory,
// and reports on every case.
func RunReader(ctx context.Context, opts Options) (*Report, error) {
	cases, err := cases()
	if err != nil {
		return nil, err
	}
	opts.defaults()
	var units []unit
	for _, c := range cases {
		units = append(units, unit{checks: []Result{{ID: c.ID, Level: c.Level, Rules: c.Rules, Requirements: c.Requirements}},
			run: func(ctx context.Context, opts Options, _ func()) []Result { return []Result{runCase(ctx, c, opts)} }})
	}
	rep := &Report{Suite: "reader", Command: opts.Command, Level: opts.Level, Started: time.Now()}
	if opts.List {
		return rep.list(opts, units), nil
	}
	if len(opts.Command) == 0 && opts.read == nil {
		return nil, errors.New("no reader to run")
	}
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
	rep.run(ctx, opts, units)
	if note := silentReaderNote(rep, cases); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	return rep, nil
}

func runCase(ctx context.Context, c *vector.Case, opts Options) (res Result) {
	start := time.Now()
	res = Result{ID: c.ID, Level: c.Level, Rules: c.Rules, Requirements: c.Requirements}
	defer func() { res.Seconds = time.Since(start).Round(time.Millisecond).Seconds() }()
	res.Expected = ndjson(c.Sessions)
	if c.Expect == vector.ExpectError {
		res.Expected = "(no sessions, and an error: a non-zero exit status or a line on standard error)"
	}
	root, err := os.MkdirTemp(opts.TempDir, "statusconform-")
	if err != nil {
		return harnessFailure(res, err)
	}
	defer removeAll(root)
	m, err := writeCase(c, root)
	var skip *skipError
	if errors.As(err, &skip) {
		res.Outcome, res.Reason = outcomeSkip, skip.reason
		res.Expected = ""
		return res
	}
	if err != nil {
		return harnessFailure(res, err)
	}
	stopChurn := m.churn()
	defer stopChurn()
	for run := 1; run <= c.Runs; run++ {
		res = judge(ctx, c, m, opts, res)
		if res.Outcome == outcomeFail && c.Runs > 1 {
			res.Reason = fmt.Sprintf("run %d of %d: %s", run, c.Runs, res.Reason)
		}
		if res.Outcome == outcomeFail {
			break
		}
	}
	return res
}

// judge runs the reader once on the materialized case and judges the run.
func judge(ctx context.Context, c *vector.Case, m *materialized, opts Options, res Result) Result {
	var (
		got      []vector.Session
		exit     exitInfo
		readErr  error
		parseErr []string
	)
	if len(opts.Command) > 0 {
		argv := substitute(opts.Command, map[string]string{"dir": m.statusDir, "now": c.NowText})
		r := runCommand(ctx, argv, environ(m.env()), nil, opts.Timeout)
		exit = r.exit
		res.Exit = exit.String()
		res.Stderr = r.stderr.String()
		got, parseErr = parseOutput(r.stdout.Bytes())
		res.Actual = strings.TrimRight(r.stdout.String(), "\n")
	} else {
		got, readErr, exit.timedOut = callReader(ctx, opts.read, m.statusDir, c.Now, opts.Timeout)
		if readErr != nil {
			res.Exit = "error: " + readErr.Error()
		}
		res.Actual = ndjson(got)
	}
	if res.Actual == "" {
		res.Actual = "(no output)"
	}

	fail := func(reason string, details ...string) Result {
		res.Outcome, res.Reason, res.Details = outcomeFail, reason, details
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
	if c.Expect == vector.ExpectError {
		if len(got) > 0 || len(parseErr) > 0 {
			return fail("the reader showed sessions from a status directory it must refuse")
		}
		// R23: a command reports an error by a non-zero exit status or a
		// non-blank line on standard error, a reader in this process by
		// returning one.
		observable := exit.code != 0 || strings.TrimSpace(res.Stderr) != ""
		if len(opts.Command) == 0 {
			observable = readErr != nil
		}
		if !observable {
			return fail("the reader printed nothing and reported no error (R23: a non-zero exit status or a line on standard error): " +
				"to a script, that is an empty listing, not a refused directory")
		}
		res.Outcome = outcomePass
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
	res.Outcome = outcomePass
	return res
}

func harnessFailure(res Result, err error) Result {
	res.Outcome, res.Reason = outcomeFail, "harness error (not the reader's fault, but not a pass): "+err.Error()
	return res
}

// parseOutput reads one session per non-blank line.
func parseOutput(out []byte) ([]vector.Session, []string) {
	var got []vector.Session
	var errs []string
	for i, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := vector.ParseLine(line, false)
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
func callReader(ctx context.Context, f readerFunc, dir string, now time.Time, timeout time.Duration) ([]vector.Session, error, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type out struct {
		s   []vector.Session
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

// commandError says that the command under test cannot be run at all,
// and why; it is an [ErrCannotRun].
type commandError struct{ error }

func (commandError) Is(target error) bool { return target == ErrCannotRun }

func cannotRun(command string, err error) error {
	return commandError{fmt.Errorf("cannot run %s: %w", command, err)}
}

// checkRunnable finds the command the way exec does and reports a
// commandError when it cannot be started: missing, a directory, or not
// executable.
func checkRunnable(name string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return cannotRun(name, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return cannotRun(name, err)
	}
	if fi.IsDir() {
		return cannotRun(name, errors.New("is a directory"))
	}
	return nil
}

// readerCalibrationMargin is how many times the duration of its first,
// timed case a reader is given per case at least.
const readerCalibrationMargin = 10

// calibrationCase is the case the reader is first timed on: one fresh
// session, which every reader must show.
const calibrationCase = "basic/one-session"

type readerCalibration struct {
	took time.Duration
	note string
	err  error // the command cannot be run
}

// calibrateReader runs the reader once on calibrationCase and times it;
// the per-case timeout then grows to readerCalibrationMargin times that
// if it is shorter, so that a slow interpreter on a loaded machine is not
// failed for its start-up. It decides no case.
func calibrateReader(ctx context.Context, cases []*vector.Case, opts Options) (cal readerCalibration) {
	i := slices.IndexFunc(cases, func(c *vector.Case) bool { return c.ID == calibrationCase })
	if i < 0 {
		return cal
	}
	c := cases[i]
	root, err := os.MkdirTemp(opts.TempDir, "statusconform-cal-")
	if err != nil {
		cal.note = "calibration: " + err.Error()
		return cal
	}
	defer removeAll(root)
	m, err := writeCase(c, root)
	if err != nil {
		cal.note = "calibration: " + err.Error()
		return cal
	}
	argv := substitute(opts.Command, map[string]string{"dir": m.statusDir, "now": c.NowText})
	limit := time.Duration(60 * opts.TimeoutScale * float64(time.Second))
	start := time.Now()
	r := runCommand(ctx, argv, environ(m.env()), nil, limit)
	cal.took = time.Since(start)
	switch {
	case errors.Is(r.exit.err, fs.ErrNotExist), errors.Is(r.exit.err, fs.ErrPermission):
		cal.err = cannotRun(opts.Command[0], r.exit.err)
		return cal
	case r.exit.err != nil:
		cal.note = "calibration: the reader could not be run: " + r.exit.err.Error()
	case r.exit.timedOut:
		cal.note = fmt.Sprintf("calibration: the reader did not finish a first case (%s) within %v", c.ID, limit)
		cal.took = 0
	default:
		cal.note = fmt.Sprintf("calibration: a first case (%s) took the reader %v; timeout per case at least %v (%d× that)",
			c.ID, cal.took.Round(time.Millisecond), (cal.took * readerCalibrationMargin).Round(time.Millisecond), readerCalibrationMargin)
	}
	return cal
}

// silentReaderNote explains a run in which the reader printed nothing for
// any case, though cases expect sessions: what is likely wrong.
func silentReaderNote(rep *Report, cases []*vector.Case) string {
	want, silent := 0, 0
	for _, c := range cases {
		if c.Expect != vector.ExpectSessions || len(c.Sessions) == 0 {
			continue
		}
		r, ok := rep.find(c.ID)
		if !ok || r.Outcome == outcomeSkip {
			continue
		}
		want++
		if r.Outcome == outcomeFail && r.Actual == "(no output)" {
			silent++
		}
	}
	if want == 0 || silent < want {
		return ""
	}
	return "the reader printed nothing for every case that expects sessions. Likely causes: it does not list $STATUS_DIR " +
		"(or the {dir} argument); it does not take $STATUSCONFORM_NOW (or {now}) as the current time, so every record looks stale; " +
		"it writes to standard error or a file instead of standard output; or it buffers its output and exits without flushing. " +
		"Run it by hand on a materialized case (statusconform materialize DIR) to see."
}
