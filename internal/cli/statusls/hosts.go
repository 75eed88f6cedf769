package statusls

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
	"github.com/agentstatus/agentstatus/statusfile"
)

// hostFlags take statusls to other machines.
type hostFlags struct {
	hosts       []string
	allHosts    bool
	local       bool
	hostTimeout time.Duration
	given       *base.FlagSet // which of them the command line set
	many        bool          // --all-hosts is one of them
}

// hostFlagsOf says which host flags a command takes.
type hostFlagsOf struct {
	usage string // --host's help
	many  bool   // several hosts: --host H[,H] and --all-hosts
	local bool   // --local
	group bool   // under their own heading in help
}

// register declares --host and --host-timeout, and what of declares
// besides.
func (h *hostFlags) register(fs *base.FlagSet, env *Env, of hostFlagsOf) {
	if of.group {
		fs.Group("Other machines (over ssh, each running statusls; see docs/statusls.md)")
	}
	h.given, h.many = fs, of.many
	many := of.many
	usage := of.usage
	arg := "H"
	if many {
		arg = "H[,H]"
	}
	fs.Func("host", arg, usage, func(s string) error {
		hosts, err := splitHosts(s)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "remote: "))
		}
		if len(hosts) == 0 {
			return errors.New("no host given")
		}
		h.hosts = append(h.hosts, hosts...)
		return nil
	}).Complete = func() []string {
		hosts, _, _ := configuredHosts(env.Getenv)
		return hosts
	}
	if many {
		fs.Bool(&h.allHosts, "all-hosts", false, "the hosts of $STATUSLS_HOSTS, else of ~/.config/agentstatus/hosts")
	}
	if of.local {
		fs.Bool(&h.local, "local", false, "with --host or --all-hosts: this machine too")
	}
	fs.Duration(&h.hostTimeout, "host-timeout", 0, "DUR", "give up on a host after DUR (default 10s)")
}

// misuse is a usage error for a flag that only means something with
// --host (or --all-hosts) given without it, rather than ignoring it. It
// returns -1 to go on.
func (h *hostFlags) misuse(env *Env) int {
	if h.active() || h.given == nil {
		return -1
	}
	need := "--host"
	if h.many {
		need = "--host or --all-hosts"
	}
	for _, name := range []string{"local", "host-timeout"} {
		if h.given.Changed(name) {
			return usageError(env, "--%s needs %s", name, need)
		}
	}
	return -1
}

// active reports whether other machines are asked for.
func (h *hostFlags) active() bool { return len(h.hosts) > 0 || h.allHosts }

// targets returns the hosts to ask, and the ssh configuration.
func (h *hostFlags) targets(env *Env) ([]string, *remote.Config, error) {
	if h.given.Changed("host-timeout") && h.hostTimeout <= 0 {
		return nil, nil, errors.New("--host-timeout must be positive")
	}
	hosts := h.hosts
	if h.allHosts {
		more, from, err := configuredHosts(env.Getenv)
		if err != nil {
			return nil, nil, err
		}
		if len(more) == 0 && len(hosts) == 0 {
			return nil, nil, fmt.Errorf("--all-hosts: no hosts configured in %s (set $%s, or write them there, one per line)", from, hostsEnv)
		}
		for _, m := range more {
			if !contains(hosts, m) {
				hosts = append(hosts, m)
			}
		}
	}
	cfg, err := remote.ConfigFromEnv(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s: connections are not shared\n", strings.TrimPrefix(statusfile.SanitizeText(err.Error()), "remote: "))
	}
	cfg.Timeout = h.hostTimeout // 0: remote's default
	return hosts, &cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hostList is one host's part of a listing.
type hostList struct {
	host     string // "" for this machine
	entries  []reader.Entry
	err      *remote.HostError
	reported bool // err is already on stderr
}

// listHosts is statusls --host: every host's listing, merged, grouped by
// host (this machine first, then the hosts in the order given).
func listHosts(o *listOptions, env *Env) int {
	if o.mode == modeJQ || o.mode == modeJQFiles {
		return usageError(env, "--%s cannot be combined with --host: pipe 'statusls --host H --json' into jq instead", o.mode)
	}
	hosts, cfg, err := o.hostFlags.targets(env)
	if err != nil {
		return usageError(env, "%s", strings.TrimPrefix(err.Error(), "remote: "))
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

	var parts []hostList
	if o.hostFlags.local {
		loc, now, err := o.resolve(env)
		if err != nil {
			return usageError(env, "%v", err)
		}
		l, err := reader.List(loc.Dir, reader.Options{Clock: atClock(now), Liveness: mode == "json" || mode == "ndjson"})
		if err != nil {
			// This machine fails as a host would: the others are listed.
			dirError(env, loc, err)
			msg := strings.TrimPrefix(statusfile.SanitizeText(err.Error()), "perm: ")
			parts = append(parts, hostList{err: &remote.HostError{Kind: failRefused, Msg: msg, Hint: "run 'statusls doctor'"}, reported: true})
		} else {
			parts = append(parts, hostList{entries: l.Entries})
		}
	}
	for _, r := range remote.List(context.Background(), cfg, hosts) {
		parts = append(parts, hostList{host: r.Host, entries: r.Entries, err: r.Err})
	}

	failed := 0
	for i := range parts {
		p := &parts[i]
		if p.err != nil {
			failed++
			if !p.reported {
				fmt.Fprintf(env.Stderr, "statusls: host %s: %s\n", p.err.Host, p.err.Msg)
			}
			continue
		}
		p.entries = render.Select(p.entries, &o.filter)
		render.Sort(p.entries, order)
	}

	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var buf []byte
	var all []reader.Entry
	for _, p := range parts {
		all = append(all, p.entries...)
	}
	switch mode {
	case "tsv":
		for _, p := range parts {
			for i := range p.entries {
				if p.entries[i].Verdict == reader.Invalid {
					continue
				}
				out.WriteString(tsvHost(p.host) + "\t")
				out.Write(render.AppendTSV(buf[:0], &p.entries[i].Status))
			}
		}
	case "json", "ndjson":
		var lines [][]byte
		for _, p := range parts {
			if p.err != nil {
				lines = append(lines, render.AppendHostErrorJSON(nil, p.err.Host, p.err.Kind, p.err.Msg, p.err.Hint))
			}
			for i := range p.entries {
				lines = append(lines, render.AppendHostJSON(nil, p.host, &p.entries[i], o.fields))
			}
		}
		writeJSONLines(out, lines, mode == "json")
	case "summary":
		// A status bar drops stderr: the line itself says hosts are missing.
		parts := []string{}
		if s := render.Summary(all); s != "" {
			parts = append(parts, s)
		}
		if failed == 1 {
			parts = append(parts, "1 host offline")
		} else if failed > 1 {
			parts = append(parts, strconv.Itoa(failed)+" hosts offline")
		}
		if len(parts) > 0 {
			out.WriteString(strings.Join(parts, " · ") + "\n")
		}
	case "count":
		out.WriteString(strconv.Itoa(countSessions(all)) + "\n")
	case "table":
		writeHostTable(out, parts, o, isTerm, termWidth, env)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s\n", base.Message(err))
		return base.ExitError
	}
	switch {
	case failed == 0:
		return base.ExitOK
	case failed == len(parts):
		return base.ExitError
	}
	return base.ExitPartial
}

// tsvHost is the host field of a TSV row: empty for this machine. (Host
// names hold no tab, newline or backslash: remote.CheckHost.)
func tsvHost(h string) string { return statusfile.SanitizeText(h) }

// writeJSONLines writes objects as statusls --json's array (one object a
// line) or as NDJSON.
func writeJSONLines(out io.Writer, lines [][]byte, array bool) {
	if !array {
		for _, l := range lines {
			out.Write(append(l, '\n'))
		}
		return
	}
	if len(lines) == 0 {
		io.WriteString(out, "[]\n")
		return
	}
	io.WriteString(out, "[\n")
	for i, l := range lines {
		if i < len(lines)-1 {
			l = append(l, ',')
		}
		out.Write(append(l, '\n'))
	}
	io.WriteString(out, "]\n")
}

// localHostName is how the table shows this machine.
const localHostName = "(local)"

// writeHostTable writes statusls's table with a HOST column after SESSION.
func writeHostTable(out io.Writer, parts []hostList, o *listOptions, isTerm bool, termWidth int, env *Env) {
	var entries []reader.Entry
	var hosts []string
	for _, p := range parts {
		h := p.host
		if h == "" {
			h = localHostName
		}
		for _, e := range p.entries {
			if e.Verdict != reader.Invalid {
				entries = append(entries, e)
				hosts = append(hosts, h)
			}
		}
	}
	if len(entries) == 0 {
		// A notice, not data: on stderr, so that stdout stays empty.
		if isTerm || o.mode == "table" {
			fmt.Fprintln(env.Stderr, "statusls: no sessions on these hosts")
		}
		return
	}
	io.WriteString(out, render.Table(entries, render.TableOptions{
		Width: tableWidth(env, termWidth),
		Color: useColor(o.color, isTerm, env),
		Wide:  o.wide,
		Hosts: hosts,
	}))
}
