package vector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// ParseLine parses one line of a reader's output (or of a vector's
// expected section); strict, for a vector, also refuses an empty session.
// Keys beyond the six every line needs are ignored.
func ParseLine(line []byte, strict bool) (Session, error) {
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
	// session and state are strings; agent, cwd and title may be null or
	// empty, both read as unknown.
	var session, state *string
	for _, f := range []struct {
		key      string
		dst      **string
		nullable bool
	}{{"session", &session, false}, {"state", &state, false}, {"agent", &s.Agent, true}, {"cwd", &s.Cwd, true}, {"title", &s.Title, true}} {
		raw := m[f.key]
		var v string
		switch {
		case string(raw) == "null" && !f.nullable:
			return s, fmt.Errorf("%q is null", f.key)
		case string(raw) == "null":
		case json.Unmarshal(raw, &v) != nil:
			return s, fmt.Errorf("%q is not a string: %s", f.key, raw)
		case v != "" || !f.nullable:
			*f.dst = &v
		}
	}
	s.Session, s.State = *session, *state
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
	for _, f := range []struct {
		key string
		dst *json.RawMessage
	}{{"waitingFor", &s.WaitingFor}, {"ended", &s.Ended}} {
		raw, ok := m[f.key]
		if !ok {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return s, fmt.Errorf("%q: %v", f.key, err)
		}
		if _, obj := v.(map[string]any); v != nil && !obj {
			return s, fmt.Errorf("%q is not an object or null: %s", f.key, raw)
		}
		*f.dst, _ = json.Marshal(v) // keys sorted
	}
	return s, nil
}

// String is the session as one canonical JSON line.
func (s Session) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}
