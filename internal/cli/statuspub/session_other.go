//go:build !unix

package statuspub

import (
	"os"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Windows has no flock(2) and no POSIX record locks with F_GETLK, on which
// the write lock and the owner lock rely: set, clear, the hook adapters and
// the owner report ErrNotSupported there. Use 'statuspub serve' or 'run',
// or package statusfile, which need no lock.

func setRecord(dir, session string, ch change, wd, exe string) (statusfile.Status, error) {
	return statusfile.Status{}, ErrNotSupported
}

func clearRecord(dir, session string) error { return ErrNotSupported }

func runOwner(dir, session string, heartbeat time.Duration, term <-chan os.Signal) error {
	return ErrNotSupported
}

// processExists cannot tell here: every pid is taken to exist.
func processExists(int) bool { return true }

func endOtherSessions(dir, session string, pid int) error { return ErrNotSupported }
