// Package testbin gives tests the toolkit's commands as programs to run as
// subprocesses.
//
// [Main] is the way: the test binary itself stands in for the commands. It
// is copied into a temporary directory under each command's name, that
// directory goes first in $PATH, and a test binary started under one of
// those names runs that command's Main instead of the tests
// (testscript.RunMain). Nothing is compiled: a package's tests start at
// once instead of after a "go build" of every command (about 15 s on a
// loaded 2-core machine). With -race, Main builds the commands after all,
// without it, and puts them first in $PATH.
//
// [Build] compiles the commands with "go build", for the packages that
// cannot import the command packages (the command packages import them).
//
// Around the programs a test runs: [Buffer] holds their output while the
// test reads it, [StartPiped] starts one to talk to over its stdin and
// stdout, [FreePort] finds a port for a server, [WriteProgram] writes a
// script to run, and [WaitFor] waits for what one must do. [Failure] is
// for the tests of such helpers.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/rogpeppe/go-internal/testscript"
)

// Main runs the tests of m with commands (name to Main function)
// available as programs, and exits. Call it from TestMain, after anything
// else TestMain does when the binary is started as a helper. ready, when
// not nil, gets the directory that holds the commands before the tests
// run.
func Main(m *testing.M, commands map[string]func() int, ready func(dir string)) {
	// Temporary files in memory and, with -race, without the race
	// runtime's second of sleep at exit, for this binary and for every
	// command a test runs (the commands are this binary).
	testmain.Prepare()
	mains := make(map[string]func(), len(commands))
	for name, run := range commands {
		mains[name] = func() { os.Exit(run()) }
	}
	// testscript calls Run once the commands are in $PATH.
	testscript.Main(runFunc(func() int {
		if testmain.RaceEnabled {
			// With -race, the test binary starts slowly and runs
			// several times slower; tests that start dozens of
			// commands at once (50 concurrent statuspub set) then
			// see lock timeouts. The race detector cannot follow a
			// test into its subprocesses anyway: build the commands,
			// without -race, and put them first in $PATH.
			dir, err := Build()
			if err != nil {
				fmt.Fprintln(os.Stderr, "testbin: building the commands:", err)
				return 1
			}
			defer Cleanup()
			os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		if ready != nil {
			// The commands are in the directory first in $PATH:
			// testscript's, or Build's before it.
			ready(filepath.SplitList(os.Getenv("PATH"))[0])
		}
		return m.Run()
	}), mains)

}

// runFunc is a testscript.TestingM that runs the function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// Build compiles every command under cmd/ (once per test binary) and
// returns the directory that holds them. Where it can (Unix), the
// directory is shared by the test binaries of one checkout and kept
// between runs (see sharedDir): go build then finds the commands up to
// date and links nothing, where a fresh directory cost every test binary
// that needs the commands (eight of them) a link of all five, about 4 s
// of processor time. Call Cleanup from TestMain.
func Build() (string, error) { return build() }

var build = sync.OnceValues(func() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	return goBuild(filepath.Join(filepath.Dir(file), "..", ".."), "bin", "", "build", "./cmd/...")
})

// goBuild runs the go command sub (build, test) in src with args, its
// output going to exe ("" for several) in the directory it returns: the
// shared one for the checkout at src and kind, locked meanwhile, or else
// a new temporary directory, which Cleanup removes. Its errors go to our
// standard error.
func goBuild(src, kind, exe, sub string, args ...string) (string, error) {
	dir, unlock, ok := sharedDir(src, kind)
	if !ok {
		var err error
		if dir, err = os.MkdirTemp("", "agentstatus-"+kind+"-"); err != nil {
			return "", err
		}
		mu.Lock()
		temps = append(temps, dir)
		mu.Unlock()
		unlock = func() {}
	}
	defer unlock()
	cmd := exec.Command("go", append([]string{sub, "-o", dir + string(os.PathSeparator) + exe}, args...)...)
	cmd.Dir = src
	cmd.Stderr = os.Stderr
	return dir, cmd.Run()
}

// Helper returns a program to re-execute as a test's helper process: the
// test binary itself, or, when it is built with -race, the same tests
// built once without -race (the package in the current directory, which
// is where go test runs them). A race-built binary costs about 80 ms of
// processor time to start, against 15 ms without the race runtime, and
// the conformance tests start their helpers hundreds of times. The
// helpers are single-goroutine stand-ins (a reader, a publisher, a hook
// adapter), so the race detector has nothing to watch in them; the
// packages they call are tested under -race in their own tests. Call
// Cleanup from TestMain.
func Helper() (string, error) {
	if !testmain.RaceEnabled {
		return os.Executable()
	}
	return helper()
}

var helper = sync.OnceValues(func() (string, error) {
	exe := "helper.test"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	// The shared directory is named after the absolute path of ".".
	dir, err := goBuild(".", "helper", exe, "test", "-c", ".")
	return filepath.Join(dir, exe), err
})

var (
	mu    sync.Mutex
	temps []string // the temporary directories of Build and Helper
)

// Cleanup removes the temporary directories of Build and Helper (not the
// shared ones).
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for _, d := range temps {
		os.RemoveAll(d)
	}
}

// WriteProgram writes a program a test runs (a script: a stand-in ssh, an
// agent) at path, executable by its owner. It holds syscall.ForkLock while
// the file is open for writing: a process that a parallel test starts
// meanwhile would inherit the open descriptor until its exec, and running
// the file would then fail with "text file busy" (ETXTBSY), which a
// remote test did under load.
func WriteProgram(t testing.TB, path, content string) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, []byte(content), 0o700)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
