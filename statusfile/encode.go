package statusfile

import (
	"errors"
	"fmt"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
)

// errInvalidRecord is returned by [Encode] for a record it will not write.
var errInvalidRecord = errors.New("invalid record")

// Encode returns the file content of s: compact JSON with the keys in the
// published order, no HTML escaping, and a trailing newline. The schema is
// always [Schema]; the title goes through [SanitizeTitle]; updatedAt is
// written in UTC with milliseconds (SPEC.md T1).
//
// Encode refuses a record with an invalid session id, an empty state, a
// pid outside 0 … 2³¹−1, a relative cwd, or a time outside the years 0000–9999.
func Encode(s Status) ([]byte, error) {
	return appendEncode(make([]byte, 0, 256+len(s.Agent)+len(s.Session)+len(s.Cwd)+len(s.Title)), s)
}

// appendEncode is like [Encode] but appends to dst.
func appendEncode(dst []byte, s Status) ([]byte, error) {
	if err := ValidateSession(s.Session); err != nil {
		return dst, err
	}
	switch {
	case s.State == "":
		return dst, fmt.Errorf("%w: empty state", errInvalidRecord)
	case s.PID < 0 || s.PID > maxPID:
		return dst, fmt.Errorf("%w: pid %d not in 0 … %d", errInvalidRecord, s.PID, maxPID)
	case s.Cwd != "" && !filepath.IsAbs(s.Cwd) && !isSlashAbs(s.Cwd):
		return dst, fmt.Errorf("%w: cwd %q is not absolute", errInvalidRecord, s.Cwd)
	}
	t := s.UpdatedAt.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, fmt.Errorf("%w: updatedAt year %d out of range", errInvalidRecord, y)
	}
	dst = append(dst, `{"schema":"`+Schema+`","agent":`...)
	dst = jsonstr.Append(dst, s.Agent)
	dst = append(dst, `,"session":`...)
	dst = jsonstr.Append(dst, s.Session)
	dst = append(dst, `,"pid":`...)
	dst = strconv.AppendInt(dst, int64(s.PID), 10)
	dst = append(dst, `,"cwd":`...)
	dst = jsonstr.Append(dst, s.Cwd)
	dst = append(dst, `,"state":`...)
	dst = jsonstr.Append(dst, string(s.State))
	if title := SanitizeTitle(s.Title); title == "" {
		dst = append(dst, `,"task":null`...)
	} else {
		dst = append(dst, `,"task":{"title":`...)
		dst = jsonstr.Append(dst, title)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"updatedAt":"`...)
	dst = timefmt.Append(dst, t)
	dst = append(dst, '"')
	sanitizeWhy(&s)
	if w := s.WaitingFor; w.Kind != "" {
		dst = append(dst, `,"waitingFor":{"kind":`...)
		dst = jsonstr.Append(dst, w.Kind)
		dst = append(dst, `,"tool":`...)
		dst = appendNullString(dst, w.Tool)
		dst = appendReasonEnd(dst, w.Detail, `,"since":`, w.Since)
	}
	if e := s.Ended; e.Reason != "" {
		dst = append(dst, `,"ended":{"reason":`...)
		dst = jsonstr.Append(dst, e.Reason)
		dst = appendReasonEnd(dst, e.Detail, `,"at":`, e.At)
	}
	if b := s.Background; b.Agents > 0 || b.Tasks > 0 {
		dst = append(dst, `,"background":{"agents":`...)
		dst = strconv.AppendInt(dst, int64(b.Agents), 10)
		dst = append(dst, `,"tasks":`...)
		dst = strconv.AppendInt(dst, int64(b.Tasks), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, "}\n"...)
	return dst, nil
}

// appendReasonEnd appends how a waitingFor and an ended object end: the
// detail, the time after timeKey (`,"since":` or `,"at":`), each null when
// unknown, and the closing brace.
func appendReasonEnd(dst []byte, detail, timeKey string, t time.Time) []byte {
	dst = append(dst, `,"detail":`...)
	dst = appendNullString(dst, detail)
	dst = append(dst, timeKey...)
	dst = appendNullTime(dst, t)
	return append(dst, '}')
}

// appendNullString appends s as a JSON string, or null when it is empty.
func appendNullString(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return jsonstr.Append(dst, s)
}

// appendNullTime appends t as updatedAt is written, or null when it is
// zero or outside the years 0000–9999.
func appendNullTime(dst []byte, t time.Time) []byte {
	if y := t.UTC().Year(); t.IsZero() || y < 0 || y > 9999 {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = timefmt.Append(dst, t)
	return append(dst, '"')
}

// isSlashAbs accepts "/..." paths on every platform: a record written on
// one system may be encoded on another.
func isSlashAbs(p string) bool { return len(p) > 0 && p[0] == '/' }
