//go:build unix

package clitest

import "golang.org/x/sys/unix"

// mkfifo makes a named pipe.
func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }
