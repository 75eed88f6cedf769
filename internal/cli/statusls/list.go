package statusls

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// listOptions are the flags of the listing command.
type listOptions struct {
	common
	table, tsv, json, ndjson, summary, count bool
	wide                                     bool
	jsonFields                               string
	fields                                   []string
	selection
	sort  string
	color string

	jq         string
	jqSet      bool
	jqFilesSet bool
	args       []string // for re-executing the jq helper
	raw        bool
	compact    bool
	jqArgs     []jqrun.Var
	jqTimeout  time.Duration

	filter render.Filter
	order  render.Order
	mode   string

	hostFlags // --host, --all-hosts, --local: hosts.go
}

func (o *listOptions) register(fs *base.FlagSet, env *cmdEnv) {
	fs.Group("Output (one of; default: a table on a terminal, else TSV)")
	fs.Bool(&o.table, "table", false, "an aligned table, most urgent first (blocked, working, idle)")
	fs.Bool(&o.tsv, "tsv", false, "agent<TAB>session<TAB>state<TAB>title, as the published jq one-liner")
	js := fs.String(&o.jsonFields, "json", "", "FIELDS", "a JSON array of sessions (see \"JSON\" below); with FIELDS, only\nthose keys: --json session,state,title")
	js.NoValue = "*"
	js.Complete = func() []string { return render.JSONFields }
	fs.Bool(&o.ndjson, "ndjson", false, "one JSON object per line")
	fs.Bool(&o.summary, "summary", false, "one line for status bars: \"1 blocked · 2 working\"; nothing when none")
	fs.Bool(&o.count, "count", false, "the number of sessions")
	fs.Bool(&o.wide, "wide", false, "the table shows full session ids (default: the shortest\nunambiguous prefix, at least 8 characters)")

	fs.Group("Selection")
	o.selection.register(fs, "include stale sessions (and, in JSON, invalid files with their reason)",
		"only sessions in these states: working, blocked, idle,\nor other:NAME for a state newer publishers may add")
	fs.String(&o.sort, "sort", "", "ORDER", "attention (the table's default), updated, or name (the default otherwise)").Complete = func() []string { return []string{"attention", "updated", "name"} }

	fs.Group("jq (by gojq, run by the statusls-jq helper, found next to statusls, else in $PATH)")
	fs.Func("jq", "FILTER", "run FILTER once over the array --json prints, as gh does: the same\nobjects after --state, --agent, --cwd and --sort, fresh sessions only\nunless --all. Strings print raw; other values as JSON, indented only\non a terminal", func(s string) error { o.jq, o.jqSet = s, true; return nil })
	fs.Func("jq-files", "FILTER", "run FILTER over the JSON object of every readable status file, one\nfile at a time, in file-name order, strings sanitized for display;\nprints as jq does (the published one-liner's mode)", func(s string) error { o.jq, o.jqFilesSet = s, true; return nil })
	fs.Shorthand(fs.Bool(&o.raw, "raw-output", false, "--jq-files: print strings raw, without quotes (like jq -r); --jq\nalways does"), "r")
	fs.Shorthand(fs.Bool(&o.compact, "compact-output", false, "print other values compactly (--jq-files default: indented by two\nspaces)"), "c")
	fs.Func("arg", "NAME VALUE", "$NAME is the string VALUE", func(string) error { return errors.New("needs a name and a value") })
	fs.Func("argjson", "NAME JSON", "$NAME is the JSON value", func(string) error { return errors.New("needs a name and a value") })
	fs.Duration(&o.jqTimeout, "jq-timeout", 5*time.Second, "DUR", "stop a filter that runs longer than DUR on one input (default 5s;\ntime spent writing output or reading files does not count)")

	o.common.register(fs)
	o.hostFlags.register(fs, env, "list these hosts (repeatable): a HOST column, a \"host\" key;\nwithout --local, only them", true, true)

	fs.Group("Terminal")
	colorFlag(fs, &o.color, "auto (default: on a terminal), always, never; see \"Environment\"\nThe table fits $COLUMNS, else the terminal's width, else 80 columns.")
}

// validate checks the flags together, once parsed. It returns -1 to go on.
func (o *listOptions) validate(env *cmdEnv) int {
	o.json = o.given.Changed("json")
	if o.json && o.jsonFields != "*" { // a field list; --host adds the field host
		known := render.JSONFields
		if o.hostFlags.active() {
			known = append([]string{render.FieldHost}, known...)
		}
		o.fields = splitList(o.jsonFields)
		for _, f := range o.fields {
			if !slices.Contains(known, f) {
				msg := fmt.Sprintf("--json: unknown field %q", f)
				if s := base.Suggest(f, known); s != "" {
					msg += "; did you mean " + s + "?"
				}
				return usageError(env, "%s; the fields are %s", msg, strings.Join(known, ", "))
			}
		}
		if len(o.fields) == 0 {
			return usageError(env, "--json: no field given; the fields are %s", strings.Join(known, ", "))
		}
	}
	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{o.table, "table"}, {o.tsv, "tsv"}, {o.json && !o.jqSet, "json"}, {o.ndjson, "ndjson"}, {o.summary, "summary"}, {o.count, "count"}, {o.jqSet, modeJQ}, {o.jqFilesSet, modeJQFiles}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	if len(modes) > 1 {
		return usageError(env, "--%s and --%s cannot be combined", modes[0], modes[1])
	}
	if len(modes) == 1 {
		o.mode = modes[0]
	}
	if code := checkJQFlags(o, env); code >= 0 {
		return code
	}
	if code := checkColor(env, o.color); code >= 0 {
		return code
	}
	// Invalid files are listed in JSON only: the other modes never see one.
	var code int
	if o.filter, code = o.selection.filter(env); code >= 0 {
		return code
	}
	o.filter.Invalid = o.all && (o.mode == "json" || o.mode == "ndjson" || o.mode == modeJQ)
	if o.sort != "" {
		ord, err := render.ParseOrder(o.sort)
		if err != nil {
			return usageError(env, "--sort: %v", err)
		}
		o.order = ord
	}
	return -1
}

func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// list is the listing command: this machine's listing, other machines'
// (--host), or both (--local), each a part (this machine's with host "");
// a table, TSV, JSON or a count over them all.
func list(o *listOptions, env *cmdEnv) int {
	withHosts := o.hostFlags.active()
	jq := o.mode == modeJQ || o.mode == modeJQFiles
	if jq && withHosts {
		return usageError(env, "--%s cannot be combined with --host: pipe 'statusls --host H --json' into jq instead", o.mode)
	}
	hosts, cfg, code := o.hostFlags.targets(env)
	if code >= 0 {
		return code
	}
	if jq && (o.mode == modeJQFiles || !jqrun.Linked()) {
		loc, now, err := o.resolve(env)
		if err != nil {
			return usageError(env, "%v", err)
		}
		return runJQ(o, loc, now, nil, false, env)
	}
	isTerm, termWidth := env.Terminal()
	mode := o.mode
	if mode == "" {
		mode = "tsv"
		if isTerm {
			mode = "table"
		}
	}
	order := o.order
	if order == "" {
		order = render.ByName
		if mode == "table" {
			order = render.ByAttention
		}
	}
	if order == render.ByName && !withHosts && (mode == "tsv" || mode == modeJQ) {
		// What needs no other order is printed as it is read.
		loc, now, err := o.resolve(env)
		if err != nil {
			return usageError(env, "%v", err)
		}
		if mode == "tsv" {
			return listTSV(o, loc, now, env)
		}
		return runJQ(o, loc, now, nil, true, env)
	}

	var parts []remote.Result
	var loc location.Location
	var now time.Time
	missing := false // this machine's status directory does not exist
	if !withHosts || o.hostFlags.local {
		var err error
		if loc, now, err = o.resolve(env); err != nil {
			return usageError(env, "%v", err)
		}
		l, err := reader.List(loc.Dir, reader.Options{Clock: atClock(now), Liveness: mode == "json" || mode == "ndjson" || mode == modeJQ})
		if err != nil {
			code := dirError(env, err)
			if !withHosts {
				return code
			}
			// This machine fails as a host would: the others are listed.
			msg := statusfile.SanitizeText(err.Error())
			parts = append(parts, remote.Result{Err: &remote.HostError{Kind: failRefused, Msg: msg, Hint: "run 'statusls doctor'"}})
		} else {
			missing = l.Missing
			parts = append(parts, remote.Result{Entries: l.Entries})
		}
	}
	if withHosts {
		parts = append(parts, remote.List(context.Background(), cfg, hosts)...)
	}

	failed := 0
	for i := range parts {
		p := &parts[i]
		if p.Err != nil {
			failed++
			if p.Host != "" { // this machine's failure is on stderr already
				fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", p.Err.Host, p.Err.Msg)
			}
			continue
		}
		p.Entries = render.Select(p.Entries, &o.filter)
		render.Sort(p.Entries, order)
	}
	// The parts' entries in one list, for the summary, the count and the
	// table: the first part's as it is when it is the only one (appending
	// writes past what Select kept).
	all := parts[0].Entries
	for _, p := range parts[1:] {
		all = append(all, p.Entries...)
	}

	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	switch mode {
	case "tsv":
		for _, p := range parts {
			for i := range p.Entries { // invalid files only in JSON: see validate
				if withHosts {
					buf = render.AppendHostTSV(buf[:0], p.Host, &p.Entries[i].Status)
				} else {
					buf = render.AppendTSV(buf[:0], &p.Entries[i].Status)
				}
				out.Write(buf)
			}
		}
	case "json", "ndjson":
		// --json: an array, one object a line; --ndjson: one object a line.
		sep := ""
		add := func(obj []byte) {
			if mode == "json" {
				out.WriteString(cmp.Or(sep, "[\n"))
				sep = ",\n"
			}
			out.Write(obj)
			if mode == "ndjson" {
				out.WriteByte('\n')
			}
		}
		for _, p := range parts {
			if p.Err != nil {
				add(render.AppendHostErrorJSON(buf[:0], p.Err.Host, p.Err.Kind, p.Err.Msg, p.Err.Hint))
			}
			for i := range p.Entries {
				if withHosts {
					buf = render.AppendHostJSON(buf[:0], p.Host, &p.Entries[i], o.fields)
				} else {
					buf = render.AppendJSONFields(buf[:0], &p.Entries[i], o.fields) // no fields: all (--ndjson)
				}
				add(buf)
			}
		}
		switch {
		case mode != "json":
		case sep == "":
			out.WriteString("[]\n")
		default:
			out.WriteString("\n]\n")
		}
	case "summary":
		// A status bar drops stderr: the line itself says hosts are missing.
		var words []string
		if s := render.Summary(all); s != "" {
			words = append(words, s)
		}
		if failed > 0 {
			words = append(words, strconv.Itoa(failed)+" host"+plural(failed)+" offline")
		}
		if len(words) > 0 {
			out.WriteString(strings.Join(words, " · ") + "\n")
		}
	case "count":
		out.WriteString(strconv.Itoa(len(all)) + "\n")
	case modeJQ: // this machine's alone
		return runJQ(o, loc, now, parts[0].Entries, false, env)
	case "table":
		// With a HOST column after SESSION when other machines are
		// listed.
		opts := render.TableOptions{Width: tableWidth(env, termWidth), Color: useColor(o.color, isTerm, env), Wide: o.wide}
		if withHosts {
			for _, p := range parts { // no invalid files: see validate
				opts.Hosts = append(opts.Hosts, slices.Repeat([]string{cmp.Or(p.Host, localHostName)}, len(p.Entries))...)
			}
		} else {
			opts.Home = env.Getenv("HOME")
		}
		// No sessions: a notice, not data, on stderr, so that stdout stays
		// empty.
		switch {
		case len(all) > 0:
			out.WriteString(render.Table(all, opts))
		case withHosts:
			fmt.Fprintln(env.Stderr, "statusls: no sessions on these hosts")
		default:
			fmt.Fprintf(env.Stderr, "statusls: %s\n", noSessions(&o.filter, loc, env))
			if missing {
				fmt.Fprintln(env.Stderr, "statusls: hint: the directory does not exist yet; run 'statusls doctor' if you expected sessions")
			}
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", base.Message(err))
		return base.ExitError
	}
	return hostsExit(failed, len(parts))
}

// hostsExit is the exit status of a listing of n hosts of which failed
// could not be read: 0 when all were read, 1 when none was, 5 when some
// were (docs/statusls.md, "Other machines").
func hostsExit(failed, n int) int {
	switch {
	case failed == 0:
		return base.ExitOK
	case failed == n:
		return base.ExitError
	}
	return base.ExitPartial
}

// expandPath expands a leading ~ and makes p absolute; "" (no --cwd)
// stays "".
func expandPath(p string, env *cmdEnv) (string, error) {
	if p == "" {
		return "", nil
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := env.Getenv("HOME")
		if home == "" {
			return "", errors.New("cannot expand ~: HOME is not set")
		}
		p = home + p[1:]
	}
	return filepath.Abs(p)
}
