package statusconform

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// TestMain lets the test binary act as a trivial reader that shows no
// session, or a publisher that publishes nothing: "<test binary>
// -empty-reader".
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == "-empty-reader" {
		os.Exit(0)
	}
	testbin.Main(m, map[string]func() int{"statuspub": statuspub.Main}, func(dir string) {
		binDir = dir
		testmain.MoreParallel(8) // the suites it runs mostly wait
	})
}

// binDir holds the commands testbin.Main provides.
var binDir string

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, base.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// emptyReader returns a program that prints nothing and exits 0 when run
// with the argument -empty-reader: true(1) where there is one, else this
// test binary. Built with -race, the test binary costs about 0.1 s of
// processor time a start, and the tests start it dozens of times.
func emptyReader(t *testing.T) string {
	if exe, err := exec.LookPath("true"); err == nil {
		return exe
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"reader"},
		{"reader", "--level", "medium", "--", "true"},
		{"reader", "--timeout", "0s", "--", "true"},
		{"reader", "--run", "no/such/*", "--", "true"},
		{"publisher"},
		{"publisher", "--timeout-scale", "0.5", "--", "true"},
		{"publisher", "--run", "no/such/*", "--", "true"},
		{"materialize"},
		{"materialize", "a", "b"},
	} {
		code, _, stderr := run(t, args...)
		if code != base.ExitUsage || !strings.HasPrefix(stderr, "statusconform") {
			t.Errorf("%q: exit %d, stderr %q; want %d and a message", args, code, stderr, base.ExitUsage)
		}
	}
	if code, out, _ := run(t, "--help"); code != base.ExitOK || !strings.Contains(out, "statusconform reader") {
		t.Errorf("--help: %d %q", code, out)
	}
}

func TestReaderList(t *testing.T) {
	code, out, _ := run(t, "reader", "--list", "--level", "core", "--run", "freshness/*")
	if code != base.ExitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("--list printed %q", out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "freshness/") || !strings.Contains(l, "\tcore\t") {
			t.Errorf("line %q", l)
		}
	}
}

func TestReaderRun(t *testing.T) {
	exe := emptyReader(t)
	// A reader that shows nothing passes where nothing is expected...
	report := filepath.Join(t.TempDir(), "report.json")
	code, out, stderr := run(t, "reader", "--run", "location/missing-directory", "--run", "basic/empty-directory", "--json", report, "--", exe, "-empty-reader")
	if code != base.ExitOK || !strings.HasSuffix(out, "2 passed, 0 failed, 0 skipped\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Suite   string
		Passed  int
		Results []struct{ ID, Outcome string }
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Suite != "reader" || rep.Passed != 2 || len(rep.Results) != 2 {
		t.Errorf("report %s: %v", data, err)
	}
	// ...and fails where a session must be shown, and where it must
	// report an error (R23): printing nothing and exiting 0 is not one.
	for _, id := range []string{"basic/one-session", "dir/symlink-refused"} {
		code, out, _ = run(t, "reader", "--run", id, "--", exe, "-empty-reader")
		if code != base.ExitError || !strings.Contains(out, "FAIL "+id+"\n") || !strings.HasSuffix(out, "0 passed, 1 failed, 0 skipped\n") {
			t.Errorf("exit %d, stdout:\n%s", code, out)
		}
		if n := strings.Count(out, " passed, "); n != 1 {
			t.Errorf("%d summary lines", n)
		}
	}
}

func TestMaterialize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cases")
	code, out, stderr := run(t, "materialize", dir)
	if code != base.ExitOK || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("exit %d, %q %q", code, out, stderr)
	}
	t.Cleanup(func() {
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
	})
	if _, err := os.Stat(filepath.Join(dir, "basic", "one-session", "expected.json")); err != nil {
		t.Error(err)
	}
	if code, _, stderr := run(t, "materialize", dir); code != base.ExitError || !strings.Contains(stderr, "not empty") {
		t.Errorf("into a non-empty directory: exit %d, %q", code, stderr)
	}
}

func TestPublisherList(t *testing.T) {
	code, out, _ := run(t, "publisher", "--list")
	if code != base.ExitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 40 {
		t.Errorf("only %d checks listed", len(lines))
	}
	for _, want := range []string{"P9/heartbeat\tcore\tP9 W5", "P6/file-0600/umask-022\tcore\tP6", "W4/removed-on-sigterm\tcore\tW4",
		"N2/session-empty\thardened\tN2", "P3/creates-config-home\thardened\tP3", "P5/status-file-hardlink\thardened\tP5 W3 P13"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("--list lacks %q", want)
		}
	}
	// The core level leaves out this toolkit's rules: the session-id
	// limits and creating a missing config home among them.
	code, core, _ := run(t, "publisher", "--list", "--level", "core")
	if code != base.ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(core), "\n") {
		if !strings.Contains(l, "\tcore\t") {
			t.Errorf("--level core lists %q", l)
		}
	}
	for _, gone := range []string{"N2/", "P3/creates-config-home", "P7/", "P10/", "P11/", "P5/status-file-hardlink"} {
		if strings.Contains(core, gone) {
			t.Errorf("--level core lists %s", gone)
		}
	}
	if !strings.Contains(core, "P9/heartbeat\t") || !strings.Contains(core, "P5/status-file-symlink\t") {
		t.Errorf("--level core lacks the heartbeat or the symlink refusal:\n%s", core)
	}
}

// A command that cannot be run is one line and exit status 2, not a
// failure per case.
func TestCannotRun(t *testing.T) {
	for _, suite := range []string{"reader", "publisher"} {
		code, out, stderr := run(t, suite, "--", "/nonexistent")
		if code != base.ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "cannot run /nonexistent") {
			t.Errorf("%s -- /nonexistent: exit %d, stdout %q, stderr %q", suite, code, out, stderr)
		}
	}
}

func TestReports(t *testing.T) {
	exe := emptyReader(t)
	dir := t.TempDir()
	// One case the empty reader passes, one it fails.
	cases := []string{"--run", "location/missing-directory", "--run", "basic/one-session"}
	junit := filepath.Join(dir, "report.xml")
	code, out, _ := run(t, append(append([]string{"reader", "--junit", junit}, cases...), "--", exe, "-empty-reader")...)
	if code != base.ExitError {
		t.Errorf("exit %d:\n%s", code, out)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if suite.Tests != 2 || suite.Failures != 1 || len(suite.Cases) != 2 || suite.Cases[0].Name != "basic/one-session" ||
		suite.Cases[0].Failure == nil || suite.Cases[1].Failure != nil {
		t.Errorf("JUnit report:\n%s", data)
	}

	// The failure, listed as expected, no longer fails the run.
	expected := filepath.Join(dir, "expected")
	os.WriteFile(expected, []byte("# known gaps\nbasic/one-session  # shows nothing yet\n"), 0o600)
	code, out, stderr := run(t, append(append([]string{"reader", "--expected-failures", expected}, cases...), "--", exe, "-empty-reader")...)
	if code != base.ExitOK || !strings.Contains(out, "XFAIL basic/one-session: ") || !strings.HasSuffix(out, "1 passed, 1 failed, 0 skipped, 1 of the failures expected, 0 expected failures passed\n") {
		t.Errorf("expected failure: exit %d\n%s%s", code, out, stderr)
	}
	// A listed failure that passes fails the run: the list is out of date.
	os.WriteFile(expected, []byte("location/missing-*\nno/such-case\n"), 0o600)
	code, out, stderr = run(t, append(append([]string{"reader", "--expected-failures", expected}, cases...), "--", exe, "-empty-reader")...)
	if code != base.ExitError || !strings.Contains(out, "XPASS location/missing-directory: ") || !strings.Contains(stderr, "no/such-case matches no result") {
		t.Errorf("expected failure that passes: exit %d\n%s%s", code, out, stderr)
	}
	// A skipped case does not run and does not fail.
	code, out, _ = run(t, append(append([]string{"reader", "--skip", "basic/*"}, cases...), "--", exe, "-empty-reader")...)
	if code != base.ExitOK || !strings.Contains(out, "SKIP basic/one-session: skipped by --skip basic/*\n") {
		t.Errorf("--skip: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "reader", "--expected-failures", filepath.Join(dir, "missing"), "--", exe); code != base.ExitUsage {
		t.Errorf("a missing --expected-failures file: exit %d, %q", code, stderr)
	}
}

func TestPublisherRun(t *testing.T) {
	statuspub := filepath.Join(binDir, "statuspub")
	code, out, stderr := run(t, "publisher", "--run", "W4/*", "--", statuspub, "serve", "--config-home", "{home}", "--session", "{session}", "--agent", "{agent}")
	if code != base.ExitOK || !strings.HasSuffix(out, "3 passed, 0 failed, 0 skipped\n") {
		t.Errorf("statuspub serve: exit %d\n%s%s", code, out, stderr)
	}
	// A "publisher" that exits at once fails, and says why.
	code, out, _ = run(t, "publisher", "--run", "W1/*", "--", emptyReader(t), "-empty-reader")
	if code != base.ExitError || !strings.Contains(out, "FAIL W1/publishes-at-once\n") || !strings.Contains(out, "exit status 0") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
