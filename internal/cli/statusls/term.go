package statusls

import (
	"os"

	"golang.org/x/term"
)

// terminal reports whether f is a terminal (a console on Windows) and, if
// so, its width in columns (0 when the terminal does not say: term.GetSize
// answers 0 with its error).
func terminal(f *os.File) (bool, int) {
	fd := int(f.Fd())
	if !term.IsTerminal(fd) {
		return false, 0
	}
	w, _, _ := term.GetSize(fd)
	return true, w
}

// terminalRows returns the height of the terminal f in lines, or 0.
func terminalRows(f *os.File) int {
	_, h, _ := term.GetSize(int(f.Fd()))
	return h
}
