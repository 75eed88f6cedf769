package base

import (
	"io"
	"os"
	"strings"
)

// The exit codes of every command, declared once.
const (
	ExitOK        = 0   // success (statusls: also with no sessions; statusconform: every case passed)
	ExitError     = 1   // a runtime error, a hook's failure with --strict, a failed conformance case
	ExitUsage     = 2   // a usage error: an unknown flag or subcommand, a bad value
	ExitTimeout   = 3   // statusls wait: the --timeout passed first
	ExitGone      = 4   // statusls wait: the session went away while waiting for a state
	ExitPartial   = 5   // statusls --host: some hosts could not be listed; the others were
	ExitCannotRun = 126 // statuspub run: CMD cannot be started, as shells say
	ExitNotFound  = 127 // statuspub run: CMD is not found
)

// Env is what a command gets from its process: its streams and its
// environment. Tests build their own; [Env.Fill] gives the fields left nil
// harmless defaults. A command with a clock keeps it in its own Env, as a
// clock.Clock.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// OSEnv is the process's own environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// Fill sets the nil fields: empty input, discarded output, an empty
// environment.
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
}
