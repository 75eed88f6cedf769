//go:build !unix

package statusls

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentstatus/agentstatus/reader"
)

// stopSignals end watch (exit 0); there is no resize signal on Windows.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM}
	resizeSignals []os.Signal
)

// keyboard is not available here: watch quits on Ctrl-C only.
func keyboard(*os.File) (io.Reader, func(), error) { return nil, nil, errors.New("no keyboard") }

// execSupported says whether watch --exec works here. It runs commands with
// /bin/sh -c, which this platform lacks; cmd /c parses its command line by
// rules of its own, which would make --exec a different interface here.
const execSupported = false

func ownProcessGroup(*exec.Cmd) {}

// inspectDir says what doctor needs to know about a directory: on this
// platform, only its mode as Go shows it; nothing when it cannot be found.
func inspectDir(path string) dirInfo {
	fi, err := os.Lstat(path)
	if err != nil {
		return dirInfo{}
	}
	return dirInfo{mode: fi.Mode().String(), mine: true}
}

// pruneGuard takes no locks here: hook commands need POSIX locks, and
// leftovers are not recognised.
type pruneGuard struct{}

func openPruneGuard(string, *reader.Dir) (*pruneGuard, error) { return &pruneGuard{}, nil }

func (g *pruneGuard) close() {}

func (g *pruneGuard) remove(d *reader.Dir, e *reader.Entry) (bool, string, error) {
	ok, err := d.Remove(e)
	return ok, "", err
}

func (g *pruneGuard) leftovers(io.Writer, time.Time, bool, func(error)) {}
