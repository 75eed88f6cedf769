//go:build unix

package statusls

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals end watch (exit 0); resizeSignals make it fit its table to
// the terminal again.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	resizeSignals = []os.Signal{syscall.SIGWINCH}
)

// keyboard puts the terminal f in no-echo, character-at-a-time mode and
// returns it as the reader of keys, with the function that restores the
// terminal as it was. Signals stay on (ISIG): Ctrl-C still sends SIGINT.
// It fails when f is not a terminal. (term.MakeRaw would turn ISIG off,
// and OPOST too, which the table's newlines need.)
func keyboard(f *os.File) (io.Reader, func(), error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, nil, err
	}
	raw := *old
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, nil, err
	}
	restore := func() { unix.IoctlSetTermios(fd, ioctlSetTermios, old) }
	return f, restore, nil
}
