package statusfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
)

// This file is the JSON scanner under Decode: a strict RFC 8259 scanner
// that validates one input and returns where values are (spans), and the
// decoding of JSON strings with SPEC.md C6's replacement of invalid UTF-8.

// maxDepth bounds the nesting of values that are skipped.
const maxDepth = 10000

// span is where a value starts and ends in the input; end == 0 means absent.
type span struct{ start, end int }

// decoder is a strict RFC 8259 scanner over one input.
type decoder struct {
	data []byte
	pos  int
	buf  []byte // scratch for keys with escapes
	// valid says that data from pos on was scanned already and found
	// valid: strings are then skipped by looking for their closing quote.
	valid bool
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decoder) ws() {
	for d.pos < len(d.data) && isWS(d.data[d.pos]) {
		d.pos++
	}
}

func (d *decoder) syntax(msg string) *DecodeError {
	return &DecodeError{Reason: reasonBadJSON, Detail: fmt.Sprintf("%s at offset %d", msg, d.pos)}
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
	return d.container(0, fn)
}

// container scans the object or array at d.pos; fn, if not nil, is called
// as for object.
func (d *decoder) container(depth int, fn func(key []byte, v span)) error {
	if depth >= maxDepth {
		return d.syntax("nesting too deep")
	}
	isObject := d.data[d.pos] == '{'
	closer, what := byte(']'), "array"
	if isObject {
		closer, what = '}', "object"
	}
	d.pos++ // '{' or '['
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == closer {
		d.pos++
		return nil
	}
	for {
		d.ws()
		var key []byte
		if isObject {
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return d.syntax("expected a string key")
			}
			kstart := d.pos
			if err := d.skipString(); err != nil {
				return err
			}
			key = d.keyBytes(kstart, d.pos)
			d.ws()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return d.syntax("expected ':'")
			}
			d.pos++
			d.ws()
		}
		vstart := d.pos
		if err := d.value(depth + 1); err != nil {
			return err
		}
		if fn != nil {
			fn(key, span{vstart, d.pos})
		}
		d.ws()
		switch {
		case d.pos >= len(d.data):
			return d.syntax("unterminated " + what)
		case d.data[d.pos] == ',':
			d.pos++
		case d.data[d.pos] == closer:
			d.pos++
			return nil
		default:
			return d.syntax(fmt.Sprintf("expected ',' or '%c'", closer))
		}
	}
}

func (d *decoder) keyBytes(start, end int) []byte {
	raw := d.data[start+1 : end-1]
	if hasEscapeOrHigh(raw) {
		d.buf = appendUnquoted(d.buf[:0], raw)
		return d.buf
	}
	return raw
}

// value scans one JSON value at d.pos (white space already skipped).
func (d *decoder) value(depth int) error {
	if d.pos >= len(d.data) {
		return d.syntax("unexpected end of input")
	}
	switch c := d.data[d.pos]; c {
	case '{', '[':
		return d.container(depth, nil)
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

// unescape maps the letter of a short escape to the byte it stands for.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

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

// Per-byte constants for looking at eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of w (as loaded by
// binary.LittleEndian) is a stringStop byte; see stops8.
func plain8(w uint64) bool { return stops8(w) == 0 }

// stops8 has the high bit of some byte set if and only if one of the eight
// bytes of w is a stringStop byte. Each subtraction sets the high bit of a
// byte that is below 0x20, or equal to the quote or the backslash (the
// lowest such byte is always marked; a borrow from it may mark bytes above
// it too, which only ever adds to a non-zero answer). Bytes from 0x80 up
// never match: their high bit, the same in w, q and b, is cleared by &^ w.
func stops8(w uint64) uint64 {
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((w - ones*0x20) | (q - ones) | (b - ones)) &^ w & highs
}

// skipString scans a string at d.pos, checking its escapes.
func (d *decoder) skipString() error {
	if d.valid {
		d.skipValidString()
		return nil
	}
	d.pos++ // opening quote
	for d.pos < len(d.data) {
		// Plain bytes: eight at a time, then one at a time.
		data, i := d.data, d.pos
		for i+32 <= len(data) {
			c := data[i : i+32]
			if stops8(binary.LittleEndian.Uint64(c))|stops8(binary.LittleEndian.Uint64(c[8:]))|
				stops8(binary.LittleEndian.Uint64(c[16:]))|stops8(binary.LittleEndian.Uint64(c[24:])) != 0 {
				break
			}
			i += 32
		}
		for i+8 <= len(data) && plain8(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for i < len(data) && !stringStop[data[i]] {
			i++
		}
		d.pos = i
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
			switch e := d.data[d.pos+1]; {
			case unescape[e] != 0:
				d.pos += 2
			case e == 'u':
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

// skipValidString skips the validated string at d.pos: its end is the
// first quote after an even number of backslashes.
func (d *decoder) skipValidString() {
	i := d.pos + 1
	for {
		i += bytes.IndexByte(d.data[i:], '"')
		k := i - 1
		for d.data[k] == '\\' { // the opening quote stops this
			k--
		}
		i++
		if (i-2-k)%2 == 0 {
			d.pos = i
			return
		}
	}
}

func hasEscapeOrHigh(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// strUnits returns the decoded value of a validated string span, cut as
// appendUnquotedUnits cuts it, without looking past the cut.
func (d *decoder) strUnits(sp span, max int) string {
	raw := d.data[sp.start+1 : sp.end-1]
	if n := min(len(raw), max+1); !hasEscapeOrHigh(raw[:n]) {
		return string(raw[:n]) // one byte, one code unit
	}
	// Room for the cut text: a code unit takes at most three bytes of
	// UTF-8, and the last character at most four.
	if room := min(3*len(raw), 3*max+4); cap(d.buf) < room {
		d.buf = make([]byte, 0, room)
	}
	d.buf = appendUnquotedUnits(d.buf[:0], raw, max)
	return string(d.buf)
}

// str returns the decoded value of a validated string span.
func (d *decoder) str(sp span) string {
	raw := d.data[sp.start+1 : sp.end-1]
	if hasEscapeOrHigh(raw) {
		return string(appendUnquoted(make([]byte, 0, len(raw)), raw))
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
	return appendUnquotedUnits(dst, raw, -1)
}

// appendUnquotedUnits is appendUnquoted, but when max >= 0 it stops after
// the first character that takes the decoded text past max UTF-16 code
// units: what [sanitizeCap] looks at with the same max, and the one
// character that tells it there was more.
func appendUnquotedUnits(dst, raw []byte, max int) []byte {
	units := 0
	for i := 0; i < len(raw); {
		if max >= 0 && units > max {
			break
		}
		c := raw[i]
		units++
		if c == '\\' {
			if e := unescape[raw[i+1]]; e != 0 {
				dst = append(dst, e)
				i += 2
				continue
			}
			r := hexVal(raw[i+2 : i+6]) // \uXXXX
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xdc00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2 := hexVal(raw[i+2 : i+6]); 0xdc00 <= r2 && r2 <= 0xdfff {
						dst = utf8.AppendRune(dst, utf16.DecodeRune(r, r2))
						units++
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := jsonstr.DecodeRuneBytes(raw[i:])
		if r == utf8.RuneError { // ill-formed, or U+FFFD itself: the same bytes out
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, raw[i:i+size]...)
			if size == 4 {
				units++ // a surrogate pair in UTF-16
			}
		}
		i += size
	}
	return dst
}
