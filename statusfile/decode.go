package statusfile

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/agentstatus/agentstatus/internal/timefmt"
)

// decoder reads a record's fields from the spans the scanner finds.
type decoder struct{ jsonstr.Scanner }

// The fields Decode knows, in the order their errors are reported.
const (
	fSchema = iota
	fSession
	fState
	fUpdatedAt
	fAgent
	fPID
	fCwd
	fTask
	fWaitingFor
	fEnded
	fBackground
	nFields
)

var fieldNames = [nFields]string{"schema", "session", "state", "updatedAt", "agent", "pid", "cwd", "task", "waitingFor", "ended", "background"}

// Decode parses a status file. It is tolerant where SPEC.md asks readers to
// be: unknown keys are ignored, an unknown state is kept as it is, a missing
// or null agent, pid, cwd or task is empty, and invalid UTF-8 becomes U+FFFD.
// It rejects, with a [*DecodeError], anything that is not exactly one JSON
// object, another schema, a missing or empty session, a missing state or
// updatedAt, a field of the wrong type, a pid that is not a non-negative
// integer below 2^31, and an updatedAt that is not an RFC 3339 time. When the
// same key appears more than once, the last one counts.
//
// The reason keys are never a cause for rejection: a waitingFor or ended
// that is not an object, or lacks its kind or reason, is ignored, a tool
// or detail that is not a string is empty, and a time that is not RFC
// 3339 is zero. They are kept only with their state (blocked, idle) and
// returned sanitized.
//
// The title is returned as written, but cut after its first character
// past 4096 UTF-16 code units: all that [SanitizeTitle] looks at,
// and the one character that tells it the title was cut. No other part of
// data is held by the result. Display the title through [SanitizeTitle].
func Decode(data []byte) (Status, error) {
	d := decoder{jsonstr.Scanner{Data: data}}
	d.WS()
	if d.Pos == len(data) {
		return Status{}, &DecodeError{Reason: reasonEmpty}
	}
	var fields [nFields]jsonstr.Span
	first := data[d.Pos]
	var err error
	if first != '{' {
		err = d.Value(0)
	} else {
		err = d.Object(func(key []byte, v jsonstr.Span) {
			if i := fieldIndex(key); i >= 0 {
				fields[i] = v
			}
		})
	}
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return Status{}, &DecodeError{Reason: reasonBadJSON, Detail: err.Error()}
	}
	if first != '{' {
		return Status{}, &DecodeError{Reason: reasonNotObject, Detail: "top-level " + kindOf(first)}
	}
	return d.interpret(&fields)
}

// kinds names the JSON type of a value by its first byte; the others are
// numbers.
var kinds = [256]string{'{': "object", '[': "array", '"': "string", 't': "boolean", 'f': "boolean", 'n': "null"}

func kindOf(c byte) string { return cmp.Or(kinds[c], "number") }

// fieldIndex is key's index in fieldNames, or -1. string(key) compared in
// place copies nothing, where slices.Index(fieldNames[:], string(key))
// makes the string first: about 2.5 ns a key, on every key of every record.
func fieldIndex(key []byte) int {
	for i, n := range fieldNames {
		if string(key) == n {
			return i
		}
	}
	return -1
}

func (d *decoder) interpret(f *[nFields]jsonstr.Span) (Status, error) {
	var s Status
	// schema
	sp := f[fSchema]
	if sp.End == 0 || d.Data[sp.Start] != '"' {
		detail := "no schema"
		if sp.End != 0 {
			detail = "schema is " + kindOf(d.Data[sp.Start])
		}
		return s, &DecodeError{Reason: reasonSchema, Detail: detail}
	}
	if raw := d.Data[sp.Start:sp.End]; len(raw) == len(Schema)+2 && string(raw[1:len(raw)-1]) == Schema {
		// the common case, without allocating
	} else if schema := d.Str(sp); schema != Schema {
		return s, &DecodeError{Reason: reasonSchema, Detail: strconv.Quote(jsonstr.Shorten(schema, 64, 64, "…"))}
	}
	s.Schema = Schema

	var err error
	if s.Session, err = d.field(f, fSession, true); err != nil {
		return Status{}, err
	}
	if s.Session == "" {
		return Status{}, &DecodeError{Reason: reasonBadValue, Field: "session", Detail: "empty"}
	}
	if s.State, err = d.state(f); err != nil {
		return Status{}, err
	}
	var ts []byte
	if sp := f[fUpdatedAt]; sp.End != 0 && d.Data[sp.Start] == '"' && !jsonstr.HasEscapeOrHigh(d.Data[sp.Start+1:sp.End-1]) {
		ts = d.Data[sp.Start+1 : sp.End-1] // the common case: parsed in place
	} else {
		t, err := d.field(f, fUpdatedAt, true)
		if err != nil {
			return Status{}, err
		}
		ts = []byte(t)
	}
	var ok bool
	if s.UpdatedAt, ok = timefmt.Parse(ts); !ok {
		return Status{}, &DecodeError{Reason: reasonBadValue, Field: "updatedAt", Detail: "not an RFC 3339 time: " + strconv.Quote(jsonstr.Shorten(string(ts), 64, 64, "…"))}
	}
	if s.Agent, err = d.field(f, fAgent, false); err != nil {
		return Status{}, err
	}
	if sp := f[fPID]; sp.End != 0 && !d.isNull(sp) {
		c := d.Data[sp.Start]
		if c != '-' && (c < '0' || c > '9') {
			return Status{}, wrongType("pid", "number", c)
		}
		pid, ok := parsePID(d.Data[sp.Start:sp.End])
		if !ok {
			return Status{}, &DecodeError{Reason: reasonBadValue, Field: "pid", Detail: "not an integer from 0 to 2147483647: " + string(d.Data[sp.Start:sp.End])}
		}
		s.PID = pid
	}
	if s.Cwd, err = d.field(f, fCwd, false); err != nil {
		return Status{}, err
	}
	if sp := f[fTask]; sp.End != 0 && !d.isNull(sp) {
		if c := d.Data[sp.Start]; c != '{' {
			return Status{}, wrongType("task", "object or null", c)
		}
		var v [1]jsonstr.Span
		d.members(sp, []string{"title"}, v[:])
		if title := v[0]; title.End != 0 && !d.isNull(title) {
			if c := d.Data[title.Start]; c != '"' {
				return Status{}, wrongType("task.title", "string or null", c)
			}
			// Only what SanitizeTitle looks at outlives the file.
			s.Title = d.StrUnits(title, maxTitleUnits)
		}
	}
	switch s.State {
	case Blocked:
		var v [4]jsonstr.Span
		if d.members(f[fWaitingFor], []string{"kind", "tool", "detail", "since"}, v[:]) {
			s.WaitingFor = Waiting{Kind: d.text(v[0]), Tool: d.text(v[1]), Detail: d.text(v[2]), Since: d.time(v[3])}
		}
	case Idle:
		var v [3]jsonstr.Span
		if d.members(f[fEnded], []string{"reason", "detail", "at"}, v[:]) {
			s.Ended = Ended{Reason: d.text(v[0]), Detail: d.text(v[1]), At: d.time(v[2])}
		}
	}
	var v [2]jsonstr.Span
	if d.members(f[fBackground], []string{"agents", "tasks"}, v[:]) {
		s.Background = Background{Agents: d.count(v[0]), Tasks: d.count(v[1])}
	}
	sanitizeWhy(&s)
	return s, nil
}

// count returns the non-negative integer at sp, or 0 for anything else;
// one above maxBackground is maxBackground.
func (d *decoder) count(sp jsonstr.Span) int {
	if sp.End == 0 {
		return 0
	}
	f, err := strconv.ParseFloat(string(d.Data[sp.Start:sp.End]), 64)
	if err != nil || f < 0 || f != math.Trunc(f) {
		return 0
	}
	return int(min(f, maxBackground))
}

// members reports whether sp is an object, and sets v[i] to the value of
// its member names[i], if any.
func (d *decoder) members(sp jsonstr.Span, names []string, v []jsonstr.Span) bool {
	if sp.End == 0 || d.Data[sp.Start] != '{' {
		return false
	}
	sub := jsonstr.Scanner{Data: d.Data, Pos: sp.Start, Valid: true}
	// The jsonstr.Span was validated already: object cannot fail.
	_ = sub.Object(func(key []byte, val jsonstr.Span) {
		if i := slices.Index(names, string(key)); i >= 0 {
			v[i] = val
		}
	})
	return true
}

// text returns the string at sp, or "" for any other value or none.
func (d *decoder) text(sp jsonstr.Span) string {
	if sp.End == 0 || d.Data[sp.Start] != '"' {
		return ""
	}
	return d.Str(sp)
}

// time returns the RFC 3339 time at sp, or the zero time for anything else.
func (d *decoder) time(sp jsonstr.Span) time.Time {
	t, _ := timefmt.Parse(d.text(sp))
	return t
}

// state returns the required state, sharing the strings of the known
// states instead of allocating them.
func (d *decoder) state(f *[nFields]jsonstr.Span) (State, error) {
	if sp := f[fState]; sp.End != 0 && d.Data[sp.Start] == '"' {
		for _, st := range [...]State{Working, Blocked, Idle} {
			if string(d.Data[sp.Start+1:sp.End-1]) == string(st) { // no allocation
				return st, nil
			}
		}
	}
	st, err := d.field(f, fState, true)
	return State(st), err
}

func wrongType(field, want string, c byte) *DecodeError {
	return &DecodeError{Reason: reasonWrongType, Field: field, Detail: "want " + want + ", got " + kindOf(c)}
}

func (d *decoder) isNull(sp jsonstr.Span) bool { return d.Data[sp.Start] == 'n' }

// field returns the string field i; when it is not required, "" for one
// absent or null.
func (d *decoder) field(f *[nFields]jsonstr.Span, i int, required bool) (string, error) {
	sp := f[i]
	switch {
	case (sp.End == 0 || d.isNull(sp)) && required:
		return "", &DecodeError{Reason: reasonMissingField, Field: fieldNames[i]}
	case sp.End == 0 || d.isNull(sp):
		return "", nil
	case d.Data[sp.Start] != '"' && required:
		return "", wrongType(fieldNames[i], "string", d.Data[sp.Start])
	case d.Data[sp.Start] != '"':
		return "", wrongType(fieldNames[i], "string or null", d.Data[sp.Start])
	}
	return d.Str(sp), nil
}

// parsePID accepts a JSON number whose value is an integer in [0, 2^31).
func parsePID(num []byte) (int, bool) {
	if v, err := strconv.Atoi(string(num)); err == nil {
		return v, 0 <= v && v <= maxPID
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || f < 0 || f > maxPID || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}
