package statusls

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

const doctorUsage = `Usage: statusls doctor [--dir DIR | --config-home DIR] [--now TIME]

Explains the setup, for when an agent does not show up: which status
directory readers use and why (flag, $STATUS_DIR, $GENTLE_PI_CONFIG_HOME or
the default), whether the config home and the status directory have the
permissions SPEC.md requires (publisher rules P2 and P4, reader rule R2),
and a verdict with its reason for every file in the directory, including
the names readers ignore. Ends with hints.

Exit status: 0 when readers and publishers can use the directory, 1 when a
permission problem stops them.
`

// doctor explains the setup.
func doctor(args []string, env *Env) int {
	var c common
	flags := newFlagSet("statusls doctor")
	c.register(flags)
	if code := parseFlags(flags, args, env, doctorUsage); code >= 0 {
		return code
	}
	loc, now, err := c.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	home := env.Getenv("HOME")
	show := func(p string) string { return quotePath(render.TildePath(p, home)) }
	var hints []string
	problem := false

	fmt.Fprintf(out, "status directory: %s\n", show(loc.Dir))
	fmt.Fprintf(out, "  chosen by %s%s\n", loc.Source, sourceDetail(loc, env))
	fmt.Fprintf(out, "config home: %s\n", show(loc.ConfigHome))
	if sd := env.Getenv(statusfile.StatusDirEnv); sd != "" && loc.Source == location.FromStatusDir {
		if pub, err := location.ForPublisher("", "", env.Getenv); err == nil && filepath.Clean(pub.Dir) != filepath.Clean(loc.Dir) {
			fmt.Fprintf(out, "  note: publishers ignore $STATUS_DIR (SPEC.md L4): they write to %s\n", show(pub.Dir))
			hints = append(hints, "readers list $STATUS_DIR but publishers write to "+show(pub.Dir)+
				"; unset STATUS_DIR or set GENTLE_PI_CONFIG_HOME to "+show(filepath.Dir(loc.Dir))+" for both")
		}
	}

	fmt.Fprintln(out, "\npermissions:")
	// P2: the config home.
	switch err := perm.CheckConfigHome(loc.ConfigHome); {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintln(out, "  config home: does not exist yet (publishers create it with mode 0700: P3)")
	case err != nil:
		problem = true
		fmt.Fprintf(out, "  config home: PROBLEM: %s: publishers refuse to write (P2)\n", refusalText(err))
		hints = append(hints, fixHint(err))
	default:
		fmt.Fprintf(out, "  config home: ok for publishers (P2: a directory of yours, not writable by group or others%s)\n", modeOf(loc.ConfigHome))
	}
	// P4 and R2: the status directory.
	switch err := perm.CheckStatusDir(loc.Dir); {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintln(out, "  status directory: does not exist yet: readers see no sessions (R1); publishers create it with mode 0700 (P3)")
	case err != nil:
		problem = true
		fmt.Fprintf(out, "  status directory: PROBLEM for publishers: %s: they refuse to write (P4)\n", refusalText(err))
		hints = append(hints, fixHint(err))
	default:
		fmt.Fprintf(out, "  status directory: ok for publishers (P4: a directory of yours, no group or other permission%s)\n", modeOf(loc.Dir))
	}
	d, err := reader.Open(loc.Dir, reader.Options{Now: func() time.Time { return now }, Liveness: true, Ignored: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintln(out, "\nfiles: none (no status directory)")
		hints = append(hints, "no agent has published here yet: start one that publishes status, check that it uses the same config home, or try 'statusls demo'")
	case err != nil:
		problem = true
		fmt.Fprintf(out, "  status directory: PROBLEM for readers: %s: statusls refuses to list it (R2)\n", refusalText(err))
		hints = append(hints, fixHint(err))
	default:
		fmt.Fprintln(out, "  status directory: ok for readers (R2: not a symbolic link, yours, not writable by group or others)")
		l, lerr := d.List()
		d.Close()
		if lerr != nil {
			problem = true
			fmt.Fprintf(out, "\nfiles: cannot list: %v\n", lerr)
			break
		}
		hints = append(hints, doctorFiles(out, l, now)...)
	}

	hints = append(hints, doctorAgents(out, env)...)
	if len(hints) > 0 {
		fmt.Fprintln(out, "\nhints:")
		for _, h := range hints {
			fmt.Fprintf(out, "  - %s\n", h)
		}
	}
	if problem {
		return ExitError
	}
	return ExitOK
}

// sourceDetail adds the value of the variable or flag that chose the
// directory.
func sourceDetail(loc location.Location, env *Env) string {
	switch loc.Source {
	case location.FromStatusDir:
		return " = " + quotePath(env.Getenv(statusfile.StatusDirEnv))
	case location.FromConfigHome:
		return " = " + quotePath(env.Getenv(statusfile.ConfigHomeEnv))
	case location.FromDefault:
		return ": neither --dir, --config-home, $STATUS_DIR nor $GENTLE_PI_CONFIG_HOME is set"
	}
	return ""
}

// doctorFiles lists every entry with its verdict and returns hints.
func doctorFiles(out *bufio.Writer, l *reader.Listing, now time.Time) []string {
	count := map[reader.Verdict]int{}
	reasons := map[string]int{}
	for _, e := range l.Entries {
		count[e.Verdict]++
		if e.Verdict == reader.Invalid {
			reasons[e.Reason]++
		}
	}
	fmt.Fprintf(out, "\nfiles: %d (%d fresh, %d stale, %d invalid, %d ignored)\n",
		len(l.Entries), count[reader.Fresh], count[reader.Stale], count[reader.Invalid], count[reader.Ignored])
	for i := range l.Entries {
		e := &l.Entries[i]
		fmt.Fprintf(out, "  %-7s  %s", e.Verdict, quotePath(e.Name))
		switch e.Verdict {
		case reader.Fresh, reader.Stale:
			s := &e.Status
			fmt.Fprintf(out, "  session %s", strconv.Quote(statusfile.SanitizeText(s.Session)))
			if s.Agent != "" {
				fmt.Fprintf(out, ", agent %s", statusfile.SanitizeText(s.Agent))
			}
			fmt.Fprintf(out, ", %s, updated %s", statusfile.SanitizeText(string(s.State)), agoText(e.Age))
			if e.Verdict == reader.Stale {
				fmt.Fprintf(out, ", %s", pidSays(e))
			}
			if !s.State.Known() {
				fmt.Fprint(out, " (a state this reader does not know: kept, S2)")
			}
		case reader.Invalid:
			fmt.Fprintf(out, "  %s: %s", e.Reason, statusfile.SanitizeText(errText(e.Err)))
		case reader.Ignored:
			if e.Reason == reader.ReasonDotFile {
				fmt.Fprint(out, "  dot-file: hidden, e.g. a publisher's temporary file (R3)")
			} else {
				fmt.Fprint(out, "  not a status file name: <64 lowercase hex digits>.json (R3)")
			}
		}
		fmt.Fprintln(out)
	}
	var hints []string
	if count[reader.Fresh] == 0 && count[reader.Stale] == 0 && count[reader.Invalid] == 0 {
		hints = append(hints, "no status files: the agent is not publishing here; check that it runs with the same config home ($GENTLE_PI_CONFIG_HOME) or try 'statusls demo'")
	}
	if count[reader.Stale] > 0 {
		hints = append(hints, "stale sessions stopped heartbeating (every 10 s) more than 30 s ago, so readers hide them; 'statusls prune' removes those whose process is gone")
	}
	for _, r := range []struct{ reason, hint string }{
		{reader.ReasonNameMismatch, "name-mismatch: a file was copied or renamed; a status file must be named after the SHA-256 of its session id (N1)"},
		{string(statusfile.ReasonSchema), "unsupported-schema: written for another protocol version; update the publisher or the reader"},
		{reader.ReasonSymlink, "symlink: readers never follow links in the status directory (R4); publishers write regular files"},
		{reader.ReasonNotOwned, "not-owned: files of another account are not trusted (R7)"},
		{reader.ReasonTooLarge, "too-large: readers read at most 64 KiB of a file (R6)"},
		{reader.ReasonNotRegular, "not-regular: only regular files can be status files (R5)"},
	} {
		if reasons[r.reason] > 0 {
			hints = append(hints, r.hint)
		}
	}
	for _, reason := range []statusfile.Reason{statusfile.ReasonEmpty, statusfile.ReasonBadJSON, statusfile.ReasonNotObject, statusfile.ReasonMissingField, statusfile.ReasonWrongType, statusfile.ReasonBadValue} {
		if reasons[string(reason)] > 0 {
			hints = append(hints, "some files are not valid records (see their reason above): the publisher writing them does not follow SPEC.md §4; 'statusls --json --all' shows the details")
			break
		}
	}
	return hints
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(err.Error(), "perm: ")
}

func agoText(age time.Duration) string {
	if age < 0 {
		return render.FormatAge(age) + " (in the future)"
	}
	return render.FormatAge(age) + " ago"
}

// refusalText describes a refusal without the package prefix.
func refusalText(err error) string {
	var pe *perm.Error
	if errors.As(err, &pe) {
		msg := strings.TrimPrefix(pe.Err.Error(), "perm: ")
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		return msg
	}
	return err.Error()
}

// fixHint says how to fix a refusal.
func fixHint(err error) string {
	var pe *perm.Error
	if errors.As(err, &pe) {
		return pe.What + " " + quotePath(pe.Path) + ": " + refusalHint(pe)
	}
	return err.Error()
}

// modeOf describes a directory's mode, for the ok lines.
func modeOf(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("; mode %04o", fi.Mode().Perm())
}
