package render

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Filter selects entries. The zero Filter selects the fresh sessions.
type Filter struct {
	// All selects stale sessions too and, with Invalid, invalid files.
	All     bool
	Invalid bool
	// States, Agents: when non-empty, a session must have one of these
	// (compared exactly with the values as written).
	States []string
	Agents []string
	// Cwd: when non-empty, an absolute path; a session must have its cwd
	// there or below (path-prefix semantics: /a matches /a and /a/b, not
	// /ab).
	Cwd string
}

// Narrowed reports whether f selects on a field (state, agent or cwd).
// Invalid files have no fields and never pass a narrowed filter.
func (f *Filter) Narrowed() bool {
	return len(f.States) > 0 || len(f.Agents) > 0 || f.Cwd != ""
}

// Match reports whether f selects e.
func (f *Filter) Match(e *reader.Entry) bool {
	switch e.Verdict {
	case reader.Fresh:
	case reader.Stale:
		if !f.All {
			return false
		}
	case reader.Invalid:
		return f.All && f.Invalid && !f.Narrowed()
	default:
		return false
	}
	s := &e.Status
	if len(f.States) > 0 && !slices.Contains(f.States, string(s.State)) {
		return false
	}
	if len(f.Agents) > 0 && !slices.Contains(f.Agents, s.Agent) {
		return false
	}
	if f.Cwd != "" && !UnderPath(s.Cwd, f.Cwd) {
		return false
	}
	return true
}

// UnderPath reports whether path is prefix or below it. Both are cleaned
// first; the separator is '/' (records say where a session runs, which may
// be another system) and, on Windows, '\' too.
func UnderPath(path, prefix string) bool {
	if path == "" {
		return false
	}
	path, prefix = cleanSlash(path), cleanSlash(prefix)
	rest, ok := strings.CutPrefix(path, prefix)
	return prefix == "/" || ok && (rest == "" || rest[0] == '/')
}

func cleanSlash(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// Select returns the entries f selects, in their order. It filters in
// place: the result shares entries' array, whose other elements it
// overwrites.
func Select(entries []reader.Entry, f *Filter) []reader.Entry {
	// DeleteFunc clears what it leaves out: the entries are let go of.
	return slices.DeleteFunc(entries, func(e reader.Entry) bool { return !f.Match(&e) })
}

// Order is how entries are sorted.
type Order string

// Orders.
const (
	// ByName is file-name order: the shell glob's order (SPEC.md R14).
	ByName Order = "name"
	// ByAttention puts the sessions that need attention first: blocked,
	// working, idle, then unknown states by name; invalid files last. Ties
	// keep file-name order.
	ByAttention Order = "attention"
	// ByUpdated puts the most recently updated first; ties keep file-name
	// order.
	ByUpdated Order = "updated"
)

// ParseOrder parses a --sort value.
func ParseOrder(s string) (Order, error) {
	switch o := Order(s); o {
	case ByName, ByAttention, ByUpdated:
		return o, nil
	}
	return "", fmt.Errorf("unknown order %q (want attention, updated or name)", s)
}

// Sort sorts entries, which must be in file-name order, by o. The sort is
// stable, so ties stay in file-name order.
func Sort(entries []reader.Entry, o Order) {
	switch o {
	case ByAttention:
		slices.SortStableFunc(entries, func(a, b reader.Entry) int {
			ra, rb := attentionRank(&a), attentionRank(&b)
			if ra != rb || ra != 3 {
				return cmp.Compare(ra, rb)
			}
			return strings.Compare(string(a.Status.State), string(b.Status.State)) // unknown states, by name
		})
	case ByUpdated:
		slices.SortStableFunc(entries, func(a, b reader.Entry) int {
			ha, hb := hasRecord(&a), hasRecord(&b)
			if ha != hb {
				if ha {
					return -1
				}
				return 1
			}
			return b.Status.UpdatedAt.Compare(a.Status.UpdatedAt)
		})
	}
}

// attentionRank is an entry's place in attention order: blocked 0,
// working 1, idle 2, any other state 3, an invalid file 4.
func attentionRank(e *reader.Entry) int {
	if !hasRecord(e) || e.Verdict == reader.Invalid {
		return 4
	}
	switch e.Status.State {
	case statusfile.Blocked:
		return 0
	case statusfile.Working:
		return 1
	case statusfile.Idle:
		return 2
	}
	return 3
}

// Summary returns the one-line summary of the sessions among entries, e.g.
// "1 blocked · 2 working · 3 idle": the known states in attention order,
// then unknown states by name (sanitized), each with its count; states with
// no session are left out. It is empty when there is no session.
func Summary(entries []reader.Entry) string {
	counts := map[string]int{}
	var unknown []string
	for i := range entries {
		e := &entries[i]
		if e.Verdict != reader.Fresh && e.Verdict != reader.Stale {
			continue
		}
		st := string(e.Status.State)
		if counts[st] == 0 && !e.Status.State.Known() {
			unknown = append(unknown, st)
		}
		counts[st]++
	}
	slices.Sort(unknown)
	var parts []string
	for _, st := range append([]string{string(statusfile.Blocked), string(statusfile.Working), string(statusfile.Idle)}, unknown...) {
		if n := counts[st]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+statusfile.SanitizeText(st))
		}
	}
	return strings.Join(parts, " · ")
}
