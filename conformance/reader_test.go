package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

func loadCases(t testing.TB) []*vector.Case {
	t.Helper()
	cases, err := cases()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// requireTool returns the path of an external program a test needs. It
// skips the test when the program is missing, unless
// AGENTSTATUS_REQUIRE_TOOLS=1 (as in CI), where a missing tool fails it.
func requireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is required (AGENTSTATUS_REQUIRE_TOOLS=1) but not found: %v", name, err)
		}
		t.Skipf("%s not found; set AGENTSTATUS_REQUIRE_TOOLS=1 to make this a failure", name)
	}
	return p
}

// runReader runs the selected cases and fails the test on a harness error.
func runReader(t *testing.T, opts Options) *Report {
	t.Helper()
	rep, err := RunReader(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed+rep.Failed+rep.Skipped == 0 {
		t.Fatal("no case ran")
	}
	return rep
}

// wantAllPass fails the test for every failed case; skips must be for
// want of root only.
func wantAllPass(t *testing.T, rep *Report) {
	t.Helper()
	for _, r := range rep.Results {
		switch r.Outcome {
		case outcomeFail:
			var b strings.Builder
			(&Report{Results: []Result{r}}).WriteText(&b)
			t.Errorf("%s", b.String())
		case outcomeSkip:
			if isRoot() {
				t.Errorf("SKIP %s as root: %s", r.ID, r.Reason)
			}
		}
	}
	t.Logf("%s in %.1fs", rep.summary(), rep.Seconds)
}

func TestReaderInProcess(t *testing.T) {
	t.Parallel()
	wantAllPass(t, runReader(t, Options{read: testReaderFunc("")}))
}

// brokenReaders are the flaws of the suite's test reader (testRead), each
// with the cases that must fail it.
var brokenReaders = []struct {
	flaw     string
	mustFail []string
}{
	{"follow-symlinks", []string{"files/symlink-to-outside", "files/symlink-inside-directory"}},
	{"block-on-fifo", []string{"files/fifo"}},
	{"no-size-limit", []string{"files/size-64kib-plus-one", "files/size-1mib"}},
	{"no-owner-check", []string{"files/not-owned"}},
	{"no-name-check", []string{"names/name-mismatch", "names/copied-record"}},
	{"every-json-file", []string{"names/dot-file-ignored", "names/temporary-files-ignored", "names/uppercase-hex-ignored", "names/other-json-name-ignored"}},
	{"hash-prefix-only", []string{"names/other-extension-ignored"}},
	{"stale-after-60s", []string{"freshness/stale-at-30.001s", "freshness/stale-with-live-pid"}},
	{"no-future-bound", []string{"freshness/future-30.001s-stale", "freshness/future-1h-stale"}},
	{"whole-seconds", []string{"freshness/fresh-at-29.9s-with-milliseconds"}},
	{"raw-titles", []string{"sanitize/title-sgr", "sanitize/title-bidi-and-invisible", "sanitize/title-4097-units-cut"}},
	{"raw-fields", []string{"sanitize/other-fields", "sanitize/unknown-state"}},
	{"collapse-fields", []string{"sanitize/other-fields"}},
	{"drop-unknown-state", []string{"compat/unknown-state-kept"}},
	{"drop-null-agent", []string{"records/agent-null-kept", "records/agent-absent-kept"}},
	{"accept-symlinked-dir", []string{"dir/symlink-refused"}},
	{"accept-writable-dir", []string{"dir/group-writable-refused", "dir/other-writable-refused", "dir/world-writable-refused"}},
	{"accept-foreign-dir", []string{"dir/not-owned-refused"}},
	{"missing-dir-error", []string{"location/missing-directory"}},
	{"error-on-vanished", []string{"vanish/files-come-and-go"}},
	{"ignore-status-dir", []string{"location/status-dir-over-config-home", "basic/one-session"}},
	{"real-clock", []string{"freshness/fresh-at-30s"}},
	{"fail-on-invalid", []string{"records/truncated", "records/empty-file"}},
	{"print-garbage", []string{"basic/one-session"}},
	{"exit-1", []string{"basic/one-session", "basic/empty-directory"}},
	{"no-file-checks", []string{"files/device"}},
	{"fail-on-open-error", []string{"files/socket", "files/subdirectory"}},
}

// A check that cannot fail is a defect: each broken reader must fail the
// cases that target what it breaks.
func TestBrokenReaders(t *testing.T) {
	testmain.SkipShort(t, "starts the helper reader for every flaw and case, waiting out the timeouts of the flaws that hang")
	t.Parallel()
	tests := brokenReaders
	// The readers with these flaws never finish their cases.
	hangs := map[string]bool{"block-on-fifo": true, "no-file-checks": true}
	// Without its flaw, the same reader passes every one of those cases
	// (TestReaderInProcess runs it on all of them, in process): what fails
	// is the flaw.
	var all []string
	for _, tt := range tests {
		all = append(all, tt.mustFail...)
	}
	// Every case can fail: a broken reader above fails it, or a reader
	// that shows nothing, or one that shows every record it can parse from
	// any *.json name, following links, without checking anything.
	canFail := map[string]bool{}
	for _, id := range all {
		canFail[id] = true
	}
	for _, f := range []readerFunc{showNothing, showEverything} {
		rep := runReader(t, Options{read: f})
		for _, r := range rep.Results {
			if r.Outcome == outcomeFail {
				canFail[r.ID] = true
			}
		}
	}
	for _, c := range loadCases(t) {
		if !canFail[c.ID] {
			t.Errorf("nothing shows that %s can fail", c.ID)
		}
	}
	t.Run("no-flaw", func(t *testing.T) {
		t.Parallel()
		wantAllPass(t, runReader(t, Options{Command: helperCommand(t, "reader", ""), Run: all, Parallel: readerTestParallel}))
	})
	for _, tt := range tests {
		t.Run(tt.flaw, func(t *testing.T) {
			t.Parallel()
			// A timeout fails a case, so a broken reader needs no
			// calibration to be failed.
			opts := Options{Command: helperCommand(t, "reader", tt.flaw), Run: tt.mustFail, Timeout: 3 * time.Second, NoCalibrate: true}
			if hangs[tt.flaw] {
				// The flaw's cases fail by the timeout whatever its
				// length; meanwhile the reader reads a device
				// without end, a core's worth of work. So 300 ms,
				// if the reader without the flaw passes the same
				// cases in that time here and now: else a slow
				// start, not the flaw, could fail them.
				short := Options{Command: helperCommand(t, "reader", ""), Run: tt.mustFail, Timeout: 300 * time.Millisecond, NoCalibrate: true}
				if rep := runReader(t, short); rep.Failed == 0 {
					opts.Timeout = short.Timeout
				} else {
					t.Logf("the reader without the flaw: %s in 300 ms; the flawed one gets %v", rep.summary(), opts.Timeout)
				}
			}
			rep := runReader(t, opts)
			// A flaw that shows only when a file vanishes at the wrong
			// moment is caught by chance (README.md, Limits); on a loaded
			// machine, give the chance up to nine more runs.
			for try := 0; try < 9 && slices.ContainsFunc(tt.mustFail, timingDependent) && !allFailed(rep, tt.mustFail); try++ {
				rep = runReader(t, opts)
			}
			for _, id := range tt.mustFail {
				r, ok := rep.find(id)
				switch {
				case !ok:
					t.Errorf("no case %s", id)
				case r.Outcome == outcomeSkip && !isRoot():
					t.Logf("%s: %s", id, r.Reason) // the flaw's other cases still count
				case r.Outcome != outcomeFail:
					t.Errorf("%s: %s, want FAIL for a reader that breaks it (%s)", id, r.Outcome, tt.flaw)
				}
			}
		})
	}
}

// readerTestParallel is how many cases the tests run at once against an
// interpreted reader: a start-up is partly waiting (exec, page faults), so
// a little more than one per processor keeps the processors busy. The
// suite itself runs one per processor, to be fair to the reader.
var readerTestParallel = max(4, 2*runtime.GOMAXPROCS(0))

// timingDependent reports whether a case catches its flaw only when a
// file vanishes at the right moment.
func timingDependent(id string) bool { return strings.HasPrefix(id, "vanish/") }

func allFailed(rep *Report, ids []string) bool {
	for _, id := range ids {
		if r, ok := rep.find(id); !ok || r.Outcome != outcomeFail {
			return false
		}
	}
	return true
}

// python returns the command line that runs one of the Python adapters
// (adapters/python/script): the interpreter itself, not a launcher script
// in front of it (such as pyenv's), which would cost every case a shell;
// and with -S, without the site module. The adapters use the standard
// library only, and site's work (.pth files of installed packages) was a
// quarter of each start-up, which the suite's tests pay hundreds of times.
func python(t testing.TB, script string) []string {
	t.Helper()
	py := requireTool(t, "python3")
	exe, err := pythonExecutable(py)
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	return []string{exe, "-S", filepath.Join("adapters", "python", script)}
}

// pythonExecutable asks python3 for the interpreter it runs, once: a
// launcher costs tens of milliseconds, and the tests ask dozens of times.
func pythonExecutable(py string) (string, error) {
	python3Exe.Do(func() {
		out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
		python3Exe.exe, python3Exe.err = strings.TrimSpace(string(out)), err
		if python3Exe.exe == "" {
			python3Exe.exe = py
		}
	})
	return python3Exe.exe, python3Exe.err
}

var python3Exe struct {
	sync.Once
	exe string
	err error
}

// The Python reader passes every case. Each case is a process of its own,
// but forked by a server that started the interpreter and imported the
// reader's modules once (testdata/python/forkserver.py): an interpreter
// start per case was most of this test's processor time. python3 itself
// runs the basic, dir and location cases, refusals among them.
func TestPythonReader(t *testing.T) {
	testmain.SkipShort(t, "starts a Python fork server and runs every case through it")
	t.Parallel()
	py := python(t, "status_reader.py")
	if forkServerOK {
		t.Run("forkserver", func(t *testing.T) {
			wantAllPass(t, runReader(t, Options{Command: pythonForkServer(t, py), Timeout: 30 * time.Second, Parallel: readerTestParallel}))
		})
	}
	t.Run("python3", func(t *testing.T) {
		opts := Options{Command: py, Timeout: 30 * time.Second, Parallel: readerTestParallel}
		if forkServerOK {
			opts.Run = []string{"basic/*", "dir/*", "location/*"}
		}
		wantAllPass(t, runReader(t, opts))
	})
}

// pythonForkServer starts a fork server for the Python command py (the
// interpreter, its options, the script) and returns the command that runs
// the script once through it: the helper as forkClient.
func pythonForkServer(t *testing.T, py []string) []string {
	t.Helper()
	dir, err := os.MkdirTemp("", "forkserver-") // short: a socket's path has at most 104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	script := py[len(py)-1]
	args := append(slices.Clone(py[:len(py)-1]), filepath.Join("testdata", "python", "forkserver.py"), script, sock)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	if ready, err := bufio.NewReader(out).ReadString('\n'); ready != "ready\n" {
		t.Fatalf("the fork server did not start: %q %v", ready, err)
	}
	return helperCommand(t, "forkclient", sock)
}

// jqFailures are the cases the published jq one-liner fails with jq 1.6,
// as conformance/README.md lists and explains them:
// adapters/jq/expected-failures.txt, which statusconform report uses too.
func jqFailures(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("adapters", "jq", "expected-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sel, err := ReadExpectedFailures(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range sel {
		if strings.Contains(id, "*") {
			t.Errorf("expected-failures.txt: %s: list ids, not globs", id)
		}
	}
	return sel
}

// jqTimingDependent are the failures that depend on timing: jq 1.6 loses a
// file only when one vanishes between the shell's glob and jq's open.
var jqTimingDependent = []string{"vanish/files-come-and-go"}

func TestJQReader(t *testing.T) {
	testmain.SkipShort(t, "starts jq once for every case")
	t.Parallel()
	jq := requireTool(t, "jq")
	sh := requireTool(t, "sh")
	version, _ := exec.Command(jq, "--version").Output()
	cmd := []string{sh, "adapters/jq/reader.sh"}
	// jq blocks on the FIFO and reads the device without end: those two
	// cases fail by the timeout whatever its length, so they run with a
	// short one. With the suite's (at least 2 s, longer on a loaded
	// machine) jq spent seconds of a core reading the device.
	hangs := []string{"files/device", "files/fifo"}
	// The others finish, so a generous timeout, as for the Python reader.
	rep := runReader(t, Options{Command: cmd, Timeout: 30 * time.Second, Parallel: readerTestParallel, Skip: hangs})
	hung := runReader(t, Options{Command: cmd, Run: hangs, Timeout: 300 * time.Millisecond, NoCalibrate: true})
	for i, r := range rep.Results {
		if h, ok := hung.find(r.ID); ok {
			rep.Results[i] = h
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range rep.Results {
		if r.Outcome == outcomeFail && !slices.Contains(jqTimingDependent, r.ID) {
			failed = append(failed, r.ID)
			if r.Level == vector.Core {
				t.Errorf("the published one-liner fails core case %s: %s", r.ID, r.Reason)
			}
		}
		if r.Outcome == outcomeSkip && isRoot() {
			t.Errorf("SKIP %s as root: %s", r.ID, r.Reason)
		}
	}
	// Cases that need root are skipped, not failed, without it.
	want := slices.DeleteFunc(slices.Clone(jqFailures(t)), func(id string) bool {
		r, ok := rep.find(id)
		return ok && r.Outcome == outcomeSkip || slices.Contains(jqTimingDependent, id)
	})
	slices.Sort(want)
	if strings.TrimSpace(string(version)) == "jq-1.6" && !slices.Equal(failed, want) {
		t.Errorf("the one-liner fails\n  %s\nwant (as README.md says)\n  %s", strings.Join(failed, "\n  "), strings.Join(want, "\n  "))
	}
	for _, id := range jqFailures(t) {
		if !strings.Contains(string(readme), "`"+id+"`") {
			t.Errorf("README.md does not list %s among the jq one-liner's failures", id)
		}
	}
	t.Logf("%s: %s in %.1fs, then %s (%s) in %.1fs", strings.TrimSpace(string(version)),
		rep.summary(), rep.Seconds, strings.Join(hangs, ", "), hung.summary(), hung.Seconds)
}

func showNothing(context.Context, string, time.Time) ([]vector.Session, error) { return nil, nil }

// showEverything is the most naive reader: every *.json name, links
// followed, any JSON object with a session shown as it is.
func showEverything(_ context.Context, dir string, now time.Time) ([]vector.Session, error) {
	entries, _ := os.ReadDir(dir)
	var out []vector.Session
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, e.Name()), os.O_RDONLY|nonblock, 0)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		var data []byte
		if err == nil && fi.Mode().IsRegular() {
			data, _ = io.ReadAll(f)
		}
		f.Close()
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		str := func(k string) *string {
			if s, ok := m[k].(string); ok && s != "" {
				return &s
			}
			return nil
		}
		s := vector.Session{Agent: str("agent"), Cwd: str("cwd")}
		s.Session, _ = m["session"].(string)
		s.State, _ = m["state"].(string)
		if task, ok := m["task"].(map[string]any); ok {
			if t, ok := task["title"].(string); ok && t != "" {
				s.Title = &t
			}
		}
		if pid, ok := m["pid"].(float64); ok && pid != 0 {
			p := int64(pid)
			s.PID = &p
		}
		out = append(out, s)
	}
	return out, nil
}
