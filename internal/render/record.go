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
	return AppendJSONFields(dst, e, nil)
}

// JSONFields are the keys of [AppendJSON]'s object, in its order.
var JSONFields = func() []string {
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.key
	}
	return keys
}()

// AppendJSONFields appends the JSON object of e with only the keys in
// fields (names from [JSONFields], in [JSONFields] order); all of them
// when fields is empty.
func AppendJSONFields(dst []byte, e *reader.Entry, fields []string) []byte {
	dst = append(dst, '{')
	return append(appendMembers(dst, newObject(e), fields), '}')
}

// object is what the members of a session's JSON object are written from.
type object struct {
	e         *reader.Entry
	rec       bool   // e carries a decoded record
	hasReason bool   // the reason key holds reason, else null
	reason    string // an invalid file's reason, or why a removed session left
}

func newObject(e *reader.Entry) *object {
	return &object{e: e, rec: hasRecord(e), hasReason: e.Verdict == reader.Invalid && e.Reason != "", reason: e.Reason}
}

// appendMembers appends the members of o's object in fields (all when
// empty), without braces.
func appendMembers(dst []byte, o *object, fields []string) []byte {
	first := true
	for _, m := range members {
		if len(fields) > 0 && !slices.Contains(fields, m.key) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, m.key)
		dst = append(dst, ':')
		dst = m.value(dst, o)
	}
	return dst
}

// members are the keys of a session's object, in their order, with how
// each value is written.
var members = []struct {
	key   string
	value func(dst []byte, o *object) []byte
}{
	{"file", func(dst []byte, o *object) []byte { return appendOptString(dst, true, o.e.Name) }},
	{"schema", func(dst []byte, o *object) []byte { return appendOptString(dst, o.rec, o.e.Status.Schema) }},
	{"session", func(dst []byte, o *object) []byte { return appendOptString(dst, o.rec, o.e.Status.Session) }},
	{"agent", func(dst []byte, o *object) []byte {
		return appendOptString(dst, o.rec && o.e.Status.Agent != "", o.e.Status.Agent)
	}},
	{"pid", func(dst []byte, o *object) []byte {
		if !o.rec || o.e.Status.PID <= 0 {
			return append(dst, "null"...)
		}
		return strconv.AppendInt(dst, int64(o.e.Status.PID), 10)
	}},
	{"cwd", func(dst []byte, o *object) []byte {
		return appendOptString(dst, o.rec && o.e.Status.Cwd != "", o.e.Status.Cwd)
	}},
	{"state", func(dst []byte, o *object) []byte { return appendOptString(dst, o.rec, string(o.e.Status.State)) }},
	{"title", func(dst []byte, o *object) []byte {
		if !o.rec {
			return append(dst, "null"...)
		}
		return appendWhyString(dst, o.e.Status.Title)
	}},
	{"updatedAt", func(dst []byte, o *object) []byte {
		if !o.rec {
			return append(dst, "null"...)
		}
		dst = append(dst, '"')
		dst = timefmt.Append(dst, o.e.Status.UpdatedAt)
		return append(dst, '"')
	}},
	{"waitingFor", func(dst []byte, o *object) []byte {
		s := &o.e.Status
		if w := s.WaitingFor; o.rec && s.State == statusfile.Blocked && w.Kind != "" {
			dst = append(dst, `{"kind":`...)
			dst = appendWhyString(dst, w.Kind)
			dst = append(dst, `,"tool":`...)
			dst = appendWhyString(dst, w.Tool)
			return appendReasonEnd(dst, w.Detail, `,"since":`, w.Since)
		}
		return append(dst, "null"...)
	}},
	{"ended", func(dst []byte, o *object) []byte {
		s := &o.e.Status
		if x := s.Ended; o.rec && s.State == statusfile.Idle && x.Reason != "" {
			dst = append(dst, `{"reason":`...)
			dst = appendWhyString(dst, x.Reason)
			return appendReasonEnd(dst, x.Detail, `,"at":`, x.At)
		}
		return append(dst, "null"...)
	}},
	{"fresh", func(dst []byte, o *object) []byte { return strconv.AppendBool(dst, o.e.Verdict == reader.Fresh) }},
	{"age", func(dst []byte, o *object) []byte {
		if !o.rec {
			return append(dst, "null"...)
		}
		return appendSeconds(dst, o.e.Age.Milliseconds())
	}},
	{"alive", func(dst []byte, o *object) []byte {
		switch o.e.Alive {
		case reader.Alive:
			return append(dst, "true"...)
		case reader.Dead, reader.Reused:
			return append(dst, "false"...)
		}
		return append(dst, "null"...)
	}},
	{"verdict", func(dst []byte, o *object) []byte { return appendJSONString(dst, string(o.e.Verdict)) }},
	{"reason", func(dst []byte, o *object) []byte { return appendOptString(dst, o.hasReason, o.reason) }},
	{"error", func(dst []byte, o *object) []byte {
		if o.e.Verdict != reader.Invalid || o.e.Err == nil {
			return append(dst, "null"...)
		}
		return appendOptString(dst, true, base.Message(o.e.Err))
	}},
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

// appendReasonEnd appends how a waitingFor and an ended object end: the
// detail, the time after timeKey (`,"since":` or `,"at":`), each null when
// unknown, and the closing brace.
func appendReasonEnd(dst []byte, detail, timeKey string, t time.Time) []byte {
	dst = append(dst, `,"detail":`...)
	dst = appendWhyString(dst, detail)
	dst = append(dst, timeKey...)
	dst = appendOptTime(dst, t)
	return append(dst, '}')
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
	fields := [...]string{statusfile.SanitizeText(s.Agent), statusfile.SanitizeText(s.Session),
		statusfile.SanitizeText(string(s.State)), statusfile.SanitizeTitle(s.Title)}
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, '\t')
		}
		dst = appendTSVField(dst, f)
	}
	return append(dst, '\n')
}

// tsvEscaper escapes as jq's @tsv: backslash, tab, newline, carriage
// return and NUL become \\, \t, \n, \r and \0. (Sanitized fields hold no
// control characters; the escaping keeps the row format whatever they hold.)
var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\x00", `\0`)

func appendTSVField(dst []byte, s string) []byte { return append(dst, tsvEscaper.Replace(s)...) }
