//go:build unix

package statusls

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// keyboard puts the terminal f in no-echo, character-at-a-time mode and
// returns it as the reader of keys, with the function that restores the
// terminal as it was. Signals stay on (ISIG): Ctrl-C still sends SIGINT.
// It fails when f is not a terminal.
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
