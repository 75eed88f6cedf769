package render

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/jsonstr"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// hasRecord reports whether e carries a decoded record: fresh and stale
// entries, and invalid ones whose only fault is their name.
func hasRecord(e *reader.Entry) bool {
	return e.Verdict == reader.Fresh || e.Verdict == reader.Stale || e.Reason == "name-mismatch"
}

// AppendJSON appends the JSON object of e, without a newline. The object is
// a stable format (see the package statusls documentation); its keys, in
// this order:
//
//	file       the file name
//	schema     the schema, or null when the file holds no record
//	session    the session id, or null
//	agent      the agent, or null when unknown
//	pid        the pid, or null when unknown (0, null or absent)
//	cwd        the workspace, or null when unknown
//	state      the state as written (unknown states too), or null
//	title      the displayed title, or null for none
//	updatedAt  the time of the last write, in UTC with milliseconds, or null
//	waitingFor what a blocked session waits for, or null:
//	           {"kind","tool","detail","since"}, tool and detail null
//	           when unknown, since in UTC with milliseconds or null
//	ended      how an idle session's last turn ended, or null:
//	           {"reason","detail","at"}, detail and at null when unknown
//	fresh      whether the record is fresh (false for invalid files)
//	age        seconds since updatedAt, millisecond precision (negative
//	           when in the future), or null
//	alive      whether the pid is alive on this host: true, false (dead, or
//	           reused by a later process), or null when unknown or unchecked
//	verdict    "fresh", "stale" or "invalid"
//	reason     why the file is invalid (SPEC.md §10), or null
//	error      the details of an invalid file, or null
//
// Strings are sanitized as for display.
func AppendJSON(dst []byte, e *reader.Entry) []byte {
	dst = append(dst, '{')
	dst = appendFields(dst, e, e.Verdict == reader.Invalid && e.Reason != "", string(e.Reason))
	return append(dst, '}')
}

// JSONFields are the keys of [AppendJSON]'s object, in its order.
var JSONFields = []string{"file", "schema", "session", "agent", "pid", "cwd", "state", "title", "updatedAt", "waitingFor", "ended", "fresh", "age", "alive", "verdict", "reason", "error"}

// AppendJSONFields appends the JSON object of e with only the keys in
// fields (names from [JSONFields], in [JSONFields] order); all of them
// when fields is empty.
func AppendJSONFields(dst []byte, e *reader.Entry, fields []string) []byte {
	if len(fields) == 0 {
		return AppendJSON(dst, e)
	}
	start := len(dst)
	dst = AppendJSON(dst, e)
	full := string(dst[start+1 : len(dst)-1])
	dst = append(dst[:start], '{')
	first := true
	at := 0
	for i, k := range JSONFields {
		// A member runs from its key to the next key. A JSON string
		// escapes every quote inside it, so the next key's `,"key":`
		// cannot occur within a string; and the members come in
		// JSONFields order, so a search that starts at this key finds
		// the next one after the objects in between (ended holds a
		// "reason" of its own).
		at += strings.Index(full[at:], `"`+k+`":`)
		end := len(full)
		if i+1 < len(JSONFields) {
			end = at + strings.Index(full[at:], `,"`+JSONFields[i+1]+`":`)
		}
		if !slices.Contains(fields, k) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, full[at:end]...)
		at = end
	}
	return append(dst, '}')
}

// appendFields appends the members of e's JSON object, without braces.
// reason, when hasReason, is the value of the reason key.
func appendFields(dst []byte, e *reader.Entry, hasReason bool, reason string) []byte {
	rec := hasRecord(e)
	s := &e.Status
	dst = append(dst, `"file":`...)
	dst = appendJSONString(dst, statusfile.SanitizeText(e.Name))
	dst = append(dst, `,"schema":`...)
	dst = appendOptString(dst, rec, s.Schema)
	dst = append(dst, `,"session":`...)
	dst = appendOptString(dst, rec, s.Session)
	dst = append(dst, `,"agent":`...)
	dst = appendOptString(dst, rec && s.Agent != "", s.Agent)
	dst = append(dst, `,"pid":`...)
	if rec && s.PID > 0 {
		dst = strconv.AppendInt(dst, int64(s.PID), 10)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"cwd":`...)
	dst = appendOptString(dst, rec && s.Cwd != "", s.Cwd)
	dst = append(dst, `,"state":`...)
	dst = appendOptString(dst, rec, string(s.State))
	dst = append(dst, `,"title":`...)
	if title := statusfile.SanitizeTitle(s.Title); rec && title != "" {
		dst = appendJSONString(dst, title)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"updatedAt":`...)
	if rec {
		dst = append(dst, '"')
		dst = timefmt.Append(dst, s.UpdatedAt)
		dst = append(dst, '"')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"waitingFor":`...)
	if w := s.WaitingFor; rec && s.State == statusfile.Blocked && w.Kind != "" {
		dst = append(dst, `{"kind":`...)
		dst = appendWhyString(dst, w.Kind)
		dst = append(dst, `,"tool":`...)
		dst = appendWhyString(dst, w.Tool)
		dst = append(dst, `,"detail":`...)
		dst = appendWhyString(dst, w.Detail)
		dst = append(dst, `,"since":`...)
		dst = appendOptTime(dst, w.Since)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"ended":`...)
	if x := s.Ended; rec && s.State == statusfile.Idle && x.Reason != "" {
		dst = append(dst, `{"reason":`...)
		dst = appendWhyString(dst, x.Reason)
		dst = append(dst, `,"detail":`...)
		dst = appendWhyString(dst, x.Detail)
		dst = append(dst, `,"at":`...)
		dst = appendOptTime(dst, x.At)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"fresh":`...)
	dst = strconv.AppendBool(dst, e.Verdict == reader.Fresh)
	dst = append(dst, `,"age":`...)
	if rec {
		dst = appendSeconds(dst, e.Age.Milliseconds())
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"alive":`...)
	switch e.Alive {
	case reader.Alive:
		dst = append(dst, "true"...)
	case reader.Dead, reader.Reused:
		dst = append(dst, "false"...)
	default:
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"verdict":`...)
	dst = appendJSONString(dst, string(e.Verdict))
	dst = append(dst, `,"reason":`...)
	dst = appendOptString(dst, hasReason, reason)
	dst = append(dst, `,"error":`...)
	if e.Verdict == reader.Invalid && e.Err != nil {
		dst = appendJSONString(dst, statusfile.SanitizeText(base.Message(e.Err)))
	} else {
		dst = append(dst, "null"...)
	}
	return dst
}

// appendSeconds appends ms milliseconds as a JSON number of seconds with at
// most three decimals: 1234 → 1.234, 1500 → 1.5, 2000 → 2.
func appendSeconds(dst []byte, ms int64) []byte {
	if ms < 0 {
		dst = append(dst, '-')
		ms = -ms
	}
	dst = strconv.AppendInt(dst, ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		digits := []byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		dst = append(dst, digits...)
	}
	return dst
}

// appendWhyString appends a string of waitingFor or ended, sanitized as a
// title (SPEC.md §7), or null for "".
func appendWhyString(dst []byte, s string) []byte {
	if s = statusfile.SanitizeTitle(s); s == "" {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, s)
}

// appendOptTime appends t as a JSON string in the format of SPEC.md T1, or
// null for the zero time.
func appendOptTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = timefmt.Append(dst, t)
	return append(dst, '"')
}

func appendOptString(dst []byte, ok bool, s string) []byte {
	if !ok {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, statusfile.SanitizeText(s))
}

// appendJSONString appends s as a JSON string, escaped as status files
// escape it (SPEC.md E2). The strings given are sanitized: they hold no
// control character, DEL or invalid UTF-8.
func appendJSONString(dst []byte, s string) []byte { return jsonstr.Append(dst, s) }

// AppendTSV appends the TSV row of a record: agent, session, state and
// title, sanitized, escaped as jq's @tsv escapes them, and a newline. For a
// record as publishers write it, the row is byte-identical to the one the
// published jq one-liner prints.
func AppendTSV(dst []byte, s *statusfile.Status) []byte {
	dst = appendTSVField(dst, statusfile.SanitizeText(s.Agent))
	dst = append(dst, '\t')
	dst = appendTSVField(dst, statusfile.SanitizeText(s.Session))
	dst = append(dst, '\t')
	dst = appendTSVField(dst, statusfile.SanitizeText(string(s.State)))
	dst = append(dst, '\t')
	dst = appendTSVField(dst, statusfile.SanitizeTitle(s.Title))
	return append(dst, '\n')
}

// appendTSVField escapes as jq's @tsv: backslash, tab, newline, carriage
// return and NUL become \\, \t, \n, \r and \0. (Sanitized fields hold no
// control characters; the escaping keeps the row format whatever they hold.)
func appendTSVField(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '\\':
			esc = `\\`
		case '\t':
			esc = `\t`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		case 0:
			esc = `\0`
		default:
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		start = i + 1
	}
	return append(dst, s[start:]...)
}
