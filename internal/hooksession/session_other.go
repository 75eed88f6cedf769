//go:build !unix

package hooksession

import (
	"os"
	"time"
)

// Windows has no flock(2) and no POSIX record locks with F_GETLK, on which
// the write lock and the owner lock rely: set, clear, the hook adapters and
// the owner report ErrNotSupported there. Use 'statuspub serve' or 'run',
// or package statusfile, which need no lock.

func Set(dir, session string, ch Change, wd, exe string) error { return ErrNotSupported }

func Clear(dir, session string) error { return ErrNotSupported }

func RunOwner(dir, session string, heartbeat time.Duration, term <-chan os.Signal) error {
	return ErrNotSupported
}

// ProcessExists cannot tell here: every pid is taken to exist.
func ProcessExists(int) bool { return true }

func EndOtherSessions(dir, session string, pid int) error { return ErrNotSupported }
