package base

import (
	"cmp"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/agentstatus/agentstatus/internal/clock"
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

// Env is what a command gets from its process, the one type every command
// takes: its streams, its environment, its signals, its clock and its
// terminal. Tests build their own; [Env.Fill] gives the fields left nil
// harmless defaults. What one run of a command keeps for itself (the
// program running, its arguments) belongs in the command's own types,
// not here.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ lists the environment, for $ENV and env in --jq filters.
	Environ func() []string
	// Signals relays sig to c until the returned function is called, as
	// signal.Notify and signal.Stop do; nil means them.
	Signals func(c chan<- os.Signal, sig ...os.Signal) (stop func())
	// Clock is the command's time; nil means the system clock.
	Clock clock.Clock
	// Terminal reports whether stdout is a terminal and its width in
	// columns (0 when unknown); nil means not a terminal.
	Terminal func() (bool, int)
	// Rows is the terminal's height in lines; nil means unknown (0).
	Rows func() int
	// Keyboard gives the keys typed on the terminal, unechoed and one at a
	// time, and the function that restores the terminal; nil (or an
	// error) means no keyboard.
	Keyboard func() (io.Reader, func(), error)
	// TempDir is where temporary files go; "" means os.TempDir().
	TempDir string
	// Executable is the running program, for commands that start it
	// again; "" starts nothing (a test running a command in its own
	// process).
	Executable string
}

// OSEnv is the process's own environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ}
}

// Fill sets the nil fields: empty input, discarded output, an empty
// environment, the process's signals, the system clock, no terminal.
func (e *Env) Fill() {
	e.Stdin = cmp.Or[io.Reader](e.Stdin, strings.NewReader(""))
	e.Stdout = cmp.Or(e.Stdout, io.Discard)
	e.Stderr = cmp.Or(e.Stderr, io.Discard)
	e.Clock = cmp.Or(e.Clock, clock.System)
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.Environ == nil {
		e.Environ = func() []string { return nil }
	}
	if e.Signals == nil {
		e.Signals = func(c chan<- os.Signal, sig ...os.Signal) func() {
			signal.Notify(c, sig...)
			return func() { signal.Stop(c) }
		}
	}
	if e.Terminal == nil {
		e.Terminal = func() (bool, int) { return false, 0 }
	}
	if e.Rows == nil {
		e.Rows = func() int { return 0 }
	}
}
