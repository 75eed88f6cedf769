package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// whyEqual reports whether a reader's reason key (nil when it printed
// none) is the expected one.
func whyEqual(got, want json.RawMessage) bool {
	if got == nil {
		got = json.RawMessage("null")
	}
	return bytes.Equal(got, want)
}

func showWhy(r json.RawMessage) string {
	if r == nil {
		return "absent"
	}
	return string(r)
}

// show is an optional value as a message shows it: null, or quoted.
func show[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%#v", *p)
}

// eq reports whether two optional values are both absent or equal.
func eq[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// longDiff describes two long strings by their lengths and where they
// part.
func longDiff(got, want string) (string, string) {
	g, w := []rune(got), []rune(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	around := func(r []rune) string {
		from := max(0, i-10)
		to := min(len(r), i+20)
		return strconv.Quote(string(r[from:to]))
	}
	return fmt.Sprintf("%d characters, %s at character %d", len(g), around(g), i+1),
		fmt.Sprintf("%d characters, %s there", len(w), around(w))
}

// compareSessions lists how got differs from want, in session order.
func compareSessions(want, got []vector.Session) []string {
	var diffs []string
	byID := map[string]vector.Session{}
	for _, g := range got {
		if _, dup := byID[g.Session]; dup {
			diffs = append(diffs, fmt.Sprintf("session %q printed more than once", g.Session))
		}
		byID[g.Session] = g
	}
	wantIDs := map[string]bool{}
	for _, w := range sortedSessions(want) {
		wantIDs[w.Session] = true
		g, ok := byID[w.Session]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("session %q is missing", w.Session))
			continue
		}
		field := func(name, got, want string) {
			diffs = append(diffs, fmt.Sprintf("session %q: %s is %s, want %s", w.Session, name, got, want))
		}
		if !eq(g.Agent, w.Agent) {
			field("agent", show(g.Agent), show(w.Agent))
		}
		if g.State != w.State {
			field("state", strconv.Quote(g.State), strconv.Quote(w.State))
		}
		if !eq(g.PID, w.PID) {
			field("pid", show(g.PID), show(w.PID))
		}
		if !eq(g.Cwd, w.Cwd) {
			field("cwd", show(g.Cwd), show(w.Cwd))
		}
		if !eq(g.Title, w.Title) {
			got, want := show(g.Title), show(w.Title)
			if g.Title != nil && w.Title != nil && (len(*g.Title) > 80 || len(*w.Title) > 80) {
				got, want = longDiff(*g.Title, *w.Title)
			}
			field("title", got, want)
		}
		if w.WaitingFor != nil && !whyEqual(g.WaitingFor, w.WaitingFor) {
			field("waitingFor", showWhy(g.WaitingFor), string(w.WaitingFor))
		}
		if w.Ended != nil && !whyEqual(g.Ended, w.Ended) {
			field("ended", showWhy(g.Ended), string(w.Ended))
		}
	}
	for _, g := range sortedSessions(got) {
		if !wantIDs[g.Session] {
			diffs = append(diffs, fmt.Sprintf("session %q should not be shown", g.Session))
		}
	}
	return slices.Compact(diffs)
}

func sortedSessions(s []vector.Session) []vector.Session {
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b vector.Session) int { return strings.Compare(a.Session, b.Session) })
	return s
}

// ndjson renders sessions as the lines a reader prints, sorted by session.
func ndjson(s []vector.Session) string {
	if len(s) == 0 {
		return "(no sessions)"
	}
	var lines []string
	for _, x := range sortedSessions(s) {
		lines = append(lines, x.String())
	}
	return strings.Join(lines, "\n")
}
