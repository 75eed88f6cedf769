package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// heartbeatSlack is how late past 10 s a heartbeat may come: a timer in a
// running process is late by about what an answer takes, not by how slowly
// the process started, so the slack follows the calibrated answer (four
// times it, from 1 s to 2 s) times --timeout-scale, and a 15 s heartbeat
// fails unless --timeout-scale says otherwise.
func (o *Options) heartbeatSlack() time.Duration {
	slack := min(max(time.Second, calibrationMargin*o.answered), 2*time.Second)
	return time.Duration(float64(slack) * max(1, o.userScale))
}

// scenario runs the publisher once and decides one or more checks.
type scenario struct {
	checks []Result // without outcomes
	// root is why the scenario needs root, or "".
	root string
	// long scenarios mostly wait; they run outside the parallel bound.
	long bool
	run  func(p *pubRun, id string) // id: its first check
}

// publisherQuotes are the requirements the checks quote, from SPEC.md
// (go test checks each against it).
var publisherQuotes = map[string]string{
	"E1":  "E1. A publisher writes compact JSON (no white space between tokens), the keys in the order of the table above, followed by one newline.",
	"E2":  "E2. Strings are escaped as `JSON.stringify` escapes them: `\"` and `\\` with a backslash, `\\b \\f \\n \\r \\t` in short form, other characters below U+0020 as `\\u00XX` (lowercase hex); nothing else is escaped: no HTML escaping of `<`, `>`, `&`, and no escaping of U+2028/U+2029 (this spec).",
	"F1":  "F1. `task` is `null` when there is no title to show: no task in progress, or one whose sanitized title is empty, or task summaries are disabled.",
	"L2":  "L2. The *status directory* is `<config home>/agent-status/`.",
	"L4":  "L4. Publishers ignore `$STATUS_DIR` (this spec): a variable meant for readers must not redirect where sessions publish.",
	"L5":  "L5. Directories above the config home are trusted and MAY be symbolic links.",
	"N1":  "N1. A session's file name is the lowercase hexadecimal SHA-256 of the session id's UTF-8 bytes, followed by `.json` (69 characters in all).",
	"N2":  "N2. A session id MUST be non-empty, valid UTF-8, at most 1024 bytes, and free of C0 and C1 control characters and DEL (this spec). A publisher MUST refuse any other id with a clear error and write nothing.",
	"P1":  "P1. A publisher writes `<status directory>/<name>` (L1–L4, N1) for each session, every key of §4, encoded as §4.3.",
	"P2":  "P2. It refuses (writes nothing) when the config home is a symbolic link, is not a directory, is owned by another account, or is writable by group or others.",
	"P3":  "P3. It creates a missing status directory with mode 0700 whatever the umask. It creates a missing config home too, 0700, with any missing parents (this spec).",
	"P4":  "P4. It refuses an existing status directory that is a symbolic link, is not a directory, is owned by another account, or has any group or other permission bit. It never changes the mode of a directory it did not create.",
	"P5":  "P5. It refuses to replace an existing status file that is a symbolic link, is not a regular file, has more than one hard link, or is owned by another account (this spec, beyond the published page's symlink rule). The file a refused link points to is left untouched.",
	"P6":  "P6. Status files have mode 0600 whatever the umask.",
	"P7":  "P7. It runs the checks P2–P5 before every write, not once at start (this spec): directories can change while a session runs.",
	"P8":  "P8. It replaces the file atomically: it writes the whole record to a temporary file in the status directory itself, whose name starts with a dot (readers ignore it, R3), then renames it over the status file. A reader therefore sees the old record or the new one, never a mix. No temporary file is left behind after a write, failed or not.",
	"P9":  "P9. It rewrites the file at least every 10 s while the session lives (the heartbeat), with a fresh `updatedAt`.",
	"P10": "P10. It coalesces bursts of changes: the first change after a quiet period is written at once; further changes within the coalescing window (100 ms by default in this toolkit) are written together at its end, the last state winning (this spec).",
	"P11": "P11. On shutdown it removes the file, but only if it is still the file it wrote last (same device and inode); a file replaced by someone else is left alone (this spec).",
	"P12": "P12. The title it writes is sanitized (§7); `task` is `null` when the sanitized title is empty. `cwd` is absolute. `pid` is the process the session lives in (for wrappers: the agent's process, not the wrapper's).",
	"P13": "P13. A failed or refused write never takes the host program down: it is reported (each distinct failure once) and retried at the next heartbeat.",
	"S2":  "S2. A publisher MUST write one of these three values (this spec).",
	"T1":  "T1. A publisher writes `updatedAt` in UTC with exactly three fractional digits: `YYYY-MM-DDTHH:MM:SS.sssZ`, as JavaScript's `Date.prototype.toISOString()` does for years 0000–9999. Milliseconds are truncated, not rounded.",
	"W1":  "W1. The publisher is started with a session id, an agent name and a config home (for `statuspub serve`: `--session`, `--agent`, `--config-home` or `--dir`; for the conformance suite also the environment variables `STATUSCONFORM_SESSION`, `STATUSCONFORM_AGENT`, `STATUSCONFORM_CONFIG_HOME`). It publishes at once: state `idle` (or `--state`), no task (or `--title`).",
	"Y1":  "Y1. `waitingFor` is written only while `state` is `blocked`, `ended` only while it is `idle` after a turn; a publisher writes each after `updatedAt`",
	"Y2":  "Y2. `since` is when the wait began (T1), or `null` when unknown. A wait goes when the state leaves `blocked`: approval, denial, answer, interrupt.",
	"Y3":  "Y3. `at` is when the turn ended (T1), or `null`. It goes at the next prompt: when the state leaves `idle`.",
	"Y4":  "Y4. A publisher writes the kinds and reasons above; `tool` and `detail` go through the title sanitizer (§7) with a limit of 200 UTF-16 units in place of 4096 (the same cut, and the same dropped last cluster when it cuts), `kind` and `reason` with 64; an empty result is `null`, and a `kind` or `reason` that sanitizes to nothing means the key is left out.",
	"Y5":  "Y5. A user who does not want that in status files turns it off: `statuspub --no-detail` (`set`, `serve` and every hook adapter), or `AGENTSTATUS_NO_DETAIL=1` in the environment (hooks run with the agent's environment, so one export covers every agent; any value but empty or `0`), or `statusfile.Options.NoDetail` in Go. `detail` is then always `null`; `kind`, `tool` and `reason` are still written. A publisher driven by the conformance suite (§11) takes both: the suite runs it once with `--no-detail` added after its other arguments, and once each with `AGENTSTATUS_NO_DETAIL` set to `1`, `0` and the empty string (this spec).",
	"W2":  "W2. It reads standard input as lines, each one JSON object with `state` (a string; `null` is malformed) and/or `title` (a string, or `null` to clear the task). Keys that are absent leave that field as it was; other keys are ignored.",
	"W3":  "W3. For every input line it writes exactly one line to standard output, in order, after the change is on disk or has failed: `{\"ok\":true}` or `{\"ok\":false,\"error\":\"<message>\"}`. A malformed line (not a JSON object, a state outside the vocabulary, a title of another type) gets `{\"ok\":false,...}` and changes nothing. A refused write (an unsafe directory) is an `ok:false` answer, not an exit; the publisher keeps running and keeps answering. Blank lines are ignored without an answer.",
	"W4":  "W4. On end of input, SIGTERM or SIGINT it removes its file (P11) and exits with status 0.",
	"W5":  "W5. It heartbeats (P9) whether or not lines arrive.",
}

// check is a hardened check: one of this toolkit's rules.
func check(id string, rules ...string) Result {
	c := Result{ID: id, Level: vector.Hardened, Rules: rules}
	for _, r := range rules {
		c.Requirements = append(c.Requirements, publisherQuotes[r])
	}
	return c
}

// coreCheck is a check of what the published page requires of every
// publisher.
func coreCheck(id string, rules ...string) Result {
	c := check(id, rules...)
	c.Level = vector.Core
	return c
}

// checks lists every publisher check, in id order.
func checks() []Result {
	var out []Result
	for _, s := range scenarios() {
		out = append(out, s.checks...)
	}
	slices.SortFunc(out, func(a, b Result) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// RunPublisher drives the publisher under test ([Options].Command) through
// every selected check, speaking the line protocol of SPEC.md §11. A
// scenario starts the publisher once and decides one or more checks;
// scenarios run in parallel, and the slowest (the heartbeat) takes about
// 20 s against a publisher that heartbeats every 10 s. The deadlines (2 s)
// stretch to 4 times what a first, timed start of the publisher took.
func RunPublisher(ctx context.Context, opts Options) (*Report, error) {
	opts.defaults()
	var units []unit
	for _, s := range scenarios() {
		units = append(units, unit{checks: s.checks, long: s.long, run: func(ctx context.Context, opts Options, release func()) []Result {
			return runScenario(ctx, s, opts, release)
		}})
	}
	rep := &Report{Suite: "publisher", Command: opts.Command, Level: opts.Level, Started: time.Now()}
	if opts.List {
		return rep.list(opts, units), nil
	}
	if len(opts.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	if err := checkRunnable(opts.Command[0]); err != nil {
		return nil, err
	}
	opts.userScale = opts.TimeoutScale
	if !opts.NoCalibrate && unixLike {
		cal := calibrate(ctx, opts)
		rep.Calibration = cal.note
		opts.TimeoutScale *= cal.factor
		opts.answered = cal.answered
	}
	rep.TimeoutScale = opts.TimeoutScale
	rep.run(ctx, opts, units)
	return rep, nil
}

// runScenario runs s and returns a result for each of its checks; a check
// not decided when the scenario stopped early fails.
func runScenario(ctx context.Context, s scenario, opts Options, release func()) []Result {
	start := time.Now()
	results := slices.Clone(s.checks)
	skip := func(why string) []Result {
		for i := range results {
			results[i].Outcome, results[i].Reason = outcomeSkip, why
		}
		return results
	}
	if !unixLike {
		return skip("the publisher harness needs a Unix system (modes, umasks, signals)")
	}
	if s.root != "" && !isRoot() {
		return skip(s.root + "; run as root to include this check")
	}
	p := newPubRun(ctx, opts, results)
	if s.long {
		// A long scenario mostly waits: once its publisher has
		// published, it gives its place to another.
		p.published = release
	}
	p.guard(func() {
		p.setup()
		s.run(p, s.checks[0].ID)
		// A scenario that returns has decided its checks: those that
		// did not fail pass.
		for _, r := range results {
			p.pass(r.ID)
		}
	})
	// The first check that failed on its own carries the process's
	// stderr and timeline; checks left undecided point at it.
	first := slices.IndexFunc(results, func(r Result) bool { return r.Outcome == outcomeFail })
	for i := range results {
		r := &results[i]
		if r.Outcome == "" {
			r.Outcome, r.Reason = outcomeFail, "not decided: "+p.stop
			if first < 0 {
				first = i
			} else {
				r.Reason += " (see " + results[first].ID + ")"
			}
		}
		r.Seconds = time.Since(start).Round(time.Millisecond).Seconds()
	}
	if first >= 0 {
		r := &results[first]
		r.Stderr, r.Exit = p.stderrText(time.Second), p.exitString()
		p.mu.Lock()
		r.Timeline = slices.Clone(p.timeline)
		p.mu.Unlock()
	}
	return results
}

// calibration is what a first, timed run of the publisher under test
// found: how much its deadlines must stretch.
type calibration struct {
	factor   float64 // at least 1
	answered time.Duration
	note     string
}

// calibrationMargin is how many times its own measured speed a publisher
// is given before a deadline counts as missed: scenarios run side by side
// and the machine may be busier than during the calibration.
const calibrationMargin = 4

// calibrate starts the publisher once in a private directory (config home
// present), and times its first record, the answer to one change and its
// exit at the end of its input. The deadlines of the run (2 s each) then
// stretch to calibrationMargin times the slowest of these, so that an
// interpreter that starts slowly on a loaded machine is judged on what it
// does, not on how fast it starts. It never fails a check: a publisher
// that does not publish here fails the scenarios that need it.
func calibrate(ctx context.Context, opts Options) (cal calibration) {
	cal.factor = 1
	limit := time.Duration(20 * opts.TimeoutScale * float64(time.Second))
	p := newPubRun(ctx, opts, nil)
	if p.guard(func() {
		p.setup()
		p.must(mkdir(p.home, privateDir))
		p.start()
		// Any entry but a dot-file counts, under any name and in $STATUS_DIR
		// too: getting those wrong is for the checks to say.
		appeared := func() bool {
			for _, d := range []string{p.statusDir(), p.decoy} {
				if names, _ := dirNames(d, func(n string) bool { return !strings.HasPrefix(n, ".") }); len(names) > 0 {
					return true
				}
			}
			return false
		}
		if !p.poll(limit, true, appeared) {
			cal.note = fmt.Sprintf("calibration: the publisher did not publish within %v (%s); deadlines not stretched", limit, p.exitString())
			return
		}
		startup := time.Since(p.started)
		sent := time.Now()
		if err := p.tryWrite(`{"state":"working"}`); err != nil {
			cal.note = fmt.Sprintf("calibration: could not write to the publisher: %v", err)
			return
		}
		if _, err := p.next(limit); err == nil {
			cal.answered = time.Since(sent)
		}
		stopped := time.Now()
		p.closeStdin()
		var exited time.Duration
		if p.waitExit(limit) {
			exited = time.Since(stopped)
		}
		slowest := max(startup, cal.answered, exited)
		cal.factor = max(1, calibrationMargin*slowest.Seconds()/2)
		cal.note = fmt.Sprintf("calibration: first record %v after the start, answer %v after a change, exit %v after the end of input; deadlines ×%.2f (%d× the slowest, at least the 2 s of the suite)",
			startup.Round(time.Millisecond), cal.answered.Round(time.Millisecond), exited.Round(time.Millisecond), cal.factor, calibrationMargin)
	}) {
		cal.note = "calibration: " + p.stop + "; deadlines not stretched"
	}
	return cal
}
