// Package testbin gives tests the toolkit's commands as programs to run as
// subprocesses.
//
// [Main] is the way: the test binary itself stands in for the commands. It
// is copied into a temporary directory under each command's name, that
// directory goes first in $PATH, and a test binary started under one of
// those names runs that command's Main instead of the tests
// (testscript.RunMain). Nothing is compiled: a package's tests start at
// once instead of after a "go build" of every command (about 15 s on a
// loaded 2-core machine). With -race, Main builds the commands after all
// (see withSetup.Run).
//
// [Build] compiles the commands with "go build", for the packages that
// cannot import the command packages (the command packages import them).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
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
	// Without the race runtime's second of sleep at exit, for this
	// binary and for every command a test runs (the commands are this
	// binary).
	testmain.SkipRaceExitSleep()
	mains := make(map[string]func(), len(commands))
	for name, run := range commands {
		mains[name] = func() { os.Exit(run()) }
	}
	testscript.Main(withSetup{m, func() {
		if ready == nil {
			return
		}
		for name := range commands {
			p, err := exec.LookPath(name)
			if err != nil {
				panic("testbin: " + name + " is not in $PATH: " + err.Error())
			}
			ready(filepath.Dir(p))
			return
		}
	}}, mains)
}

// withSetup runs setup before the tests.
type withSetup struct {
	m     *testing.M
	setup func()
}

func (w withSetup) Run() int {
	if testmain.RaceEnabled {
		// With -race, the test binary starts slowly and runs several
		// times slower; tests that start dozens of commands at once
		// (50 concurrent statuspub set) then see lock timeouts. The
		// race detector cannot follow a test into its subprocesses
		// anyway: build the commands, without -race, and put them
		// first in $PATH.
		dir, err := Build()
		if err != nil {
			fmt.Fprintln(os.Stderr, "testbin: building the commands:", err)
			return 1
		}
		defer Cleanup()
		os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	w.setup()
	return w.m.Run()
}

var (
	once    sync.Once
	dir     string
	tempDir string // Build's temporary directory, if any
	err     error
)

// Build compiles every command under cmd/ (once per test binary) and
// returns the directory that holds them. Where it can (Unix), the
// directory is shared by the test binaries of one checkout and kept
// between runs (see sharedDir): go build then finds the commands up to
// date and links nothing, where a fresh directory cost every test binary
// that needs the commands (eight of them) a link of all five, about 4 s
// of processor time. Call Cleanup from TestMain.
func Build() (string, error) {
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		var unlock func()
		dir, unlock, err = outputDir(root, "bin", &tempDir)
		if err != nil {
			return
		}
		defer unlock()
		err = goTool(root, "build", "-o", dir+string(os.PathSeparator), "./cmd/...")
	})
	return dir, err
}

// outputDir returns the directory to build into, locked until unlock is
// called: the shared one for the checkout at root and kind, or else a new
// temporary directory, which it records in *temp for Cleanup.
func outputDir(root, kind string, temp *string) (dir string, unlock func(), err error) {
	if dir, unlock, ok := sharedDir(root, kind); ok {
		return dir, unlock, nil
	}
	dir, err = os.MkdirTemp("", "agentstatus-"+kind+"-")
	*temp = dir
	return dir, func() {}, err
}

// goTool runs the go command in dir, its errors on our standard error.
func goTool(dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return cmd.Run()
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
	helperOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			helperErr = err
			return
		}
		var dir string
		var unlock func()
		dir, unlock, helperErr = outputDir(wd, "helper", &helperTemp)
		if helperErr != nil {
			return
		}
		defer unlock()
		helperExe = filepath.Join(dir, "helper.test")
		if runtime.GOOS == "windows" {
			helperExe += ".exe"
		}
		helperErr = goTool(wd, "test", "-c", "-o", helperExe, ".")
	})
	return helperExe, helperErr
}

var (
	helperOnce sync.Once
	helperTemp string // a temporary directory of Helper's, if any
	helperExe  string
	helperErr  error
)

// Cleanup removes the temporary directories of Build and Helper (not the
// shared ones).
func Cleanup() {
	for _, d := range []string{tempDir, helperTemp} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
}
