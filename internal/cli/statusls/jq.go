package statusls

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// jqArg is a --arg or --argjson variable.
type jqArg struct {
	name  string
	value any
}

// extractJQArgs takes --arg NAME VALUE and --argjson NAME JSON out of args
// (before a "--") and returns the other arguments.
func extractJQArgs(args []string, out *[]jqArg) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		flagName := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || (flagName != "arg" && flagName != "argjson") {
			rest = append(rest, a)
			continue
		}
		if i+2 >= len(args) {
			return nil, fmt.Errorf("--%s needs a name and a value", flagName)
		}
		name, raw := args[i+1], args[i+2]
		i += 2
		if !validVarName(name) {
			return nil, fmt.Errorf("--%s: %q is not a variable name", flagName, name)
		}
		var v any = raw
		if flagName == "argjson" {
			dec := json.NewDecoder(strings.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("--argjson %s: invalid JSON: %v", name, err)
			}
			if _, err := dec.Token(); err != io.EOF {
				return nil, fmt.Errorf("--argjson %s: invalid JSON: more than one value", name)
			}
		}
		*out = append(*out, jqArg{name: name, value: v})
	}
	return rest, nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// runJQ runs a --jq filter over the JSON object of every readable status
// file, in file-name order.
//
// The inputs are what the published one-liner's shell glob gives jq, minus
// what could hang or trick it: names that are not status file names (R3),
// symbolic links, FIFOs, sockets and devices, files of other accounts,
// files over 64 KiB. Files that are not exactly one JSON object are skipped
// silently (the one-liner prints nothing for them either; --json --all and
// doctor say why). Every string, keys included, is sanitized as for display
// (escape sequences removed, control and invisible characters made spaces:
// SPEC.md §7 steps 2–3), so -r cannot print a file's escape sequences; a
// record as publishers write it is unchanged by this.
func runJQ(o *listOptions, loc location.Location, now time.Time, env *Env) int {
	q, err := gojq.Parse(o.jq)
	if err != nil {
		reportParseError(env, o.jq, err)
		return ExitUsage
	}
	if o.now != "" {
		// --now: now is the given time, through a definition that
		// shadows the builtin.
		def, err := gojq.Parse("def now: " + strconv.FormatFloat(float64(now.UnixNano())/1e9, 'f', -1, 64) + "; .")
		if err != nil {
			panic(err)
		}
		q.FuncDefs = append(def.FuncDefs, q.FuncDefs...)
	}
	names := make([]string, len(o.jqArgs))
	values := make([]any, len(o.jqArgs))
	for i, a := range o.jqArgs {
		names[i], values[i] = "$"+a.name, a.value
	}
	code, err := gojq.Compile(q,
		gojq.WithVariables(names),
		gojq.WithEnvironLoader(env.Environ),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: --jq: %v\n", err)
		return ExitUsage
	}

	l, err := reader.List(loc.Dir, reader.Options{Clock: atClock(now), KeepData: true})
	if err != nil {
		return dirError(env, loc, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.jqTimeout)
	defer cancel()
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer out.Flush()
	failed := false
	for i := range l.Entries {
		e := &l.Entries[i]
		input, ok := jqInput(e.Data)
		if !ok {
			continue
		}
		iter := code.RunWithContext(ctx, input, values...)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				if ctx.Err() != nil {
					out.Flush()
					fmt.Fprintf(env.Stderr, "statusls: --jq: filter stopped after %v\n", o.jqTimeout)
					fmt.Fprintln(env.Stderr, "statusls: hint: the filter may not terminate; raise --jq-timeout if it needs longer")
					return ExitError
				}
				var he *gojq.HaltError
				if errors.As(err, &he) {
					out.Flush()
					if he.Value() == nil {
						if failed {
							return ExitError
						}
						return ExitOK
					}
					writeHaltValue(env.Stderr, he.Value())
					return ExitError
				}
				out.Flush()
				fmt.Fprintf(env.Stderr, "statusls: --jq: %s: %v\n", e.Name, err)
				failed = true
				break
			}
			if err := writeJQValue(out, v, o.raw, o.compact); err != nil {
				out.Flush()
				fmt.Fprintf(env.Stderr, "statusls: --jq: %s: %v\n", e.Name, err)
				failed = true
				break
			}
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %v\n", err)
		return ExitError
	}
	if failed {
		return ExitError
	}
	return ExitOK
}

// jqInput decodes a file's content for gojq: exactly one JSON object, with
// numbers kept exact and every string sanitized.
func jqInput(data []byte) (any, bool) {
	if data == nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more than one value
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	return sanitizeValue(m), true
}

// sanitizeValue sanitizes every string of a decoded JSON value, object keys
// included, and turns numbers into what gojq computes with: integers as int
// (or *big.Int when they do not fit), others as float64.
func sanitizeValue(v any) any {
	switch v := v.(type) {
	case string:
		return statusfile.SanitizeText(v)
	case json.Number:
		return jqNumber(v)
	case []any:
		for i := range v {
			v[i] = sanitizeValue(v[i])
		}
		return v
	case map[string]any:
		// Keys that sanitizing changes must not take the place of a key
		// the file really has ("\u001b[0mstate" must not become
		// "state"), and keys that sanitize alike must give the same
		// result at every run: clean keys first, then the others in
		// order of their raw bytes, each only where its key is still free.
		out := make(map[string]any, len(v))
		var unclean []string
		for k, x := range v {
			if statusfile.SanitizeText(k) != k {
				unclean = append(unclean, k)
				continue
			}
			out[k] = sanitizeValue(x)
		}
		slices.Sort(unclean)
		for _, k := range unclean {
			if sk := statusfile.SanitizeText(k); !hasKey(out, sk) {
				out[sk] = sanitizeValue(v[k])
			}
		}
		return out
	}
	return v
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// jqNumber converts a JSON number as gojq's own decoder does.
func jqNumber(n json.Number) any {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil && i == int64(int(i)) {
			return int(i)
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b
		}
	}
	// Out of range, ParseFloat returns ±Inf, which gojq prints as the
	// largest float, like jq.
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// writeJQValue writes one result as the jq command line does: with raw set,
// a string as it is; anything else as JSON, indented by two spaces (or
// compact), keys sorted (gojq does not keep the order of keys); a newline
// after each.
func writeJQValue(w *bufio.Writer, v any, raw, compact bool) error {
	if s, ok := v.(string); ok && raw {
		w.WriteString(s)
		return w.WriteByte('\n')
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return err
	}
	if !compact {
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "  "); err != nil {
			return err
		}
		b = ind.Bytes()
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
	b, _ := gojq.Marshal(v)
	w.Write(append(b, '\n'))
}

// reportParseError reports a syntax error in a --jq filter with its
// position: the line of the filter and a caret under the offending token.
func reportParseError(env *Env, filter string, err error) {
	var pe *gojq.ParseError
	if !errors.As(err, &pe) {
		fmt.Fprintf(env.Stderr, "statusls: --jq: %v\n", err)
		return
	}
	// Offset is the number of bytes scanned; the token ends there.
	off := pe.Offset - len(pe.Token)
	off = max(0, min(off, len(filter)))
	for off > 0 && off < len(filter) && !utf8.RuneStart(filter[off]) {
		off--
	}
	lineStart := strings.LastIndexByte(filter[:off], '\n') + 1
	lineEnd := strings.IndexByte(filter[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(filter)
	} else {
		lineEnd += off
	}
	line := strings.Count(filter[:off], "\n") + 1
	col := utf8.RuneCountInString(filter[lineStart:off]) + 1
	fmt.Fprintf(env.Stderr, "statusls: --jq: syntax error at line %d, column %d: %v\n", line, col, err)
	text := statusfile.SanitizeText(filter[lineStart:lineEnd])
	// The caret goes under the column; the sanitized line has one
	// character per original one where it matters for printable text.
	fmt.Fprintf(env.Stderr, "    %s\n    %s^\n", text, strings.Repeat(" ", col-1))
}
