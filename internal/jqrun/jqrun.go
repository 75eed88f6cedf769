// Package jqrun is the boundary between the commands and the jq engine: a
// [Request] says which program to run over which inputs and how to print
// the results, and [Run] hands it to the engine that package
// [github.com/agentstatus/agentstatus/internal/jqrun/gojqrun] registers.
//
// The package itself links no jq implementation. gojq's package
// initialisation costs every process that links it about 0.5 ms and 2,300
// allocations at start-up (GODEBUG=inittrace=1), whether or not a filter
// is ever run; statusls therefore does not link it, and re-executes the
// statusls-jq binary (statusls with the engine linked) when a jq flag is
// given. A binary registers the engine by importing gojqrun for its side
// effect, as database/sql drivers do.
package jqrun

import (
	"io"
	"iter"
	"time"
)

// Exit codes of [Run], the same as the commands'.
const (
	ExitOK    = 0 // every input was filtered
	ExitError = 1 // a filter failed at run time, halt_error, or the timeout
	ExitUsage = 2 // a syntax or compile error in the filter
)

// Var is a named variable ($Name) given to the filter.
type Var struct {
	Name  string
	Value any // a decoded JSON value, as [DecodeJSON] returns it
}

// Request is one run of a jq program.
type Request struct {
	// Prog and Flag name the command and the flag in messages:
	// "statusls: --jq: ...".
	Prog, Flag string
	Filter     string
	Vars       []Var
	// Now, when not zero, is what the filter's now returns (statusls
	// --now); zero means the clock.
	Now time.Time
	// Environ is $ENV and env.
	Environ func() []string
	// Timeout bounds the time the filter runs on one input: the time
	// spent evaluating it, not reading inputs or writing results (a slow
	// pager does not count).
	Timeout time.Duration
	// Raw prints string results without quotes; Compact prints other
	// results on one line (else indented by two spaces).
	Raw, Compact bool
	// Inputs yields each input with the name used in its error messages
	// ("" for none). An input is a decoded JSON value ([DecodeJSON]).
	// Inputs are read one at a time, as the filter asks for them.
	Inputs         iter.Seq2[string, any]
	Stdout, Stderr io.Writer
}

var engine func(*Request) int

// Register makes run the engine of [Run]. It is called once, from the init
// function of an engine package.
func Register(run func(*Request) int) {
	if engine != nil {
		panic("jqrun: Register called twice")
	}
	engine = run
}

// Linked reports whether an engine is registered in this binary.
func Linked() bool { return engine != nil }

// Run runs r with the registered engine and returns the exit code. It
// panics when no engine is linked: check [Linked] first.
//
// When the timeout passes while the filter is inside one builtin (a long
// regular expression split, say), Run reports the timeout and returns
// ExitError at once, leaving that builtin to finish on its goroutine: the
// caller must then exit the process, as the commands' Main functions do.
func Run(r *Request) int {
	if engine == nil {
		panic("jqrun: no jq engine linked")
	}
	return engine(r)
}
