//go:build !unix

package clitest

import "errors"

// The scripts that need a named pipe run on Unix ([unix]).
func mkfifo(path string) error { return errors.New("mkfifo: no named pipes here") }
