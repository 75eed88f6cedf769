package conformance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// commandError says that the command under test cannot be run at all; it
// is an [ErrCannotRun], and wraps why.
type commandError struct {
	command string
	err     error
}

func (e *commandError) Error() string {
	return fmt.Sprintf("cannot run %s: %v", e.command, e.err)
}

func (e *commandError) Unwrap() error { return e.err }

func (e *commandError) Is(target error) bool { return target == ErrCannotRun }

// checkRunnable finds the command the way exec does and reports a
// *commandError when it cannot be started: missing, a directory, or not
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
		return &commandError{name, err}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return &commandError{name, err}
	}
	if fi.IsDir() {
		return &commandError{name, errors.New("is a directory")}
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
	var c *vector.Case
	for _, x := range cases {
		if x.ID == calibrationCase {
			c = x
		}
	}
	if c == nil {
		return cal
	}
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
	r := runCommand(ctx, argv, environ(m.env()), limit)
	cal.took = time.Since(start)
	switch {
	case errors.Is(r.exit.err, fs.ErrNotExist), errors.Is(r.exit.err, fs.ErrPermission):
		cal.err = &commandError{opts.Command[0], r.exit.err}
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
