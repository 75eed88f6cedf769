package base

import (
	"io"
	"os"
	"strings"
)

// Exit codes shared by the commands. Commands add their own above 2.
const (
	ExitOK    = 0 // success
	ExitError = 1 // a runtime error, or a hook's failure with --strict
	ExitUsage = 2 // a usage error: an unknown flag or subcommand, a bad value
)

// Env is what a command gets from its process: its streams and its
// environment. Tests build their own; [Env.Fill] gives the fields left nil
// harmless defaults. A command with a clock keeps it in its own Env, as a
// statusfile.Clock.
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
