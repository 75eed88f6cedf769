package promtext

import (
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Options choose the format and the series.
type Options struct {
	// OpenMetrics writes OpenMetrics 1.0 text (ending in "# EOF") instead
	// of the Prometheus text format 0.0.4.
	OpenMetrics bool
	// PerSession adds agentstatus_session, one series per fresh session.
	PerSession bool
	// HostLabel adds the host label to every series, and
	// agentstatus_host_up.
	HostLabel bool
}

// ContentType returns the media type of what [Append] writes with o, for
// an HTTP response.
func (o Options) ContentType() string {
	if o.OpenMetrics {
		return "application/openmetrics-text; version=1.0.0; charset=utf-8"
	}
	return "text/plain; version=0.0.4; charset=utf-8"
}

// Bounds on label values, in bytes, and on the agents named per host.
const (
	maxAgent   = 64
	maxState   = 64
	maxSession = 128
	maxCwd     = 256
	maxAgents  = 64
	otherAgent = "other"
	otherState = "other"
)

// states are the v1 states, in the order they are written.
var states = [...]statusfile.State{statusfile.Working, statusfile.Blocked, statusfile.Idle}

// reasons are the reasons of SPEC.md §10, in the order they are written.
var reasons = []string{
	"symlink", "not-regular", "not-owned", "too-large", "unreadable",
	"empty", "bad-json", "not-object", "unsupported-schema", "missing-field",
	"wrong-type", "bad-value", "name-mismatch",
}

// stateIndex returns the index of s in states, or len(states) (other).
func stateIndex(s statusfile.State) int {
	for i, k := range states {
		if s == k {
			return i
		}
	}
	return len(states)
}

// Host holds what one listing of one host's status directory says, as the
// metrics need it. The zero value is not ready: use [NewHost].
type Host struct {
	label      string // the host label's value
	now        time.Time
	perSession bool
	// Failed marks a host that could not be listed: only its
	// agentstatus_host_up (0) is written.
	Failed bool

	agents   map[string]*[len(states) + 1]int // sanitized, cut agent -> counts per state (+ other)
	names    map[string]string                // raw agent -> its label value
	oldest   [len(states)]time.Duration       // per state; only blocked and idle are written
	stale    int
	invalid  map[string]int
	sessions []session
}

type session struct {
	id, agent, state, cwd string
	file                  string // the file name, to tell equal labels apart
}

// NewHost returns an empty Host named name ("" for this machine) whose
// ages are counted at now; perSession keeps what agentstatus_session
// needs.
func NewHost(name string, now time.Time, perSession bool) *Host {
	return &Host{
		label: label(name, maxCwd), now: now, perSession: perSession,
		agents: map[string]*[len(states) + 1]int{}, names: map[string]string{}, invalid: map[string]int{},
	}
}

// Add takes in one entry of the listing. Ignored entries are skipped.
func (h *Host) Add(e *reader.Entry) {
	switch e.Verdict {
	case reader.Invalid:
		h.invalid[e.Reason]++
		return
	case reader.Fresh, reader.Stale:
	default:
		return
	}
	st := &e.Status
	counts := h.agent(st.Agent)
	if e.Verdict == reader.Stale {
		h.stale++
		return
	}
	i := stateIndex(st.State)
	counts[i]++
	var since time.Time
	switch st.State {
	case statusfile.Blocked:
		since = st.WaitingFor.Since
	case statusfile.Idle:
		since = st.Ended.At
	}
	if i < len(states) && !since.IsZero() {
		if age := h.now.Sub(since); age > h.oldest[i] {
			h.oldest[i] = age
		}
	}
	if h.perSession {
		h.sessions = append(h.sessions, session{
			id:    label(st.Session, maxSession),
			agent: h.names[st.Agent],
			state: label(string(st.State), maxState),
			cwd:   label(st.Cwd, maxCwd),
			file:  e.Name,
		})
	}
}

// agent returns the counts of the agent named raw, naming it the first
// time (up to maxAgents names; the others share "other").
func (h *Host) agent(raw string) *[len(states) + 1]int {
	name, ok := h.names[raw]
	if !ok {
		name = label(raw, maxAgent)
		if _, known := h.agents[name]; !known && len(h.agents) >= maxAgents {
			name = otherAgent
		}
		h.names[raw] = name
	}
	c := h.agents[name]
	if c == nil {
		c = new([len(states) + 1]int)
		h.agents[name] = c
	}
	return c
}

// label makes a label value of s: sanitized and cut to at most n bytes at
// a character boundary.
func label(s string, n int) string {
	s = statusfile.SanitizeText(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Append appends the metrics of hosts, in that order, to dst.
func Append(dst []byte, hosts []*Host, o Options) []byte {
	w := writer{buf: dst, o: o}

	w.family("agentstatus_sessions", "Fresh sessions by state and agent.")
	for _, h := range hosts {
		if h.Failed {
			continue
		}
		agents := make([]string, 0, len(h.agents))
		for a := range h.agents {
			agents = append(agents, a)
		}
		slices.Sort(agents)
		if len(agents) == 0 {
			for _, s := range states {
				w.sample("agentstatus_sessions", h, 0, "state", string(s), "agent", "")
			}
		}
		for _, a := range agents {
			c := h.agents[a]
			for i, s := range states {
				w.sample("agentstatus_sessions", h, float64(c[i]), "state", string(s), "agent", a)
			}
			if n := c[len(states)]; n > 0 {
				w.sample("agentstatus_sessions", h, float64(n), "state", otherState, "agent", a)
			}
		}
	}

	w.family("agentstatus_oldest_seconds", "Age of the oldest continuous wait per state: blocked from waitingFor.since, idle from ended.at.")
	for _, h := range hosts {
		if h.Failed {
			continue
		}
		for i, s := range states {
			if s == statusfile.Working {
				continue
			}
			w.sample("agentstatus_oldest_seconds", h, h.oldest[i].Seconds(), "state", string(s))
		}
	}

	w.family("agentstatus_stale_sessions", "Valid records older than 30 s (their publisher stopped writing).")
	for _, h := range hosts {
		if !h.Failed {
			w.sample("agentstatus_stale_sessions", h, float64(h.stale))
		}
	}

	w.family("agentstatus_invalid_files", "Status files that are not records to show, by SPEC.md reason.")
	for _, h := range hosts {
		if h.Failed {
			continue
		}
		for _, r := range reasons {
			w.sample("agentstatus_invalid_files", h, float64(h.invalid[r]), "reason", r)
		}
		var extra []string // a reason of a newer reader
		for r := range h.invalid {
			if !slices.Contains(reasons, r) {
				extra = append(extra, r)
			}
		}
		slices.Sort(extra)
		for _, r := range extra {
			w.sample("agentstatus_invalid_files", h, float64(h.invalid[r]), "reason", label(r, maxState))
		}
	}

	if o.PerSession {
		w.family("agentstatus_session", "One series per fresh session, always 1.")
		for _, h := range hosts {
			if h.Failed {
				continue
			}
			seen := make(map[string]bool, len(h.sessions))
			for _, s := range h.sessions {
				// File names are unique: a label equal to one already
				// written gets a part of its own, then a number.
				id := s.id
				if seen[id] {
					id = s.id + "#" + s.file[:min(16, len(s.file))]
				}
				for n := 2; seen[id]; n++ {
					id = s.id + "#" + s.file[:min(16, len(s.file))] + "#" + strconv.Itoa(n)
				}
				seen[id] = true
				w.sample("agentstatus_session", h, 1, "session", id, "agent", s.agent, "state", s.state, "cwd", s.cwd)
			}
		}
	}

	if o.HostLabel {
		w.family("agentstatus_host_up", "1 when the host's status directory was listed, 0 when it failed.")
		for _, h := range hosts {
			up := 1.0
			if h.Failed {
				up = 0
			}
			w.sample("agentstatus_host_up", h, up)
		}
	}

	if o.OpenMetrics {
		w.buf = append(w.buf, "# EOF\n"...)
	}
	return w.buf
}

// writer appends lines.
type writer struct {
	buf []byte
	o   Options
}

// family writes the HELP and TYPE lines. The help texts are constants
// without a backslash, a double quote or a line feed, so they need no
// escaping in either format.
func (w *writer) family(name, help string) {
	w.buf = append(w.buf, "# HELP "...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, help...)
	w.buf = append(w.buf, "\n# TYPE "...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, " gauge\n"...)
}

// sample writes one sample of h: its labels are the host (with HostLabel)
// and the name-value pairs kv.
func (w *writer) sample(name string, h *Host, v float64, kv ...string) {
	w.buf = append(w.buf, name...)
	if w.o.HostLabel || len(kv) > 0 {
		w.buf = append(w.buf, '{')
		sep := false
		if w.o.HostLabel {
			w.buf = appendLabel(w.buf, "host", h.label)
			sep = true
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if sep {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendLabel(w.buf, kv[i], kv[i+1])
			sep = true
		}
		w.buf = append(w.buf, '}')
	}
	w.buf = append(w.buf, ' ')
	w.buf = appendValue(w.buf, v)
	w.buf = append(w.buf, '\n')
}

// appendLabel appends name="value", the value escaped as both formats say.
func appendLabel(dst []byte, name, value string) []byte {
	dst = append(dst, name...)
	dst = append(dst, '=', '"')
	start := 0
	for i := 0; i < len(value); i++ {
		var esc string
		switch value[i] {
		case '\\':
			esc = `\\`
		case '"':
			esc = `\"`
		case '\n':
			esc = `\n`
		default:
			continue
		}
		dst = append(dst, value[start:i]...)
		dst = append(dst, esc...)
		start = i + 1
	}
	dst = append(dst, value[start:]...)
	return append(dst, '"')
}

// appendValue appends v: integers as integers, ages to the millisecond.
func appendValue(dst []byte, v float64) []byte {
	if v == float64(int64(v)) {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return strconv.AppendFloat(dst, float64(int64(v*1000))/1000, 'f', -1, 64)
}
