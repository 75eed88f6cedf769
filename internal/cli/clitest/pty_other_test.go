//go:build !linux

package clitest

import (
	"errors"
	"os"
)

// The scripts that need a pseudo-terminal or a named pipe run on Linux
// ([linux]): the helpers are written for it.
func openPTY(cols int) (ptmx, tty *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals: written for Linux")
}

func mkfifo(path string) error { return errors.New("mkfifo: written for Linux") }
