package statusfile

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Reason says why a file is not a valid record. Reasons are stable strings:
// statusls prints them and the conformance suite compares them.
type Reason string

// Reasons for which [Decode] rejects a file.
const (
	ReasonEmpty        Reason = "empty"              // no bytes, or only white space
	ReasonBadJSON      Reason = "bad-json"           // not exactly one JSON value
	ReasonNotObject    Reason = "not-object"         // JSON, but not an object
	ReasonSchema       Reason = "unsupported-schema" // "schema" is not Schema
	ReasonMissingField Reason = "missing-field"      // a required field is absent or null
	ReasonWrongType    Reason = "wrong-type"         // a field has the wrong JSON type
	ReasonBadValue     Reason = "bad-value"          // right type, unusable value
)

// DecodeError is the error [Decode] returns.
type DecodeError struct {
	Reason Reason
	Field  string // the field at fault, if any ("task.title" for the title)
	Detail string // what was found, for people
}

func (e *DecodeError) Error() string {
	msg := "statusfile: " + string(e.Reason)
	if e.Field != "" {
		msg += " " + strconv.Quote(e.Field)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// maxDepth bounds the nesting of values that are skipped.
const maxDepth = 10000

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
	nFields
)

var fieldNames = [nFields]string{"schema", "session", "state", "updatedAt", "agent", "pid", "cwd", "task"}

// span is where a value starts and ends in the input; end == 0 means absent.
type span struct{ start, end int }

// Decode parses a status file. It is tolerant where SPEC.md asks readers to
// be: unknown keys are ignored, an unknown state is kept as it is, a missing
// or null agent, pid, cwd or task is empty, and invalid UTF-8 becomes U+FFFD.
// It rejects, with a [*DecodeError], anything that is not exactly one JSON
// object, another schema, a missing or empty session, a missing state or
// updatedAt, a field of the wrong type, a pid that is not a non-negative
// integer below 2^31, and an updatedAt that is not an RFC 3339 time. When the
// same key appears more than once, the last one counts.
//
// The title is returned as written; display it through [SanitizeTitle].
func Decode(data []byte) (Status, error) {
	d := decoder{data: data}
	d.ws()
	if d.pos == len(data) {
		return Status{}, &DecodeError{Reason: ReasonEmpty}
	}
	if data[d.pos] != '{' {
		if err := d.value(0); err != nil {
			return Status{}, err
		}
		if err := d.end(); err != nil {
			return Status{}, err
		}
		return Status{}, &DecodeError{Reason: ReasonNotObject, Detail: "top-level " + kindOf(data[firstNonWS(data)])}
	}
	var fields [nFields]span
	if err := d.object(func(key []byte, v span) {
		if i := fieldIndex(key); i >= 0 {
			fields[i] = v
		}
	}); err != nil {
		return Status{}, err
	}
	if err := d.end(); err != nil {
		return Status{}, err
	}
	return d.interpret(&fields)
}

func firstNonWS(b []byte) int {
	for i, c := range b {
		if !isWS(c) {
			return i
		}
	}
	return 0
}

func kindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func fieldIndex(key []byte) int {
	for i, n := range fieldNames {
		if string(key) == n {
			return i
		}
	}
	return -1
}

func (d *decoder) interpret(f *[nFields]span) (Status, error) {
	var s Status
	// schema
	sp := f[fSchema]
	if sp.end == 0 || d.data[sp.start] != '"' {
		detail := "no schema"
		if sp.end != 0 {
			detail = "schema is " + kindOf(d.data[sp.start])
		}
		return s, &DecodeError{Reason: ReasonSchema, Detail: detail}
	}
	if raw := d.data[sp.start:sp.end]; len(raw) == len(Schema)+2 && string(raw[1:len(raw)-1]) == Schema {
		// the common case, without allocating
	} else if schema := d.str(sp); schema != Schema {
		return s, &DecodeError{Reason: ReasonSchema, Detail: strconv.Quote(truncateDetail(schema))}
	}
	s.Schema = Schema

	var err error
	if s.Session, err = d.required(f, fSession); err != nil {
		return Status{}, err
	}
	if s.Session == "" {
		return Status{}, &DecodeError{Reason: ReasonBadValue, Field: "session", Detail: "empty"}
	}
	if s.State, err = d.state(f); err != nil {
		return Status{}, err
	}
	var t time.Time
	var ok bool
	if sp := f[fUpdatedAt]; sp.end != 0 && d.data[sp.start] == '"' && !hasEscapeOrHigh(d.data[sp.start+1:sp.end-1]) {
		// The common case: parse the bytes in place.
		ts := d.data[sp.start+1 : sp.end-1]
		if t, ok = parseTime(ts); !ok {
			return Status{}, badTime(string(ts))
		}
	} else {
		ts, err := d.required(f, fUpdatedAt)
		if err != nil {
			return Status{}, err
		}
		if t, ok = ParseTime(ts); !ok {
			return Status{}, badTime(ts)
		}
	}
	s.UpdatedAt = t
	if s.Agent, err = d.optional(f, fAgent); err != nil {
		return Status{}, err
	}
	if sp := f[fPID]; sp.end != 0 && !d.isNull(sp) {
		c := d.data[sp.start]
		if c != '-' && (c < '0' || c > '9') {
			return Status{}, wrongType("pid", "number", c)
		}
		pid, ok := parsePID(d.data[sp.start:sp.end])
		if !ok {
			return Status{}, &DecodeError{Reason: ReasonBadValue, Field: "pid", Detail: "not an integer from 0 to 2147483647: " + string(d.data[sp.start:sp.end])}
		}
		s.PID = pid
	}
	if s.Cwd, err = d.optional(f, fCwd); err != nil {
		return Status{}, err
	}
	if sp := f[fTask]; sp.end != 0 && !d.isNull(sp) {
		if c := d.data[sp.start]; c != '{' {
			return Status{}, wrongType("task", "object or null", c)
		}
		var title span
		sub := decoder{data: d.data, pos: sp.start}
		// The span was validated already: object cannot fail.
		_ = sub.object(func(key []byte, v span) {
			if string(key) == "title" {
				title = v
			}
		})
		if title.end != 0 && !d.isNull(title) {
			if c := d.data[title.start]; c != '"' {
				return Status{}, wrongType("task.title", "string or null", c)
			}
			s.Title = d.str(title)
		}
	}
	return s, nil
}

func badTime(ts string) *DecodeError {
	return &DecodeError{Reason: ReasonBadValue, Field: "updatedAt", Detail: "not an RFC 3339 time: " + strconv.Quote(truncateDetail(ts))}
}

// state returns the required state, sharing the strings of the known
// states instead of allocating them.
func (d *decoder) state(f *[nFields]span) (State, error) {
	if sp := f[fState]; sp.end != 0 && d.data[sp.start] == '"' {
		switch State(d.data[sp.start+1 : sp.end-1]) { // no allocation
		case Working:
			return Working, nil
		case Blocked:
			return Blocked, nil
		case Idle:
			return Idle, nil
		}
	}
	st, err := d.required(f, fState)
	return State(st), err
}

func wrongType(field, want string, c byte) *DecodeError {
	return &DecodeError{Reason: ReasonWrongType, Field: field, Detail: "want " + want + ", got " + kindOf(c)}
}

func truncateDetail(s string) string {
	if len(s) <= 64 {
		return s
	}
	i := 64
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func (d *decoder) isNull(sp span) bool { return d.data[sp.start] == 'n' }

func (d *decoder) required(f *[nFields]span, i int) (string, error) {
	sp := f[i]
	if sp.end == 0 || d.isNull(sp) {
		return "", &DecodeError{Reason: ReasonMissingField, Field: fieldNames[i]}
	}
	if c := d.data[sp.start]; c != '"' {
		return "", wrongType(fieldNames[i], "string", c)
	}
	return d.str(sp), nil
}

func (d *decoder) optional(f *[nFields]span, i int) (string, error) {
	sp := f[i]
	if sp.end == 0 || d.isNull(sp) {
		return "", nil
	}
	if c := d.data[sp.start]; c != '"' {
		return "", wrongType(fieldNames[i], "string or null", c)
	}
	return d.str(sp), nil
}

// parsePID accepts a JSON number whose value is an integer in [0, 2^31).
func parsePID(num []byte) (int, bool) {
	if len(num) <= 10 {
		v := 0
		plain := true
		for _, c := range num {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			v = v*10 + int(c-'0')
		}
		if plain {
			return v, v <= MaxPID
		}
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || f < 0 || f > MaxPID || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

// ParseTime parses an RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS, optional
// fraction of any length (read to the nanosecond), then Z or ±HH:MM. "T" and
// "Z" may be lowercase, as RFC 3339 allows.
func ParseTime(s string) (time.Time, bool) { return parseTime(s) }

// parseTime is ParseTime for strings and bytes (the decoder parses
// updatedAt in place, without making a string of it).
func parseTime[T string | []byte](s T) (time.Time, bool) {
	if len(s) < 20 {
		return time.Time{}, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for j := i; j < i+n; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	min, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	i := 19
	nsec := 0
	if s[i] == '.' {
		i++
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if i-start < 9 {
				nsec = nsec*10 + int(s[i]-'0')
			}
			i++
		}
		digits := i - start
		if digits == 0 {
			return time.Time{}, false
		}
		for ; digits < 9; digits++ {
			nsec *= 10
		}
	}
	if i >= len(s) {
		return time.Time{}, false
	}
	offset := 0
	switch s[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		if len(s)-i != 6 || s[i+3] != ':' {
			return time.Time{}, false
		}
		oh, ok1 := num(i+1, 2)
		om, ok2 := num(i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return time.Time{}, false
		}
		offset = (oh*60 + om) * 60
		if s[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return time.Time{}, false
	}
	if i != len(s) {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	if t.Day() != day { // e.g. February 30
		return time.Time{}, false
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// decoder is a strict RFC 8259 scanner over one input.
type decoder struct {
	data []byte
	pos  int
	buf  []byte // scratch for keys with escapes
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decoder) ws() {
	for d.pos < len(d.data) && isWS(d.data[d.pos]) {
		d.pos++
	}
}

func (d *decoder) syntax(msg string) *DecodeError {
	return &DecodeError{Reason: ReasonBadJSON, Detail: fmt.Sprintf("%s at offset %d", msg, d.pos)}
}

func (d *decoder) end() error {
	d.ws()
	if d.pos != len(d.data) {
		return d.syntax("data after the top-level value")
	}
	return nil
}

// object scans an object starting at d.pos, calling fn with every key (its
// decoded bytes, valid until the next call) and the span of its value.
func (d *decoder) object(fn func(key []byte, v span)) error {
	return d.objectDepth(0, fn)
}

func (d *decoder) objectDepth(depth int, fn func(key []byte, v span)) error {
	if depth >= maxDepth {
		return d.syntax("nesting too deep")
	}
	d.pos++ // '{'
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.syntax("expected a string key")
		}
		kstart := d.pos
		if err := d.skipString(); err != nil {
			return err
		}
		key := d.keyBytes(kstart, d.pos)
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.syntax("expected ':'")
		}
		d.pos++
		d.ws()
		vstart := d.pos
		if err := d.value(depth + 1); err != nil {
			return err
		}
		if fn != nil {
			fn(key, span{vstart, d.pos})
		}
		d.ws()
		if d.pos >= len(d.data) {
			return d.syntax("unterminated object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("expected ',' or '}'")
		}
	}
}

func (d *decoder) keyBytes(start, end int) []byte {
	raw := d.data[start+1 : end-1]
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			d.buf = appendUnquoted(d.buf[:0], raw)
			return d.buf
		}
	}
	return raw
}

// value scans one JSON value at d.pos (white space already skipped).
func (d *decoder) value(depth int) error {
	if d.pos >= len(d.data) {
		return d.syntax("unexpected end of input")
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.objectDepth(depth, nil)
	case '[':
		if depth >= maxDepth {
			return d.syntax("nesting too deep")
		}
		d.pos++
		d.ws()
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return nil
		}
		for {
			d.ws()
			if err := d.value(depth + 1); err != nil {
				return err
			}
			d.ws()
			if d.pos >= len(d.data) {
				return d.syntax("unterminated array")
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return nil
			default:
				return d.syntax("expected ',' or ']'")
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return d.number()
		}
		return d.syntax(fmt.Sprintf("unexpected character %q", c))
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.syntax("invalid literal")
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

func (d *decoder) number() error {
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if d.digits() == 0 {
		return d.syntax("invalid number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return d.syntax("invalid number")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return d.syntax("invalid number")
		}
	}
	return nil
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// stringStop marks the bytes that end a run of plain string bytes: the
// quote, the backslash and control characters.
var stringStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipString scans a string at d.pos, checking its escapes.
func (d *decoder) skipString() error {
	d.pos++ // opening quote
	for d.pos < len(d.data) {
		// Plain bytes, in a tight loop.
		for d.pos < len(d.data) && !stringStop[d.data[d.pos]] {
			d.pos++
		}
		if d.pos >= len(d.data) {
			break
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return nil
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return d.syntax("unterminated string")
			}
			switch d.data[d.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos += 2
			case 'u':
				if d.pos+6 > len(d.data) || !isHex(d.data[d.pos+2]) || !isHex(d.data[d.pos+3]) || !isHex(d.data[d.pos+4]) || !isHex(d.data[d.pos+5]) {
					return d.syntax("invalid \\u escape")
				}
				d.pos += 6
			default:
				return d.syntax("invalid escape")
			}
		case c < 0x20:
			return d.syntax("control character in string")
		default:
			d.pos++
		}
	}
	return d.syntax("unterminated string")
}

func hasEscapeOrHigh(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// str returns the decoded value of a validated string span.
func (d *decoder) str(sp span) string {
	raw := d.data[sp.start+1 : sp.end-1]
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return string(appendUnquoted(make([]byte, 0, len(raw)), raw))
		}
	}
	return string(raw)
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendUnquoted decodes the inside of a validated JSON string. Invalid UTF-8
// and unpaired surrogates become U+FFFD.
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c == '\\' {
			switch raw[i+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hexVal(raw[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if r < 0xdc00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if r2 := hexVal(raw[i+2 : i+6]); 0xdc00 <= r2 && r2 <= 0xdfff {
							dst = utf8.AppendRune(dst, utf16.DecodeRune(r, r2))
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, raw[i+1])
			}
			i += 2
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := decodeRuneBytes(raw[i:])
		if r == utf8.RuneError { // ill-formed, or U+FFFD itself: the same bytes out
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, raw[i:i+size]...)
		}
		i += size
	}
	return dst
}
