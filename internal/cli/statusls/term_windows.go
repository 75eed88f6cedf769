//go:build windows

package statusls

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminal reports whether f is a console and, if so, its width in columns.
func terminal(f *os.File) (bool, int) {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false, 0
	}
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(h, &info); err != nil {
		return true, 0
	}
	return true, int(info.Window.Right-info.Window.Left) + 1
}

// terminalRows returns the height of the console window f in lines, or 0.
func terminalRows(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Bottom-info.Window.Top) + 1
}
