// Package gojqrun is the jq engine of package jqrun, built on gojq
// (github.com/itchyny/gojq). Importing it for its side effect registers it:
//
//	import _ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun"
//
// Only binaries that run jq programs should: gojq's package initialisation
// runs at every start of a binary that links it (see package jqrun).
//
// # Timeout
//
// gojq checks its context only between operations, so a filter inside one
// long builtin (a regular expression split of a large string) would run
// past a context's deadline. The filter therefore runs on its own
// goroutine, watched by the caller's: when the filter has spent
// [jqrun.Request].Timeout on one input, the watcher flushes what was
// printed, reports the timeout and returns, whatever the filter is doing;
// the command then exits, which ends the goroutine. Time spent writing
// results (to a pager that waits for its reader, say) and reading inputs
// does not count.
package gojqrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/statusfile"
)

func init() { jqrun.Register(run) }

func run(r *jqrun.Request) int {
	code, status := compile(r)
	if code == nil {
		return status
	}
	values := make([]any, len(r.Vars))
	for i, v := range r.Vars {
		values[i] = v.Value
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	x := &execution{
		r:      r,
		code:   code,
		values: values,
		ctx:    ctx,
		out:    bufio.NewWriterSize(r.Stdout, 64<<10),
		done:   make(chan int, 1),
	}
	x.start = time.Now()
	go func() { x.done <- x.evalAll() }()
	return x.watch(cancel)
}

// compile parses and compiles the filter, reporting errors as usage
// errors (a nil code).
func compile(r *jqrun.Request) (*gojq.Code, int) {
	q, err := gojq.Parse(r.Filter)
	if err != nil {
		reportParseError(r, err)
		return nil, jqrun.ExitUsage
	}
	if !r.Now.IsZero() {
		// now is the given time, through a definition that shadows the
		// builtin.
		def, err := gojq.Parse("def now: " + strconv.FormatFloat(float64(r.Now.UnixNano())/1e9, 'f', -1, 64) + "; .")
		if err != nil {
			panic(err)
		}
		q.FuncDefs = append(def.FuncDefs, q.FuncDefs...)
	}
	names := make([]string, len(r.Vars))
	for i, v := range r.Vars {
		names[i] = "$" + v.Name
	}
	// A nil Environ is an empty $ENV, to gojq as to us.
	code, err := gojq.Compile(q, gojq.WithVariables(names), gojq.WithEnvironLoader(r.Environ))
	if err != nil {
		fmt.Fprintf(r.Stderr, "%s: %s: %v\n", r.Prog, r.Flag, err)
		return nil, jqrun.ExitUsage
	}
	return code, 0
}

// execution is one run: the filter's goroutine (evalAll) and the
// watcher's (watch).
type execution struct {
	r      *jqrun.Request
	code   *gojq.Code
	values []any
	ctx    context.Context
	done   chan int

	// start is the origin of the clock readings below.
	start time.Time
	// inside is when the filter entered gojq (nanoseconds since start,
	// plus one; 0 while it is outside). spent is the time it spent in
	// gojq on the current input before that. Written by the filter's
	// goroutine, read by the watcher.
	inside, spent atomic.Int64

	// mu guards the streams and stopped: the filter's goroutine writes
	// only while holding it and only while stopped is false.
	mu      sync.Mutex
	out     *bufio.Writer
	stopped bool
	// buf and ind hold the JSON of one result, compact and indented.
	buf []byte
	ind bytes.Buffer
}

func (x *execution) since() int64 { return int64(time.Since(x.start)) }

// next is iter.Next, timed.
func (x *execution) next(iter gojq.Iter) (any, bool) {
	x.inside.Store(x.since() + 1)
	v, ok := iter.Next()
	// inside first: the watcher may then count too little, never twice.
	d := x.since() + 1 - x.inside.Load()
	x.inside.Store(0)
	x.spent.Add(d)
	return v, ok
}

// overdue reports whether the filter has used its time on this input.
func (x *execution) overdue() bool { return x.spent.Load() >= int64(x.r.Timeout) }

// errTimedOut ends evalAll when the filter itself finds its time used.
var errTimedOut = errors.New("timed out")

// evalAll runs the filter over every input, on the filter's goroutine.
func (x *execution) evalAll() int {
	failed := false
	for name, input := range x.r.Inputs {
		x.spent.Store(0)
		status, err := x.eval(name, input)
		if err == errTimedOut || x.ctx.Err() != nil {
			return -1 // the watcher reports it
		}
		if status == jqrun.ExitOK && failed {
			return jqrun.ExitError // halt after a failed input
		}
		if status >= 0 {
			return status
		}
		if err != nil {
			failed = true
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stopped {
		return -1
	}
	if err := x.out.Flush(); err != nil {
		fmt.Fprintf(x.r.Stderr, "%s: %v\n", x.r.Prog, err)
		return jqrun.ExitError
	}
	if failed {
		return jqrun.ExitError
	}
	return jqrun.ExitOK
}

// eval runs the filter over one input. It returns an exit status to stop
// at (halt, halt_error), or -1 to go on, with the error the filter failed
// with on this input, if any.
func (x *execution) eval(name string, input any) (int, error) {
	iter := x.code.RunWithContext(x.ctx, input, x.values...)
	for {
		v, ok := x.next(iter)
		if !ok {
			return -1, nil
		}
		if x.overdue() || x.ctx.Err() != nil {
			return -1, errTimedOut
		}
		err, isErr := v.(error)
		x.mu.Lock()
		if x.stopped {
			x.mu.Unlock()
			return -1, errTimedOut
		}
		if isErr {
			status := x.reportError(name, err)
			x.mu.Unlock()
			return status, err
		}
		err = x.write(v)
		if err != nil {
			x.out.Flush()
			fmt.Fprintf(x.r.Stderr, "%s: %s: %s%v\n", x.r.Prog, x.r.Flag, prefix(name), err)
		}
		x.mu.Unlock()
		if err != nil {
			return -1, err
		}
	}
}

// reportError reports a run-time error of the filter (x.mu held). It
// returns the exit status for halt and halt_error, else -1.
func (x *execution) reportError(name string, err error) int {
	x.out.Flush()
	var he *gojq.HaltError
	if errors.As(err, &he) {
		if he.Value() == nil {
			return jqrun.ExitOK
		}
		writeHaltValue(x.r.Stderr, he.Value())
		return jqrun.ExitError
	}
	fmt.Fprintf(x.r.Stderr, "%s: %s: %s%v\n", x.r.Prog, x.r.Flag, prefix(name), err)
	return -1
}

func prefix(name string) string {
	if name == "" {
		return ""
	}
	return name + ": "
}

// minCheck is the shortest interval between two checks of the watcher.
const minCheck = time.Millisecond

// watch waits for the filter's goroutine, or for the filter to overrun
// its time: then it stops the filter (cancel, and no more output), flushes
// what was printed and reports the timeout.
func (x *execution) watch(cancel context.CancelFunc) int {
	limit := int64(x.r.Timeout)
	t := time.NewTimer(x.r.Timeout)
	defer t.Stop()
	for {
		select {
		case status := <-x.done:
			if status >= 0 {
				return status
			}
			return x.timedOut(cancel)
		case <-t.C:
		}
		used := x.spent.Load()
		if in := x.inside.Load(); in != 0 {
			used += x.since() + 1 - in
			if used >= limit {
				return x.timedOut(cancel)
			}
		}
		t.Reset(max(time.Duration(limit-used), minCheck))
	}
}

// lockWait bounds how long the watcher waits for the filter's goroutine to
// finish a write before giving up on flushing.
const lockWait = 100 * time.Millisecond

func (x *execution) timedOut(cancel context.CancelFunc) int {
	cancel()
	// The filter's goroutine holds the lock only to write; a write can
	// block (a full pipe), so wait for it a little, then report anyway.
	locked := false
	for deadline := time.Now().Add(lockWait); !locked && time.Now().Before(deadline); {
		if locked = x.mu.TryLock(); !locked {
			time.Sleep(time.Millisecond)
		}
	}
	if locked {
		x.stopped = true
		x.out.Flush()
		x.mu.Unlock()
	}
	fmt.Fprintf(x.r.Stderr, "%s: %s: filter stopped after %v\n", x.r.Prog, x.r.Flag, x.r.Timeout)
	fmt.Fprintf(x.r.Stderr, "%s: hint: the filter may not terminate; raise --jq-timeout if it needs longer\n", x.r.Prog)
	return jqrun.ExitError
}

// write writes one result as the jq command line does: with raw set, a
// string as it is; anything else as JSON, indented by two spaces (or
// compact), keys sorted (gojq does not keep the order of keys); a newline
// after each.
func (x *execution) write(v any) error {
	w := x.out
	if s, ok := v.(string); ok && x.r.Raw {
		w.WriteString(s)
		return w.WriteByte('\n')
	}
	x.buf = appendJSON(x.buf[:0], v)
	b := x.buf
	if !x.r.Compact {
		x.ind.Reset()
		if err := json.Indent(&x.ind, b, "", "  "); err != nil {
			return err
		}
		b = x.ind.Bytes()
	}
	w.Write(b)
	return w.WriteByte('\n')
}

// writeHaltValue writes halt_error's value as jq does: a string as it is,
// anything else as JSON with a newline.
func writeHaltValue(w io.Writer, v any) {
	if s, ok := v.(string); ok {
		io.WriteString(w, s)
		return
	}
	w.Write(append(appendJSON(nil, v), '\n'))
}

// reportParseError reports a syntax error in the filter with its
// position: the line of the filter and a caret under the offending token.
func reportParseError(r *jqrun.Request, err error) {
	var pe *gojq.ParseError
	if !errors.As(err, &pe) {
		fmt.Fprintf(r.Stderr, "%s: %s: %v\n", r.Prog, r.Flag, err)
		return
	}
	filter := r.Filter
	// Offset is the number of bytes scanned; the token ends there.
	off := pe.Offset - len(pe.Token)
	off = max(0, min(off, len(filter)))
	for off > 0 && off < len(filter) && !utf8.RuneStart(filter[off]) {
		off--
	}
	lineStart := strings.LastIndexByte(filter[:off], '\n') + 1
	text, _, _ := strings.Cut(filter[lineStart:], "\n")
	line := strings.Count(filter[:off], "\n") + 1
	col := utf8.RuneCountInString(filter[lineStart:off]) + 1
	fmt.Fprintf(r.Stderr, "%s: %s: syntax error at line %d, column %d: %v\n", r.Prog, r.Flag, line, col, err)
	text = statusfile.SanitizeText(text)
	// The caret goes under the column; the sanitized line has one
	// character per original one where it matters for printable text.
	fmt.Fprintf(r.Stderr, "    %s\n    %s^\n", text, strings.Repeat(" ", col-1))
}
