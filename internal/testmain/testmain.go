// Package testmain holds what every test binary of the module does first.
//
// A binary built with -race sleeps one second at exit whenever goroutines
// other than main are alive (GORACE's atexit_sleep_ms, default 1000), which
// in a Go program is always: the runtime's own count. The sleep gives
// goroutines that outlive main time to report a race; in a test binary
// those goroutines are leaks, and the packages that could leak check with
// goleak. Over the module's test packages the sleep was about a second of
// every package's time, a fifth of the README's test command.
//
// GORACE is read once, when the race runtime starts, so [Run] and
// [SkipRaceExitSleep] restart the test binary with atexit_sleep_ms=0 added
// to GORACE. The restart is an exec of the same binary with the same
// arguments, before any test runs; race reports, the final race summary
// and exit status 66 are as before. A GORACE that already sets
// atexit_sleep_ms is left alone, so a developer who wants the sleep back
// sets GORACE=atexit_sleep_ms=1000.
//
// [TempInMemory] puts the tests' temporary files on /dev/shm, where the
// sync of every record written costs nothing. [Prepare] does both.
package testmain

import (
	"flag"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// RaceEnabled reports whether the test binary is built with -race, which
// the go command records in the build information.
var RaceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(bi.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}()

// Run is the TestMain of a package with nothing else to set up.
func Run(m *testing.M) {
	Prepare()
	os.Exit(m.Run())
}

// Prepare is what every test binary does first: [TempInMemory], then
// [SkipRaceExitSleep], whose restart carries the environment over.
func Prepare() {
	TempInMemory()
	SkipRaceExitSleep()
}

// SkipRaceExitSleep restarts a test binary built with -race with
// atexit_sleep_ms=0 in GORACE, unless GORACE sets it already. [Prepare]
// calls it; call that first in TestMain. It returns only when there is nothing to do or the
// restart failed (the tests then run as they are, sleep included). The
// environment it sets is inherited by the subprocesses a test starts,
// which matters most for tests that re-execute the test binary.
func SkipRaceExitSleep() {
	if !RaceEnabled {
		return
	}
	g := os.Getenv("GORACE")
	if strings.Contains(g, "atexit_sleep_ms") {
		return
	}
	g = strings.TrimSpace(g + " atexit_sleep_ms=0")
	exe, err := os.Executable()
	if err == nil {
		// The same arguments; the last GORACE in the environment wins.
		// Returns only on failure.
		err = syscall.Exec(exe, os.Args, append(os.Environ(), "GORACE="+g))
	}
	restartErr = err
	os.Setenv("GORACE", g) // at least the subprocesses
}

// restartErr is why SkipRaceExitSleep could not restart the binary: where
// there is no exec(2) (Windows), an error that is
// [errors.ErrUnsupported], and the tests run with the sleep.
var restartErr error

// MoreParallel lets n tests marked t.Parallel run side by side, in place
// of -parallel's default (the number of processors), unless -parallel is
// given. It is for the packages whose tests mostly wait: for the programs
// they start, for a timeout, for a heartbeat. With the default of two on a
// 2-core machine, two such tests held the processors idle while the
// others queued. Call it from TestMain, before m.Run, only when the binary
// runs the tests (not when it is started as a helper or a command, whose
// flags are their own).
func MoreParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// SkipShort skips, under go test -short, a test that waits for real time
// (a timeout, a heartbeat, a poll) or starts real servers: why says which.
// Such tests run in the full suite (go test -race ./..., as CI runs it);
// -short is the inner loop.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why + "; runs without -short")
	}
}
