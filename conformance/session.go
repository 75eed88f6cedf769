package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Session is one live session as a reader shows it: the line a reader under
// test prints, and the expectation of a vector. Unknown values are nil:
// a reader may print null, an empty string or (for pid) 0 for them, which
// all mean "unknown" in SPEC.md §4.
type Session struct {
	Session string  `json:"session"`
	Agent   *string `json:"agent"`
	State   string  `json:"state"`
	PID     *int64  `json:"pid"`
	Cwd     *string `json:"cwd"`
	Title   *string `json:"title"` // the displayed (sanitized) title; nil for none
	// WaitingFor and Ended are what the reader shows of the record's
	// reason keys (SPEC.md §4.4), as canonical JSON ("null" for none).
	// A vector's expected line that has them is checked against them;
	// other lines say nothing of them, which is how a core reader, which
	// ignores the keys, passes.
	WaitingFor json.RawMessage `json:"waitingFor,omitempty"`
	Ended      json.RawMessage `json:"ended,omitempty"`
}

// sessionKeys are the keys every line must have.
var sessionKeys = []string{"session", "agent", "state", "pid", "cwd", "title"}

// parseSessionLine parses one line of a reader's output (or of a vector's
// expected section). Keys beyond sessionKeys are ignored.
func parseSessionLine(line []byte, strict bool) (Session, error) {
	var s Session
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return s, errors.New("not a JSON object")
	}
	if dec.More() {
		return s, errors.New("more than one JSON value on the line")
	}
	for _, k := range sessionKeys {
		if _, ok := m[k]; !ok {
			return s, fmt.Errorf("no %q key (every line needs %s)", k, strings.Join(sessionKeys, ", "))
		}
	}
	str := func(k string, nullable bool) (*string, error) {
		raw := m[k]
		if string(raw) == "null" {
			if !nullable {
				return nil, fmt.Errorf("%q is null", k)
			}
			return nil, nil
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%q is not a string: %s", k, raw)
		}
		if v == "" && nullable {
			return nil, nil
		}
		return &v, nil
	}
	var err error
	var p *string
	if p, err = str("session", false); err != nil {
		return s, err
	}
	s.Session = *p
	if p, err = str("state", false); err != nil {
		return s, err
	}
	s.State = *p
	if s.Agent, err = str("agent", true); err != nil {
		return s, err
	}
	if s.Cwd, err = str("cwd", true); err != nil {
		return s, err
	}
	if s.Title, err = str("title", true); err != nil {
		return s, err
	}
	if raw := m["pid"]; string(raw) != "null" {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			return s, fmt.Errorf(`"pid" is not null or an integer from 0 to 2147483647: %s`, raw)
		}
		if f != 0 {
			v := int64(f)
			s.PID = &v
		}
	}
	if strict && s.Session == "" {
		return s, errors.New(`"session" is empty`)
	}
	for _, k := range []string{"waitingFor", "ended"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return s, fmt.Errorf("%q: %v", k, err)
		}
		if _, obj := v.(map[string]any); v != nil && !obj {
			return s, fmt.Errorf("%q is not an object or null: %s", k, raw)
		}
		canon, _ := json.Marshal(v) // keys sorted
		if k == "waitingFor" {
			s.WaitingFor = canon
		} else {
			s.Ended = canon
		}
	}
	return s, nil
}

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

// String is the session as one canonical JSON line.
func (s Session) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}

func showStr(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}

func showInt(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

func eqStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func eqInt(a, b *int64) bool  { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

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
func compareSessions(want, got []Session) []string {
	var diffs []string
	byID := map[string]Session{}
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
		if !eqStr(g.Agent, w.Agent) {
			field("agent", showStr(g.Agent), showStr(w.Agent))
		}
		if g.State != w.State {
			field("state", strconv.Quote(g.State), strconv.Quote(w.State))
		}
		if !eqInt(g.PID, w.PID) {
			field("pid", showInt(g.PID), showInt(w.PID))
		}
		if !eqStr(g.Cwd, w.Cwd) {
			field("cwd", showStr(g.Cwd), showStr(w.Cwd))
		}
		if !eqStr(g.Title, w.Title) {
			got, want := showStr(g.Title), showStr(w.Title)
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

func sortedSessions(s []Session) []Session {
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b Session) int { return strings.Compare(a.Session, b.Session) })
	return s
}

// ndjson renders sessions as the lines a reader prints, sorted by session.
func ndjson(s []Session) string {
	if len(s) == 0 {
		return "(no sessions)"
	}
	var b strings.Builder
	for i, x := range sortedSessions(s) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(x.String())
	}
	return b.String()
}
