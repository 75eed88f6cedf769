package base

import (
	"io"
	"os"
	"strings"
	"time"
)

// Exit codes shared by the commands. Commands add their own above 2.
const (
	ExitOK    = 0 // success
	ExitError = 1 // a runtime error, or a hook's failure with --strict
	ExitUsage = 2 // a usage error: an unknown flag or subcommand, a bad value
)

// Env is what a command gets from its process: its streams, its
// environment and its clock. Tests build their own; [Env.Fill] gives the
// fields left nil harmless defaults.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// OSEnv is the process's own environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
}

// Fill sets the nil fields: empty input, discarded output, an empty
// environment, the system clock.
func (e *Env) Fill() {
	if e.Stdin == nil {
		e.Stdin = strings.NewReader("")
	}
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.Now == nil {
		e.Now = time.Now
	}
}
