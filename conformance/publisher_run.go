package conformance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/statusfile"
)

// errNoAnswerYet is a missed deadline for an answer.
var errNoAnswerYet = errors.New("no answer")

// abort stops a scenario early (its undecided checks then fail).
type abort struct{}

// answer is one line a publisher wrote to standard output.
type answer struct {
	raw string
	ok  bool
	msg string // the error message of an ok:false answer
	bad string // why the line is not an answer, if it is not
}

// pubRun is one run of the publisher under test and the checks it decides.
type pubRun struct {
	ctx     context.Context
	opts    Options
	results []Result

	base    string // the scenario's private directory
	home    string // the config home given to the publisher
	session string
	agent   string
	umask   int // for the child; -1: the harness's own
	decoy   string

	cmd     *exec.Cmd
	stdin   *os.File
	answers chan answer
	stderr  *limitedBuffer
	// stderrDone is closed once standard error reached its end (every
	// process holding it exited).
	stderrDone chan struct{}
	exited     chan struct{}
	exit       exitInfo
	started    time.Time
	mu         sync.Mutex
	timeline   []string
	stop       string // why the scenario stopped early
	// published is called once the publisher has published its first
	// record.
	published func()
	// args are added after the command's own arguments, and env to its
	// environment (Y5's switch: --no-detail, AGENTSTATUS_NO_DETAIL).
	args []string
	env  map[string]string
}

// The session and agent a scenario publishes as, unless it says otherwise.
const (
	defaultSession = "statusconform-session"
	defaultAgent   = "statusconform-agent"
)

func newPubRun(ctx context.Context, opts Options, results []Result) *pubRun {
	return &pubRun{ctx: ctx, opts: opts, results: results, session: defaultSession, agent: defaultAgent,
		umask: -1, stderr: &limitedBuffer{max: 64 << 10}, started: time.Now(), published: func() {}}
}

// setup makes the scenario's directories. Like every step, it aborts the
// scenario (a harness error) when it cannot.
func (p *pubRun) setup() {
	base, err := os.MkdirTemp(p.opts.TempDir, "statusconform-pub-")
	if err == nil {
		// Resolve links above it (a temporary directory may be reached
		// through one, e.g. /tmp on macOS) so that paths compare equal.
		if real, rerr := filepath.EvalSymlinks(base); rerr == nil {
			base = real
		}
		err = os.Chmod(base, privateDir)
	}
	p.must(err)
	p.base = base
	p.home = filepath.Join(base, "home")
	p.decoy = filepath.Join(base, "decoy", statusName)
	p.must(os.MkdirAll(p.decoy, privateDir))
}

// d scales a deadline.
func (p *pubRun) d(seconds float64) time.Duration {
	return time.Duration(seconds * p.opts.TimeoutScale * float64(time.Second))
}

func (p *pubRun) event(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timeline = append(p.timeline, fmt.Sprintf("+%06.3fs ", time.Since(p.started).Seconds())+fmt.Sprintf(format, args...))
}

func (p *pubRun) result(id string) *Result {
	i := slices.IndexFunc(p.results, func(r Result) bool { return r.ID == id })
	if i < 0 {
		panic("conformance: no check " + id + " in this scenario")
	}
	return &p.results[i]
}

// fail records that check id failed, with one more detail.
func (p *pubRun) fail(id, format string, args ...any) {
	r := p.result(id)
	msg := fmt.Sprintf(format, args...)
	if r.Outcome != outcomeFail {
		r.Outcome, r.Reason = outcomeFail, msg
	} else {
		r.Details = append(r.Details, msg)
	}
	p.event("FAIL %s: %s", id, msg)
}

// expect fails check id unless ok, and reports ok.
func (p *pubRun) expect(ok bool, id, format string, args ...any) bool {
	if !ok {
		p.fail(id, format, args...)
	}
	return ok
}

// pass marks check id passed unless it failed already.
func (p *pubRun) pass(id string) {
	if r := p.result(id); r.Outcome == "" {
		r.Outcome = outcomePass
	}
}

func (p *pubRun) note(id, format string, args ...any) {
	r := p.result(id)
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

func (p *pubRun) setExpected(id, expected, actual string) {
	r := p.result(id)
	r.Expected, r.Actual = expected, actual
}

// stopNow ends the scenario: every check not decided yet fails with why.
func (p *pubRun) stopNow(why string) {
	p.stop = why
	p.event("stopped: %s", why)
	panic(abort{})
}

// harnessError stops the scenario for a failure of the harness itself,
// which is never a pass.
func (p *pubRun) harnessError(err error) {
	p.stopNow("harness error (not the publisher's fault, but not a pass): " + err.Error())
}

func (p *pubRun) must(err error) {
	if err != nil {
		p.harnessError(err)
	}
}

// statusDir is where the publisher must publish (L2).
func (p *pubRun) statusDir() string { return filepath.Join(p.home, statusName) }

// statusPath is the status file of the session (N1).
func (p *pubRun) statusPath() string { return filepath.Join(p.statusDir(), fileName(p.session)) }

// start starts the publisher under test.
func (p *pubRun) start() {
	vars := map[string]string{"home": p.home, "session": p.session, "agent": p.agent}
	argv := append(substitute(p.opts.Command, vars), p.args...)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	env := map[string]string{
		"STATUSCONFORM_CONFIG_HOME": p.home,
		"STATUSCONFORM_SESSION":     p.session,
		"STATUSCONFORM_AGENT":       p.agent,
		"GENTLE_PI_CONFIG_HOME":     p.home,
		// A decoy: publishers must ignore STATUS_DIR (L4).
		"STATUS_DIR": p.decoy,
	}
	// The harness's own AGENTSTATUS_NO_DETAIL (Y5) never reaches the
	// publisher: only the checks of Y5 set it.
	p.cmd.Env = slices.DeleteFunc(environ(env), func(kv string) bool { return strings.HasPrefix(kv, noDetailEnv+"=") })
	for _, k := range slices.Sorted(maps.Keys(p.env)) {
		p.cmd.Env = append(p.cmd.Env, k+"="+p.env[k])
	}
	setProcessGroup(p.cmd)
	// Standard input, output and error, each through a pipe of our own.
	// Standard error is not an io.Writer: with a Writer, cmd.Wait would
	// also wait for every process that inherited it (a daemon the
	// publisher started) before saying the publisher exited.
	var pipes [6]*os.File
	for i := 0; i < len(pipes); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range pipes[:i] {
				f.Close()
			}
			p.harnessError(err)
		}
		pipes[i], pipes[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	p.stderrDone = make(chan struct{})
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	p.stdin = inW
	p.answers = make(chan answer, 1024)
	p.exited = make(chan struct{})
	err := startCommand(p.cmd, p.umask)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		p.exit.err = err
		close(p.exited)
		p.stopNow("the publisher could not be started: " + err.Error())
	}
	umask := "the harness's"
	if p.umask >= 0 {
		umask = fmt.Sprintf("%03o", p.umask)
	}
	p.event("started pid %d (umask %s): %s", p.cmd.Process.Pid, umask, strings.Join(argv, " "))
	go p.readAnswers(outR)
	go func() {
		err := p.cmd.Wait()
		// What the publisher wrote to stderr before exiting is usually
		// read before its exit is told; a process it left holding the
		// pipe delays that by a moment at most. Checks that judge
		// standard error wait for it with stderrText.
		select {
		case <-p.stderrDone:
		case <-time.After(100 * time.Millisecond):
		}
		p.exit = exitOf(p.cmd, err)
		p.event("exited: %s", p.exit)
		close(p.exited)
	}()
}

func (p *pubRun) readAnswers(r *os.File) {
	defer close(p.answers)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			a := parseAnswer(strings.TrimRight(line, "\r\n"))
			p.event("< %s", truncate(a.raw, 200))
			p.answers <- a
		}
		if err != nil {
			return
		}
	}
}

func parseAnswer(line string) answer {
	a := answer{raw: line}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil || m == nil {
		a.bad = "not a JSON object"
		return a
	}
	switch string(m["ok"]) {
	case "true":
		a.ok = true
	case "false":
		if err := json.Unmarshal(m["error"], &a.msg); err != nil {
			a.bad = `ok:false without an "error" string`
		}
	default:
		a.bad = `no "ok": true or false`
	}
	return a
}

// stderrText returns what the publisher wrote to standard error, waiting
// up to timeout for the pipe to reach its end (on a loaded machine the
// copy can lag behind the exit).
func (p *pubRun) stderrText(timeout time.Duration) string {
	if p.stderrDone != nil {
		select {
		case <-p.stderrDone:
		case <-time.After(timeout):
		}
	}
	return p.stderr.String()
}

// running reports whether the publisher is still running.
func (p *pubRun) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// write sends one line (a newline is added) without waiting for its
// answer; it stops the scenario if the line cannot be written.
func (p *pubRun) write(line string) {
	if err := p.tryWrite(line); err != nil {
		p.stopNow(fmt.Sprintf("could not write to the publisher's standard input: %v (%s)", err, p.exitString()))
	}
}

func (p *pubRun) tryWrite(line string) error {
	p.event("> %s", truncate(line, 200))
	p.stdin.SetWriteDeadline(time.Now().Add(p.d(5)))
	_, err := p.stdin.Write([]byte(line + "\n"))
	return err
}

// next waits for the next answer.
func (p *pubRun) next(timeout time.Duration) (answer, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a, ok := <-p.answers:
		if !ok {
			select {
			case <-p.exited:
			case <-t.C:
				return answer{}, fmt.Errorf("no answer: the publisher closed its standard output and did not exit within %v", timeout)
			case <-p.ctx.Done():
				return answer{}, p.ctx.Err()
			}
			return answer{}, fmt.Errorf("no answer: the publisher closed its standard output (%s)", p.exitString())
		}
		if a.bad != "" {
			return a, fmt.Errorf("the answer %q is %s", truncate(a.raw, 200), a.bad)
		}
		return a, nil
	case <-t.C:
		return answer{}, fmt.Errorf("%w within %v (W3: an answer comes once the change is on disk or has failed)", errNoAnswerYet, timeout)
	case <-p.ctx.Done():
		return answer{}, p.ctx.Err()
	}
}

// send writes a line and waits for its answer; a missing or malformed
// answer fails check id and stops the scenario.
func (p *pubRun) send(id, line string) answer {
	p.write(line)
	deadline := p.d(2)
	sent := time.Now()
	a, err := p.next(deadline)
	if err != nil && errors.Is(err, errNoAnswerYet) {
		// Find out how late it is, to tell a slow publisher from one
		// that never answers.
		if late, lerr := p.next(2 * deadline); lerr == nil {
			err = fmt.Errorf("the answer %s came %v after the line, %v past the deadline of %v%s",
				truncate(late.raw, 100), since(sent), since(sent)-deadline, deadline, p.scaleHint(since(sent), deadline))
		} else {
			err = fmt.Errorf("%w; none came within %v more either", err, 2*deadline)
		}
	}
	if err != nil {
		p.fail(id, "after %s: %v", truncate(line, 100), err)
		p.stopNow(err.Error())
	}
	return a
}

// lateness is called when wait(deadline) failed for something that
// started at start: it waits twice as long again, and says how late it
// came, or that it did not.
func (p *pubRun) lateness(start time.Time, deadline time.Duration, wait func(time.Duration) bool) string {
	if wait(2 * deadline) {
		took := since(start)
		return fmt.Sprintf(" (it came %v after, %v past the deadline%s)", took, took-deadline, p.scaleHint(took, deadline))
	}
	return fmt.Sprintf(" (nor within %v more)", 2*deadline)
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// scaleHint suggests a --timeout-scale under which took would have met
// deadline.
func (p *pubRun) scaleHint(took, deadline time.Duration) string {
	if deadline <= 0 {
		return ""
	}
	need := p.opts.userScale * float64(took) / float64(deadline) * 1.5
	return fmt.Sprintf(" (on a busy machine or with a slow interpreter, rerun with --timeout-scale %.0f)", math.Ceil(need))
}

// sendOK sends a line that must be answered ok:true.
func (p *pubRun) sendOK(id, line string) {
	if a := p.send(id, line); !a.ok {
		p.fail(id, "%s was answered %s, want {\"ok\":true}", truncate(line, 100), a.raw)
		p.stopNow("a change was refused")
	}
}

// change sends a line that must be answered ok:true, then reads the
// record; one that cannot be read fails check id.
func (p *pubRun) change(id, line string) (statusfile.Status, []byte, bool) {
	p.sendOK(id, line)
	rec, data, err := p.readRecord()
	return rec, data, p.expect(err == nil, id, "after %s was answered: %v", line, err)
}

func (p *pubRun) closeStdin() {
	p.event("closed standard input")
	p.stdin.Close()
}

func (p *pubRun) signal(name string) {
	p.event("sent SIG%s", name)
	p.must(p.cmd.Process.Signal(map[string]os.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[name]))
}

// waitExit waits up to timeout for the publisher to exit by itself.
func (p *pubRun) waitExit(timeout time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(timeout):
		return false
	case <-p.ctx.Done():
		p.stopNow("the run was cancelled")
		return false
	}
}

// pause waits for d, or ends the scenario when the run is cancelled (a
// signal to statusconform), so that no wait outlives the run.
func (p *pubRun) pause(d time.Duration) {
	select {
	case <-time.After(d):
	case <-p.ctx.Done():
		p.stopNow("the run was cancelled")
	}
}

func (p *pubRun) exitString() string {
	if p.cmd == nil {
		return "not started"
	}
	if p.running() {
		return "still running"
	}
	return p.exit.String()
}

// guard runs f, then kills what is left of the publisher and removes the
// scenario's directory; it reports whether f stopped early (stopNow).
func (p *pubRun) guard(f func()) (stopped bool) {
	defer func() {
		if p.cmd != nil && p.cmd.Process != nil {
			if p.running() {
				p.event("killed by the harness at the end of the scenario")
			}
			killGroup(p.cmd)
			<-p.exited
			p.stdin.Close()
		}
		if p.base != "" {
			removeAll(p.base)
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abort); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	f()
	return false
}

// readRecord reads and decodes the status file, without following a link.
func (p *pubRun) readRecord() (statusfile.Status, []byte, error) {
	path := p.statusPath()
	fi, err := os.Lstat(path)
	if err != nil {
		return statusfile.Status{}, nil, err
	}
	if !fi.Mode().IsRegular() {
		return statusfile.Status{}, nil, fmt.Errorf("%s is not a regular file (%v)", filepath.Base(path), fi.Mode().Type())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return statusfile.Status{}, nil, err
	}
	rec, err := statusfile.Decode(data)
	return rec, data, err
}

// poll checks done every 10 ms until it reports true, or timeout passes,
// or (with whileRunning) the publisher exits; it reports the last answer.
func (p *pubRun) poll(timeout time.Duration, whileRunning bool, done func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) || whileRunning && !p.running() {
			return false
		}
		p.pause(10 * time.Millisecond)
	}
	return true
}

// waitRecord polls the status file until it holds a valid record, or
// timeout passes; it returns the last record read and why it is not one.
func (p *pubRun) waitRecord(timeout time.Duration) (rec statusfile.Status, data []byte, err error) {
	p.poll(timeout, true, func() bool {
		rec, data, err = p.readRecord()
		return err == nil
	})
	return rec, data, err
}

// waitGone polls until the status file is gone.
func (p *pubRun) waitGone(timeout time.Duration) bool {
	return p.poll(timeout, false, func() bool {
		_, err := os.Lstat(p.statusPath())
		return errors.Is(err, fs.ErrNotExist)
	})
}

// startAndWait starts the publisher and waits for its first record (W1),
// failing check id when it does not come, after diagnose (if not nil) had
// its say.
func (p *pubRun) startAndWait(id string, diagnose func()) (statusfile.Status, []byte) {
	p.start()
	rec, data, err := p.waitRecord(p.d(2))
	if err != nil {
		if diagnose != nil {
			diagnose()
		}
		p.fail(id, "%s", p.noRecord(err))
		p.stopNow("the publisher did not publish")
	}
	p.event("file: %s", describe(rec))
	p.published()
	return rec, data
}

// startInHome makes the config home (0700), then starts the publisher and
// waits for its first record as startAndWait does.
func (p *pubRun) startInHome(id string) (statusfile.Status, []byte) {
	p.must(mkdir(p.home, privateDir))
	return p.startAndWait(id, nil)
}

// noRecord says why no first record came within the deadline: never, or
// how late.
func (p *pubRun) noRecord(err error) string {
	deadline := p.d(2)
	msg := fmt.Sprintf("no valid status file at %s within %v of the start: %v", p.rel(p.statusPath()), deadline, err)
	if !p.running() {
		return msg
	}
	if _, _, lerr := p.waitRecord(2 * deadline); lerr == nil {
		took := since(p.started)
		return fmt.Sprintf("the first record appeared %v after the start, %v past the deadline of %v%s",
			took, took-deadline, deadline, p.scaleHint(took, deadline))
	}
	return msg + fmt.Sprintf("; none came within %v more either", 2*deadline)
}

// rel shows a path relative to the scenario's directory.
func (p *pubRun) rel(path string) string {
	if r, err := filepath.Rel(p.base, path); err == nil {
		return r
	}
	return path
}

func describe(rec statusfile.Status) string {
	title := "null"
	if rec.Title != "" {
		title = fmt.Sprintf("%q", truncate(rec.Title, 60))
	}
	return fmt.Sprintf("state=%s title=%s updatedAt=%s", rec.State, title, rec.UpdatedAt.UTC().Format(vector.TimeLayout))
}

// snapshot describes everything under the scenario's directory (but the
// decoy): types, modes, owners, link targets and file contents. Refusals
// compare one taken before with one taken after.
func (p *pubRun) snapshot() []string {
	var out []string
	filepath.WalkDir(p.base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path == filepath.Dir(p.decoy) {
			return fs.SkipDir
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return nil
		}
		line := fmt.Sprintf("%s %v uid=%d links=%d", p.rel(path), fi.Mode(), fileOwner(fi), fileLinks(fi))
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			line += " -> " + target
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(path)
			sum := sha256.Sum256(data)
			line += fmt.Sprintf(" %d bytes sha256 %s", len(data), hex.EncodeToString(sum[:8]))
		}
		out = append(out, line)
		return nil
	})
	return out
}

// unchanged fails check id, with every difference, when the scenario's
// directory is not as the snapshot before says.
func (p *pubRun) unchanged(id string, before []string, format string, args ...any) {
	if diff := diffSnapshots(before, p.snapshot()); len(diff) > 0 {
		p.fail(id, format, args...)
		p.result(id).Details = append(p.result(id).Details, diff...)
	}
}

// refused sends a line that must be refused: answered ok:false with a
// message. An ok:true answer fails check id as format says.
func (p *pubRun) refused(id, line, format string, args ...any) {
	a := p.send(id, line)
	p.expect(!a.ok, id, format, args...)
	p.expect(a.ok || a.msg != "", id, "ok:false without an error message")
}

// exitsAtEOF closes the publisher's standard input: it must exit by
// itself with status 0 (W4).
func (p *pubRun) exitsAtEOF(id string) {
	p.closeStdin()
	p.exits(id, time.Now(), " of the end of its input")
}

// exits fails check id unless the publisher exits by itself with status 0
// within the deadline from what happened at from (W4); after says what.
func (p *pubRun) exits(id string, from time.Time, after string) {
	if p.expect(p.waitExit(p.d(2)), id, "the publisher did not exit within %v%s%s", p.d(2), after, p.lateness(from, p.d(2), p.waitExit)) {
		p.expect(p.exit.ok(), id, "the publisher ended with %s, want exit status 0", p.exit)
	}
}

// dirNames lists the names in dir that keep accepts (all when keep is
// nil).
func dirNames(dir string, keep func(name string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if keep == nil || keep(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, err
}

// diffSnapshots lists what changed.
func diffSnapshots(before, after []string) []string {
	var out []string
	for _, d := range []struct {
		label    string
		from, to []string
	}{{"was: ", before, after}, {"now: ", after, before}} {
		for _, x := range d.from {
			if !slices.Contains(d.to, x) {
				out = append(out, d.label+x)
			}
		}
	}
	return out
}
