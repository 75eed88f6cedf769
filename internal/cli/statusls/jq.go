package statusls

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// The two jq modes.
//
//   - --jq FILTER runs FILTER once, as gh does, over what --json would
//     print: the array of session objects, after --state, --agent, --cwd
//     and --sort, fresh sessions only unless --all (which adds stale
//     sessions and invalid files with their reason, as in --json --all).
//     String results print raw; other results print as JSON, compact
//     unless stdout is a terminal (or -c is given). That is gh's rule:
//     "gh help formatting" says the --jq output "is automatically
//     pretty-printed" when connected to a terminal, and go-gh's pkg/jq
//     writes top-level strings "as raw values and not as JSON scalars".
//     Unlike gh, null prints as null and numbers as jq prints them.
//   - --jq-files FILTER runs FILTER over the JSON object of each readable
//     status file, in file-name order: what the published one-liner's
//     shell glob gives jq, minus what could hang or trick it. Output is
//     jq's: -r prints strings raw, -c compacts.
const (
	modeJQ      = "jq"
	modeJQFiles = "jq-files"
)

// extractJQArgs takes --arg NAME VALUE and --argjson NAME JSON out of args
// (before a "--") and returns the other arguments.
func extractJQArgs(args []string, out *[]jqrun.Var) ([]string, error) {
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
			var err error
			if v, err = jqrun.Decode([]byte(raw), false); err != nil {
				return nil, fmt.Errorf("--argjson %s: invalid JSON: %v", name, err)
			}
		}
		*out = append(*out, jqrun.Var{Name: name, Value: v})
	}
	return rest, nil
}

func validVarName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// checkJQFlags checks the jq flags against the mode parsed; -1 means go on.
func checkJQFlags(o *listOptions, env *cmdEnv) int {
	switch o.mode {
	case modeJQFiles:
		for _, f := range []struct {
			set  bool
			name string
		}{{o.all, "all"}, {o.states != "", "state"}, {o.agents != "", "agent"}, {o.cwd != "", "cwd"}, {o.sort != "", "sort"}} {
			if f.set {
				return usageError(env, "--jq-files cannot be combined with --%s: select in the filter, or use --jq over the sessions", f.name)
			}
		}
		fallthrough
	case modeJQ:
		if o.jqTimeout <= 0 {
			return usageError(env, "--jq-timeout must be positive")
		}
		return -1
	}
	switch {
	case o.raw:
		return usageError(env, "-r needs --jq or --jq-files")
	case o.compact:
		return usageError(env, "-c needs --jq or --jq-files")
	case len(o.jqArgs) > 0:
		return usageError(env, "--arg and --argjson need --jq or --jq-files")
	}
	return -1
}

// jqHelper is the binary that runs --jq and --jq-files: statusls with the
// jq engine linked (cmd/statusls-jq).
const jqHelper = "statusls-jq"

// helperEnv marks a process started by re-executing the jq helper, so that
// a helper without the engine cannot start itself again.
const helperEnv = "STATUSLS_JQ_HELPER"

// runJQ runs --jq FILTER over entries, the listing --json prints (or,
// streamed, over this machine's listing in file-name order, read here), or
// --jq-files. In a binary without the jq engine (statusls itself) it
// re-executes the statusls-jq helper with the same arguments instead, and
// returns its exit status (see base.ExecHelper).
func runJQ(o *listOptions, loc location.Location, now time.Time, entries []reader.Entry, streamed bool, env *cmdEnv) int {
	if !jqrun.Linked() {
		if env.Getenv(helperEnv) != "" {
			fmt.Fprintf(env.Stderr, "statusls: --%s: this statusls-jq has no jq engine\n", o.mode)
			return base.ExitError
		}
		path, err := base.FindHelper(jqHelper)
		if err != nil {
			fmt.Fprintf(env.Stderr, "statusls: --jq and --jq-files need %s, which is not installed next to statusls or in $PATH\n", jqHelper)
			fmt.Fprintf(env.Stderr, "statusls: hint: go install github.com/agentstatus/agentstatus/cmd/%s@latest\n", jqHelper)
			return base.ExitError
		}
		environ := append(env.Environ(), helperEnv+"=1")
		code, err := base.ExecHelper(base.Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr}, path, o.args, environ)
		if err != nil {
			fmt.Fprintf(env.Stderr, "statusls: %s: %v\n", jqHelper, err)
		}
		return code
	}
	r := &jqrun.Request{
		Prog:    "statusls",
		Flag:    "--" + o.mode,
		Filter:  o.jq,
		Environ: env.Environ,
		Timeout: o.jqTimeout,
		Raw:     o.raw,
		Compact: o.compact,
		Stdout:  env.Stdout,
		Stderr:  env.Stderr,
		Vars:    o.jqArgs,
	}
	if o.now != "" {
		r.Now = now
	}
	if o.mode == modeJQFiles {
		files, closeFiles, err := openFiles(loc.Dir)
		if err != nil {
			return dirError(env, err)
		}
		defer closeFiles()
		r.Inputs = files
		// Each file is garbage once filtered, and little stays live (the
		// names, one file, the filter's state): the listing modes' GOGC of
		// 400 and 24 MiB limit (see Main) would let the heap grow with the
		// number of files read. With 100 % and a soft limit of 16 MiB, peak
		// memory stays flat (bench/jq.sh memory).
		defer tuneGC(env.Getenv, 100, 16<<20)()
		return jqrun.Run(r)
	}

	// --jq: as gh does, strings raw, and JSON indented only for a
	// terminal; over the objects --json prints, decoded. Streamed, each
	// entry is decoded as it is read; otherwise the listing is held, then
	// the decoded objects in its place. Never the printed array.
	isTerm, _ := env.Terminal()
	r.Raw = true
	r.Compact = o.compact || !isTerm
	var sessions []any
	var buf []byte
	add := func(e *reader.Entry) {
		buf = render.AppendJSON(buf[:0], e)
		v, err := jqrun.Decode(buf, false) // already sanitized
		if err != nil {
			panic("statusls: --json printed invalid JSON: " + err.Error())
		}
		sessions = append(sessions, v)
	}
	if streamed {
		// In file-name order, the sessions are decoded as they are read:
		// the listing is never held.
		err := eachRecord(loc.Dir, reader.Options{Clock: atClock(now), Liveness: true}, func(e *reader.Entry) {
			if o.filter.Match(e) {
				add(e)
			}
		})
		if err != nil {
			return dirError(env, err)
		}
	}
	for i := range entries {
		add(&entries[i])
		// The object replaces the entry: at most one copy of each
		// session is held.
		entries[i] = reader.Entry{}
	}
	if sessions == nil {
		sessions = []any{} // [], not null
	}
	r.Inputs = func(yield func(string, any) bool) { yield("", sessions) }
	return jqrun.Run(r)
}

// openFiles opens the status directory with the reader's rules (SPEC.md
// R2) and lists its status file names (R3), in order, for --jq-files: a
// missing directory has no files. files yields the decoded object of every
// readable status file, one at a time, so that memory stays flat in the
// number of files (one 64 KiB buffer, one decoded file, and the list of
// names): regular, owned by the current account, at most 64 KiB, exactly
// one JSON object. Other files are skipped silently, as the one-liner
// prints nothing for them either (--json --all and doctor say why).
func openFiles(dir string) (files iter.Seq2[string, any], closeFiles func(), err error) {
	d, err := safefs.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return func(func(string, any) bool) {}, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var des []safefs.DirEntry
	if err = d.Check(); err == nil {
		des, err = d.List()
	}
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	var names []string
	for _, de := range des {
		// The type from the directory saves opening what cannot be a
		// record (symbolic links, FIFOs, ...); ReadFile checks again on
		// the opened file.
		if safefs.IsStatusName(de.Name) && de.Type&fs.ModeType == 0 {
			names = append(names, de.Name)
		}
	}
	slices.Sort(names)
	files = func(yield func(string, any) bool) {
		buf := make([]byte, 0, statusfile.MaxFileSize+1)
		for _, name := range names {
			data, _, err := d.ReadFile(name, buf, statusfile.MaxFileSize)
			if err != nil {
				continue
			}
			buf = data[:0]
			if v, ok := jqrun.DecodeObject(data); ok && !yield(name, v) {
				return
			}
		}
	}
	return files, func() { d.Close() }, nil
}
