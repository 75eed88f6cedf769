package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// errProtocol is returned for output that is not what statusls prints.
var errProtocol = errors.New("not statusls output")

// errOld marks output of a statusls older than this package.
var errOld = errors.New("output of an older statusls")

// wireObject is a statusls --json object or a statusls watch --json event,
// as a host sends it. Pointers tell absent and null apart from zero values;
// a wrong JSON type is a decoding error. Unknown keys are ignored (SPEC.md
// V5).
type wireObject struct {
	Event     *string         `json:"event"`
	File      *string         `json:"file"`
	Schema    *string         `json:"schema"`
	Session   *string         `json:"session"`
	Agent     *string         `json:"agent"`
	PID       json.RawMessage `json:"pid"`
	Cwd       *string         `json:"cwd"`
	State     *string         `json:"state"`
	Title     *string         `json:"title"`
	UpdatedAt *string         `json:"updatedAt"`
	// The reason keys are taken as they come: a wrong type is ignored,
	// never a protocol error (SPEC.md C4, as in a file).
	WaitingFor json.RawMessage `json:"waitingFor"`
	Ended      json.RawMessage `json:"ended"`
	Fresh      *bool           `json:"fresh"`
	Age        json.RawMessage `json:"age"`
	Alive      *bool           `json:"alive"`
	Verdict    *string         `json:"verdict"`
	Reason     *string         `json:"reason"`
	Error      *string         `json:"error"`
	Missing    *bool           `json:"missing"`
}

// decodeObject decodes one line holding exactly one JSON object.
func decodeObject(line []byte) (*wireObject, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil, fmt.Errorf("%w: a line that is not a JSON object", errProtocol)
	}
	d := json.NewDecoder(bytes.NewReader(line))
	var w wireObject
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("%w: %v", errProtocol, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: more than one JSON value on a line", errProtocol)
	}
	return &w, nil
}

// entry turns a decoded statusls --json object into a reader entry,
// checking it as a reader checks a record, and sanitizing its strings.
func (w *wireObject) entry() (*reader.Entry, error) {
	if w.File == nil {
		return nil, fmt.Errorf("%w: an object without a file", errProtocol)
	}
	if w.Verdict == nil {
		return nil, fmt.Errorf("%w: its --json objects have no verdict", errOld)
	}
	if !safefs.IsStatusName(*w.File) {
		return nil, fmt.Errorf("%w: file %q is not a status file name", errProtocol, statusfile.SanitizeText(short(*w.File)))
	}
	e := &reader.Entry{Name: *w.File, Verdict: reader.Verdict(*w.Verdict)}
	switch e.Verdict {
	case reader.Fresh, reader.Stale:
	case reader.Invalid:
		if w.Reason == nil {
			return nil, fmt.Errorf("%w: an invalid file without a reason", errProtocol)
		}
		e.Reason = statusfile.SanitizeText(*w.Reason)
		msg := e.Reason
		if w.Error != nil {
			msg = statusfile.SanitizeText(*w.Error)
		}
		e.Err = errors.New(msg)
		if e.Reason != "name-mismatch" {
			return e, nil
		}
	default:
		return nil, fmt.Errorf("%w: verdict %q", errProtocol, statusfile.SanitizeText(short(*w.Verdict)))
	}
	// A record: fresh, stale, or invalid only by its name.
	if w.Schema == nil || w.Session == nil || w.State == nil || w.UpdatedAt == nil {
		return nil, fmt.Errorf("%w: a session without schema, session, state or updatedAt", errProtocol)
	}
	t, ok := timefmt.Parse(*w.UpdatedAt)
	if !ok {
		return nil, fmt.Errorf("%w: updatedAt %q is not an RFC 3339 time", errProtocol, statusfile.SanitizeText(short(*w.UpdatedAt)))
	}
	if *w.Session == "" {
		return nil, fmt.Errorf("%w: an empty session id", errProtocol)
	}
	if e.Verdict != reader.Invalid && e.Name != statusfile.FileName(*w.Session) {
		return nil, fmt.Errorf("%w: file %s is not the file of its session", errProtocol, e.Name)
	}
	s := &e.Status
	s.Schema = statusfile.SanitizeText(*w.Schema)
	s.Session = *w.Session // the key; sanitized where it is shown
	s.State = statusfile.State(statusfile.SanitizeText(*w.State))
	s.UpdatedAt = t
	s.Agent, s.Cwd = text(w.Agent), text(w.Cwd)
	if w.Title != nil {
		s.Title = statusfile.SanitizeTitle(*w.Title)
	}
	reasonKeys(s, w.WaitingFor, w.Ended)
	if isSet(w.PID) {
		pid, err := strconv.ParseInt(string(w.PID), 10, 64)
		if err != nil || pid < 0 || pid > math.MaxInt32 {
			return nil, fmt.Errorf("%w: pid %s", errProtocol, statusfile.SanitizeText(short(string(w.PID))))
		}
		s.PID = int(pid)
	}
	if isSet(w.Age) {
		age, err := strconv.ParseFloat(string(w.Age), 64)
		if err != nil || w.Age[0] == '"' || math.IsNaN(age) || math.Abs(age) > 1e10 {
			return nil, fmt.Errorf("%w: age %s", errProtocol, statusfile.SanitizeText(short(string(w.Age))))
		}
		e.Age = time.Duration(age * float64(time.Second)).Round(time.Millisecond)
	}
	switch {
	case w.Alive == nil:
		e.Alive = reader.Unknown
	case *w.Alive:
		e.Alive = reader.Alive
	default:
		e.Alive = reader.Dead
	}
	return e, nil
}

// reasonKeys sets s's waitingFor and ended from a host's raw values, by
// the rules a reader applies to them in a status file (SPEC.md §4, C4):
// the record's own decoder reads them in a record made for the purpose,
// so that a key of the wrong type, or of another state, is ignored, a
// tool or detail of the wrong type is none, a time that is not RFC 3339 is
// unknown, and every string is sanitized and cut to its limit. Nothing in
// them fails the host.
func reasonKeys(s *statusfile.Status, waiting, ended json.RawMessage) {
	if !isSet(waiting) && !isSet(ended) {
		return
	}
	b := append([]byte(`{"schema":"`+statusfile.Schema+`","session":"-","state":`), jsonstr.Append(nil, string(s.State))...)
	b = append(b, `,"updatedAt":"2000-01-01T00:00:00.000Z"`...)
	if isSet(waiting) {
		b = append(append(b, `,"waitingFor":`...), waiting...)
	}
	if isSet(ended) {
		b = append(append(b, `,"ended":`...), ended...)
	}
	r, err := statusfile.Decode(append(b, '}'))
	if err != nil {
		return // not one JSON value the decoder takes: ignored too
	}
	s.WaitingFor, s.Ended = r.WaitingFor, r.Ended
}

// text is *p sanitized, or "" for a key absent or null.
func text(p *string) string {
	if p == nil {
		return ""
	}
	return statusfile.SanitizeText(*p)
}

// isSet reports whether a raw value is present and not null.
func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// short cuts what goes into a message about bad output.
func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// DecodeEntry decodes one statusls --json object sent by a host, strictly,
// such as the Output of a [Wait] run with --json, and returns its entry
// with every string sanitized.
func DecodeEntry(line []byte) (*reader.Entry, error) {
	w, err := decodeObject(line)
	if err != nil {
		return nil, err
	}
	return w.entry()
}
