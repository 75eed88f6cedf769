//go:build unix

package statusls

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminal reports whether f is a terminal and, if so, its width in columns
// (0 when the terminal does not say). TIOCGWINSZ fails with ENOTTY on
// anything but a terminal, so one ioctl answers both questions.
func terminal(f *os.File) (bool, int) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return false, 0
	}
	return true, int(ws.Col)
}

// terminalRows returns the height of the terminal f in lines, or 0.
func terminalRows(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Row)
}
