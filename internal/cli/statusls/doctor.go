package statusls

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/hooksession"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/perm"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

const doctorDescription = `Explains the setup, for when an agent does not show up: which status
directory readers use and why (flag, $STATUS_DIR, $GENTLE_PI_CONFIG_HOME or
the default), whether the config home and the status directory have the
permissions SPEC.md requires (publisher rules P2 and P4, reader rule R2),
and a verdict with its reason for every file in the directory, including
the names readers ignore; then, for each agent found on the machine (Claude
Code, Codex, Gemini CLI, OpenCode), whether statuspub's hooks are installed
(statuspub install). Ends with hints.

With --host H[,H] (or --all-hosts), it checks each host instead: that ssh
reaches it without a prompt, that statusls is on its $PATH and as recent as
this one, and that it can list its status directory; with the fix for what
fails.

Exit status: 0 when readers and publishers can use the directory, 1 when a
permission problem stops them (--host: when a host fails).
`

// doctorOptions are doctor's flags.
type doctorOptions struct {
	common
	json bool

	hostFlags // --host: doctorhosts.go
}

// dirInfo is what doctor knows about a directory beyond perm's rules.
type dirInfo struct {
	mode     string // as ls -ld shows it, with the octal: "drwxrwxrwt (1777)"
	sticky   bool
	mine     bool // owned by the current user
	shared   bool // sticky or another account's: never advise changing it
	noAccess bool // the current user cannot list, enter or write it
}

// doctorReport is what doctor found; --json prints it as it is.
type doctorReport struct {
	StatusDir  string         `json:"statusDir"`
	ChosenBy   string         `json:"chosenBy"`
	ConfigHome string         `json:"configHome"`
	Checks     []doctorCheck  `json:"checks"`
	Files      []doctorFile   `json:"files"`
	Counts     map[string]int `json:"counts"`
	// Agents are the agents found on the machine, and whether their
	// hooks publish (statuspub install).
	Agents []doctorAgent `json:"agents"`
	Hints  []string      `json:"hints"`
	OK     bool          `json:"ok"`

	out    []string        // the text report's lines before the hints
	hinted map[string]bool // one hint per problem
}

// doctorCheck is one rule checked on one directory.
type doctorCheck struct {
	Subject string `json:"subject"` // "config home" or "status directory"
	For     string `json:"for"`     // "publishers" or "readers"
	Path    string `json:"path"`
	Mode    string `json:"mode,omitempty"`
	Status  string `json:"status"` // "ok", "missing" or "problem"
	Rule    string `json:"rule"`
	Detail  string `json:"detail,omitempty"`
}

// doctorFile is one directory entry with its verdict.
type doctorFile struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
	Kind    string `json:"kind"` // status, write-lock, owner-lock, tasks, temporary, other
	Detail  string `json:"detail"`
}

func (r *doctorReport) hint(key, text string) {
	if r.hinted[key] {
		return
	}
	r.hinted[key] = true
	r.Hints = append(r.Hints, text)
}

func (r *doctorReport) check(c doctorCheck, line string) {
	r.Checks = append(r.Checks, c)
	r.out = append(r.out, line)
	if c.Status == "problem" {
		r.OK = false
	}
}

// doctor explains the setup.
func doctor(o *doctorOptions, env *cmdEnv) int {
	loc, now, err := o.resolve(env)
	if err != nil {
		return usageError(env, "%v", err)
	}
	home := env.Getenv("HOME")
	show := func(p string) string { return quotePath(render.TildePath(p, home)) }
	r := &doctorReport{StatusDir: loc.Dir, ChosenBy: string(loc.Source), ConfigHome: loc.ConfigHome,
		Counts: map[string]int{}, OK: true, hinted: map[string]bool{}, Checks: []doctorCheck{}, Files: []doctorFile{}, Agents: []doctorAgent{}, Hints: []string{}}
	// The value of the variable or flag that chose the directory.
	detail := ""
	switch loc.Source {
	case location.FromStatusDir:
		detail = " = " + quotePath(env.Getenv(location.StatusDirEnv))
	case location.FromConfigHome:
		detail = " = " + quotePath(env.Getenv(location.ConfigHomeEnv))
	case location.FromDefault:
		detail = ": neither --dir, --config-home, $STATUS_DIR nor $GENTLE_PI_CONFIG_HOME is set"
	}
	r.out = append(r.out,
		fmt.Sprintf("status directory: %s", show(loc.Dir)),
		fmt.Sprintf("  chosen by %s%s", loc.Source, detail),
		fmt.Sprintf("config home: %s", show(loc.ConfigHome)),
	)
	if sd := env.Getenv(location.StatusDirEnv); sd != "" && loc.Source == location.FromStatusDir {
		if pub, err := location.ForPublisher("", "", env.Getenv); err == nil && filepath.Clean(pub.Dir) != filepath.Clean(loc.Dir) {
			r.out = append(r.out, fmt.Sprintf("  note: publishers ignore $STATUS_DIR (SPEC.md L4): they write to %s", show(pub.Dir)))
			r.hint("L4", "readers list $STATUS_DIR but publishers write to "+show(pub.Dir)+
				"; unset STATUS_DIR or set GENTLE_PI_CONFIG_HOME to "+show(filepath.Dir(loc.Dir))+" for both")
		}
	}

	// P2 and P4: the config home and the status directory, for publishers.
	r.out = append(r.out, "\npermissions:")
	var sdInfo dirInfo
	for _, c := range []struct {
		subject, path, rule  string
		check                func(string) error
		missing, missingLine string
		problemLine, okLine  string
	}{
		{"config home", loc.ConfigHome, "P2", perm.CheckConfigHome,
			"publishers create it with mode 0700", "does not exist yet (publishers create it with mode 0700: P3)",
			"PROBLEM: %s: publishers refuse to write (P2)", "ok for publishers (P2: a directory of yours, not writable by group or others; mode %s)"},
		{"status directory", loc.Dir, "P4", perm.CheckStatusDir,
			"readers see no sessions (R1); publishers create it with mode 0700", "does not exist yet: readers see no sessions (R1); publishers create it with mode 0700 (P3)",
			"PROBLEM for publishers: %s: they refuse to write (P4)", "ok for publishers (P4: a directory of yours, no group or other permission; mode %s)"},
	} {
		info := inspectDir(c.path)
		sdInfo = info // the status directory's comes last
		prefix := "  " + c.subject + ": "
		switch err := c.check(c.path); {
		case errors.Is(err, fs.ErrNotExist):
			r.check(doctorCheck{c.subject, "publishers", c.path, "", "missing", "P3", c.missing}, prefix+c.missingLine)
		case err != nil:
			text := refusalText(err, info)
			r.check(doctorCheck{c.subject, "publishers", c.path, info.mode, "problem", c.rule, text}, prefix+fmt.Sprintf(c.problemLine, text))
			r.hint(c.path, fixHint(err, info, show))
		case info.noAccess:
			r.check(doctorCheck{c.subject, "publishers", c.path, info.mode, "problem", c.rule, "you cannot use it"},
				fmt.Sprintf("%sPROBLEM: mode %s: you cannot list, enter or write it", prefix, info.mode))
			r.hint(c.path, accessHint("the "+c.subject, c.path, info, show))
		default:
			r.check(doctorCheck{c.subject, "publishers", c.path, info.mode, "ok", c.rule, ""}, prefix+fmt.Sprintf(c.okLine, info.mode))
		}
	}
	d, err := reader.Open(loc.Dir, reader.Options{Clock: atClock(now), Liveness: true, Ignored: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.out = append(r.out, "", "files: none (no status directory)")
		r.hint("no-dir", "no agent has published here yet: start one that publishes status, check that it uses the same config home, or try 'statusls demo'")
	case err != nil:
		text := refusalText(err, sdInfo)
		r.check(doctorCheck{"status directory", "readers", loc.Dir, sdInfo.mode, "problem", "R2", text},
			fmt.Sprintf("  status directory: PROBLEM for readers: %s: statusls refuses to list it (R2)", text))
		r.hint(loc.Dir, fixHint(err, sdInfo, show))
	default:
		l, lerr := d.List()
		d.Close()
		if lerr != nil {
			text := base.Message(lerr)
			r.check(doctorCheck{"status directory", "readers", loc.Dir, sdInfo.mode, "problem", "R2", text},
				fmt.Sprintf("  status directory: PROBLEM for readers: cannot list it: %s", text))
			if sdInfo.noAccess {
				r.hint(loc.Dir, accessHint("the status directory", loc.Dir, sdInfo, show))
			}
			break
		}
		r.check(doctorCheck{"status directory", "readers", loc.Dir, sdInfo.mode, "ok", "R2", ""},
			"  status directory: ok for readers (R2: not a symbolic link, yours, not writable by group or others)")
		doctorFiles(r, l)
	}
	doctorAgents(r, env)
	doctorACP(r, env)

	if len(r.Hints) > 0 {
		r.out = append(r.out, "\nhints:")
		for _, h := range r.Hints {
			r.out = append(r.out, "  - "+h)
		}
	}
	return writeReport(env, o.json, r, r.OK, r.out)
}

// writeReport prints what doctor (or doctor --host) found: rep as indented
// JSON with --json, else the text's lines; the exit status is 1 unless ok.
func writeReport(env *cmdEnv, asJSON bool, rep any, ok bool, text []string) int {
	if asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		env.Stdout.Write(append(b, '\n'))
	} else {
		io.WriteString(env.Stdout, strings.Join(text, "\n")+"\n")
	}
	if !ok {
		return base.ExitError
	}
	return base.ExitOK
}

// doctorFiles lists every entry with its verdict into r, and its text.
func doctorFiles(r *doctorReport, l *reader.Listing) {
	count := map[reader.Verdict]int{}
	reasons := map[string]int{}
	for _, e := range l.Entries {
		count[e.Verdict]++
		if e.Verdict == reader.Invalid {
			reasons[e.Reason]++
		}
	}
	for _, v := range []reader.Verdict{reader.Fresh, reader.Stale, reader.Invalid, reader.Ignored} {
		r.Counts[string(v)] = count[v]
	}
	r.out = append(r.out, "", fmt.Sprintf("files: %d (%d fresh, %d stale, %d invalid, %d ignored)",
		len(l.Entries), count[reader.Fresh], count[reader.Stale], count[reader.Invalid], count[reader.Ignored]))
	for i := range l.Entries {
		e := &l.Entries[i]
		var b strings.Builder
		kind := "status"
		switch e.Verdict {
		case reader.Fresh, reader.Stale:
			s := &e.Status
			fmt.Fprintf(&b, "session %s", strconv.Quote(statusfile.SanitizeText(s.Session)))
			if s.Agent != "" {
				fmt.Fprintf(&b, ", agent %s", statusfile.SanitizeText(s.Agent))
			}
			fmt.Fprintf(&b, ", %s, updated %s", statusfile.SanitizeText(string(s.State)), agoText(e.Age))
			if e.Verdict == reader.Stale {
				fmt.Fprintf(&b, ", %s", pidSays(e))
			}
			if !s.State.Known() {
				b.WriteString(" (a state this reader does not know: kept, S2)")
			}
		case reader.Invalid:
			// The error without the reason that the line shows already.
			msg := ""
			if e.Err != nil {
				msg = base.Message(e.Err)
				if m, ok := strings.CutPrefix(msg, e.Reason+": "); ok {
					msg = m
				} else {
					msg = strings.TrimPrefix(msg, e.Reason+" ")
				}
			}
			fmt.Fprintf(&b, "%s: %s", e.Reason, statusfile.SanitizeText(msg))
		case reader.Ignored:
			var what string
			kind, what = ignoredKind(e.Name)
			b.WriteString(what)
		}
		r.Files = append(r.Files, doctorFile{Name: statusfile.SanitizeText(e.Name), Verdict: string(e.Verdict), Kind: kind, Detail: b.String()})
		r.out = append(r.out, fmt.Sprintf("  %-7s  %s  %s", e.Verdict, quotePath(e.Name), b.String()))
	}
	if count[reader.Fresh] == 0 && count[reader.Stale] == 0 && count[reader.Invalid] == 0 {
		r.hint("no-files", "no status files: the agent is not publishing here; check that it runs with the same config home ($GENTLE_PI_CONFIG_HOME) or try 'statusls demo'")
	}
	if count[reader.Stale] > 0 {
		r.hint("stale", "stale sessions stopped heartbeating (every 10 s) more than 30 s ago, so readers hide them; 'statusls prune' removes those whose process is gone")
	}
	// A hint for each reason found; one for all the reasons of a file that
	// is not a valid record (a hint is given once).
	const invalid = "some files are not valid records (see their reason above): the publisher writing them does not follow SPEC.md §4; 'statusls --json --all' shows the details"
	for _, h := range [][2]string{
		{"name-mismatch", "name-mismatch: a file was copied or renamed; a status file must be named after the SHA-256 of its session id (N1)"},
		{"unsupported-schema", "unsupported-schema: written for another protocol version; update the publisher or the reader"},
		{"symlink", "symlink: readers never follow links in the status directory (R4); publishers write regular files"},
		{"not-owned", "not-owned: files of another account are not trusted (R7)"},
		{"too-large", "too-large: readers read at most 64 KiB of a file (R6)"},
		{"not-regular", "not-regular: only regular files can be status files (R5)"},
		{"empty", invalid}, {"bad-json", invalid}, {"not-object", invalid},
		{"missing-field", invalid}, {"wrong-type", invalid}, {"bad-value", invalid},
	} {
		if reasons[h[0]] > 0 {
			r.hint(h[1], h[1])
		}
	}
}

// ignoredKind names a file readers ignore: statuspub's lock, owner and
// task files, a publisher's temporary file, or something else.
func ignoredKind(name string) (kind, what string) {
	switch hooksession.FileKind(name) {
	case "lock":
		return "write-lock", "statuspub's write lock of a session: harmless, kept for the next write (R3)"
	case "owner":
		return "owner-lock", "statuspub's owner lock: held by the process that heartbeats a session (R3)"
	case "tasks":
		return "tasks", "statuspub's task list of a session, for the hook adapters' titles (R3)"
	}
	if _, _, ok := safefs.ParseTempName(name); ok {
		return "temporary", "a publisher's temporary file, renamed into place when complete (R3)"
	}
	if _, ok := safefs.ParseLegacyTempName(name); ok {
		return "temporary", "an earlier version's temporary file: prune removes it once it is old (R3, D5)"
	}
	if strings.HasPrefix(name, ".") {
		return "other", "dot-file: hidden from readers (R3)"
	}
	return "other", "not a status file name: <64 lowercase hex digits>.json (R3)"
}

func agoText(age time.Duration) string {
	if age < 0 {
		return render.FormatAge(age) + " (in the future)"
	}
	return render.FormatAge(age) + " ago"
}

// refusalText describes a refusal without the package prefix, with the
// mode as ls shows it.
func refusalText(err error, info dirInfo) string {
	var pe *perm.Error
	if errors.As(err, &pe) {
		msg := base.Message(pe.Err)
		switch {
		case strings.HasPrefix(pe.Detail, "mode ") && info.mode != "":
			msg += " (mode " + info.mode + ")"
		case pe.Detail != "":
			msg += " (" + pe.Detail + ")"
		}
		return msg
	}
	return base.Message(err)
}

// fixHint says how to fix a refusal, safely: it never advises changing a
// directory shared with other accounts.
func fixHint(err error, info dirInfo, show func(string) string) string {
	var pe *perm.Error
	if !errors.As(err, &pe) {
		return base.Message(err)
	}
	return pe.What + " " + show(pe.Path) + ": " + safeHint(pe, info)
}

// safeHint says what to do about a refused directory, never advising to
// change one shared with other accounts (sticky, or not the user's).
func safeHint(pe *perm.Error, info dirInfo) string {
	if info.shared && (errors.Is(pe.Err, perm.ErrWritable) || errors.Is(pe.Err, perm.ErrAccessible) || errors.Is(pe.Err, perm.ErrNotOwned)) {
		why := "it belongs to another account"
		if info.sticky {
			why = "it is shared with other accounts (sticky, like /tmp)"
		}
		return why + ": do not change it; use a directory of your own, e.g. --config-home ~/.config/agentstatus (created with mode 0700), or --dir inside it"
	}
	return refusalHint(pe)
}

// accessHint says what to do about a directory the user cannot use.
func accessHint(what, path string, info dirInfo, show func(string) string) string {
	if info.mine && !info.sticky {
		return what + " " + show(path) + " is yours but you cannot list, enter or write it (mode " + info.mode + "); run 'chmod 700 " + shquote.Quote(path) + "'"
	}
	return what + " " + show(path) + " is not yours and you cannot use it (mode " + info.mode + "); use a directory of your own with --dir or --config-home"
}
