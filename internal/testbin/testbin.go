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
	once sync.Once
	dir  string
	err  error
)

// Build compiles every command under cmd/ into a temporary directory
// (once) and returns that directory. Call Cleanup from TestMain.
func Build() (string, error) {
	once.Do(func() {
		dir, err = os.MkdirTemp("", "agentstatus-bin-")
		if err != nil {
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/...")
		cmd.Dir = root
		cmd.Stderr = os.Stderr
		err = cmd.Run()
	})
	return dir, err
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
		helperDir, helperErr = os.MkdirTemp("", "agentstatus-helper-")
		if helperErr != nil {
			return
		}
		helperExe = filepath.Join(helperDir, "helper.test")
		if runtime.GOOS == "windows" {
			helperExe += ".exe"
		}
		cmd := exec.Command("go", "test", "-c", "-o", helperExe, ".")
		cmd.Stderr = os.Stderr
		helperErr = cmd.Run()
	})
	return helperExe, helperErr
}

var (
	helperOnce sync.Once
	helperDir  string
	helperExe  string
	helperErr  error
)

// Cleanup removes the commands Build compiled and the binary of Helper.
func Cleanup() {
	for _, d := range []string{dir, helperDir} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
}
