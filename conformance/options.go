package conformance

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// Options configure a run of any of the suites: [RunReader],
// [RunPublisher] and [RunHooks]. Each field says which suites use it; the
// zero value of each is the default.
type Options struct {
	// Command is the implementation under test, CMD then ARGS, run
	// without a shell. In ARGS, for a reader {dir} becomes the status
	// directory and {now} the time the reader must take as now; for a
	// publisher {home} becomes the config home, {session} the session id
	// and {agent} the agent name (also in STATUSCONFORM_CONFIG_HOME,
	// STATUSCONFORM_SESSION and STATUSCONFORM_AGENT); for a hook adapter
	// {home} becomes the config home (also in $GENTLE_PI_CONFIG_HOME and
	// $STATUSCONFORM_CONFIG_HOME).
	Command []string
	// Level selects the reader cases and publisher checks: "core" runs
	// what the published page requires (for a publisher, with the config
	// home already present); "hardened", the default, adds SPEC.md's
	// rules.
	Level string
	// Run selects cases, checks and traces by id with shell-like globs:
	// "*" matches any run of characters, "/" included, and "?" any one
	// character. All by default.
	Run []string
	// Skip lists ids (or globs) not to run: they are reported as SKIP, and
	// a publisher scenario whose checks are all skipped does not run.
	// Reader and publisher.
	Skip []string
	// ExpectedFailures lists ids (or globs) of the implementation's known
	// failures (see [ReadExpectedFailures]): a FAIL among them is XFAIL
	// and does not fail the run, a PASS is XPASS and does.
	ExpectedFailures []string
	// Timeout bounds a reader's run on one case (5 s by default, and at
	// least 10 times what a first, timed case took it) and a hook
	// adapter's on one step (5 s by default).
	Timeout time.Duration
	// TimeoutScale multiplies every deadline of the reader and publisher
	// suites, after calibration; 1 by default. A publisher's heartbeat
	// interval is the protocol's and does not scale, only its slack.
	TimeoutScale float64
	// Parallel bounds the reader cases or publisher scenarios run at once;
	// by default the number of processors (GOMAXPROCS). A long publisher
	// scenario (the heartbeat) holds its place only until its publisher
	// has published, then mostly waits. Hook and ACP traces run one at a
	// time by default; each has its own config home, so Parallel may run
	// several side by side.
	Parallel int
	// NoCalibrate turns off the first timed run that stretches the
	// deadlines for a reader or publisher slower to start than they
	// allow for.
	NoCalibrate bool
	// TempDir is where cases, scenarios and traces make their
	// directories; the system's by default.
	TempDir string
	// Agent selects the hook traces of one agent ("claude", "codex",
	// "gemini", "copilot", "qwen"); all by default.
	Agent string
	// Env is added to a hook adapter's environment.
	Env []string
	// List runs nothing: the report has one result without an outcome
	// for every case, check or trace that Level, Run and Agent select,
	// with its id, level, rules and requirements (a trace's trap).
	List bool

	// read is a reader under test in this process, used when Command is
	// empty (the suite's own tests).
	read readerFunc
	// adapt is a hook adapter under test in this process, used when
	// Command is empty (the suite's own tests): it handles one payload
	// for the config home home, as a command that exits 0 does.
	adapt func(home string, payload []byte) error
	// What calibration found: how long the reader's first case took; the
	// TimeoutScale given, and how long a publisher's answer took.
	calibrated time.Duration
	userScale  float64
	answered   time.Duration
}

// ErrCannotRun is the error, wrapped, of a run whose command cannot be
// run at all (missing, a directory, not executable): the suite reports
// that once instead of failing every case.
var ErrCannotRun = errors.New("cannot run the command under test")

// readerFunc is a reader under test that runs in the harness's own
// process: it lists statusDir as of now and returns the live sessions. For
// a directory it must refuse (SPEC.md R2) it returns an error.
type readerFunc func(ctx context.Context, statusDir string, now time.Time) ([]vector.Session, error)

// defaults fills in the defaults of the reader and publisher suites.
func (o *Options) defaults() {
	if o.Level == "" {
		o.Level = vector.Hardened
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.TimeoutScale < 1 {
		o.TimeoutScale = 1
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
}

// selects reports whether the run includes the case or check id of
// level, skipped or not.
func (o *Options) selects(id, level string) bool {
	return vector.Includes(o.Level, level) && selector(o.Run).match(id)
}

// unit is what a suite runs as one: a reader case, a publisher scenario
// or a hook trace, which decides one or more checks.
type unit struct {
	checks []Result // the checks it decides, without outcomes
	// A long unit mostly waits: it holds its place among the Parallel
	// running only until it calls release.
	long bool
	run  func(ctx context.Context, opts Options, release func()) []Result
}

// list is the report of a run with List set: what would run.
func (r *Report) list(o Options, units []unit) *Report {
	for _, u := range units {
		for _, c := range u.checks {
			if o.selects(c.ID, c.Level) {
				r.Results = append(r.Results, c)
			}
		}
	}
	r.finish()
	return r
}

// run runs every unit that decides a selected check, at most o.Parallel
// at once and the long ones first, and reports on each selected check; one
// that --skip leaves out is SKIP.
func (r *Report) run(ctx context.Context, o Options, units []unit) {
	// The long ones first: they set the run's length.
	long := slices.DeleteFunc(slices.Clone(units), func(u unit) bool { return !u.long })
	units = append(long, slices.DeleteFunc(units, func(u unit) bool { return u.long })...)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Parallel)
	skip := selector(o.Skip)
	for _, u := range units {
		wanted := false
		for _, c := range u.checks {
			switch {
			case !o.selects(c.ID, c.Level):
			case skip.first(c.ID) != "":
				c.Outcome, c.Reason = outcomeSkip, "skipped by --skip "+skip.first(c.ID)
				mu.Lock()
				r.Results = append(r.Results, c)
				mu.Unlock()
			default:
				wanted = true
			}
		}
		if !wanted {
			continue
		}
		sem <- struct{}{}
		release := sync.OnceFunc(func() { <-sem })
		wg.Go(func() {
			defer release()
			results := u.run(ctx, o, release)
			mu.Lock()
			defer mu.Unlock()
			for _, x := range results {
				if o.selects(x.ID, x.Level) && skip.first(x.ID) == "" {
					r.Results = append(r.Results, x)
				}
			}
		})
	}
	wg.Wait()
	r.finish()
	r.applyExpectedFailures(o.ExpectedFailures)
}

// runTraces is the run of a suite of traces (acp, hooks): one unit a
// trace, deciding the one check that check(tr) names, which run(tr) judges.
// The traces run one at a time unless Parallel says otherwise, and none
// starts once the run is cancelled. With List set it is the list of what
// would run; without a command, the error noCommand.
func runTraces[T any](ctx context.Context, suite string, opts Options, traces []T, check func(T) Result, run func(context.Context, T, Options) Result, noCommand string) (*Report, error) {
	parallel := max(opts.Parallel, 1)
	opts.defaults()
	opts.Parallel = parallel
	var units []unit
	for _, tr := range traces {
		units = append(units, unit{checks: []Result{check(tr)},
			run: func(ctx context.Context, opts Options, _ func()) []Result {
				if ctx.Err() != nil {
					return nil
				}
				return []Result{run(ctx, tr, opts)}
			}})
	}
	rep := &Report{Suite: suite, Command: opts.Command, Started: time.Now()}
	if opts.List {
		return rep.list(opts, units), nil
	}
	if len(opts.Command) == 0 {
		return nil, errors.New(noCommand)
	}
	rep.Started = time.Now().UTC()
	rep.run(ctx, opts, units)
	return rep, nil
}
