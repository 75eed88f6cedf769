package jsonstr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the JSON scanner under statusfile.Decode and jqrun.Decode: a
// strict RFC 8259 scanner that validates one input and returns where values
// are (spans), and the decoding of JSON strings with SPEC.md C6's
// replacement of invalid UTF-8.

// MaxDepth bounds the nesting of values, as encoding/json's limit does.
const MaxDepth = 10000

// Span is where a value starts and ends in the input; End == 0 means absent.
type Span struct{ Start, End int }

// Scanner is a strict RFC 8259 scanner over one input.
type Scanner struct {
	Data []byte
	Pos  int
	buf  []byte // scratch for keys with escapes
	// Valid says that Data from Pos on was scanned already and found
	// valid: strings are then skipped by looking for their closing quote.
	Valid bool
	// Std decodes strings as encoding/json does: each byte of invalid
	// UTF-8 becomes one U+FFFD, not each maximal subpart.
	Std bool
}

// SyntaxError is the error of input that is not JSON.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// WS skips white space.
func (d *Scanner) WS() {
	for d.Pos < len(d.Data) && isWS(d.Data[d.Pos]) {
		d.Pos++
	}
}

func (d *Scanner) syntax(msg string) *SyntaxError { return &SyntaxError{msg, d.Pos} }

// End checks that nothing but white space follows.
func (d *Scanner) End() error {
	d.WS()
	if d.Pos != len(d.Data) {
		return d.syntax("data after the top-level value")
	}
	return nil
}

// Object scans an object starting at d.Pos, calling fn with every key (its
// decoded bytes, valid until the next call) and the Span of its value.
func (d *Scanner) Object(fn func(key []byte, v Span)) error {
	return d.container(0, fn)
}

// container scans the object or array at d.Pos; fn, if not nil, is called
// as for Object.
func (d *Scanner) container(depth int, fn func(key []byte, v Span)) error {
	if depth >= MaxDepth {
		return d.syntax("nesting too deep")
	}
	isObject := d.Data[d.Pos] == '{'
	closer, what := byte(']'), "array"
	if isObject {
		closer, what = '}', "object"
	}
	d.Pos++ // '{' or '['
	d.WS()
	if d.Pos < len(d.Data) && d.Data[d.Pos] == closer {
		d.Pos++
		return nil
	}
	for {
		d.WS()
		var key []byte
		if isObject {
			if d.Pos >= len(d.Data) || d.Data[d.Pos] != '"' {
				return d.syntax("expected a string key")
			}
			kstart := d.Pos
			if err := d.SkipString(); err != nil {
				return err
			}
			if fn != nil {
				key = d.keyBytes(kstart, d.Pos)
			}
			d.WS()
			if d.Pos >= len(d.Data) || d.Data[d.Pos] != ':' {
				return d.syntax("expected ':'")
			}
			d.Pos++
			d.WS()
		}
		vstart := d.Pos
		if err := d.Value(depth + 1); err != nil {
			return err
		}
		if fn != nil {
			fn(key, Span{vstart, d.Pos})
		}
		d.WS()
		switch {
		case d.Pos >= len(d.Data):
			return d.syntax("unterminated " + what)
		case d.Data[d.Pos] == ',':
			d.Pos++
		case d.Data[d.Pos] == closer:
			d.Pos++
			return nil
		default:
			return d.syntax(fmt.Sprintf("expected ',' or '%c'", closer))
		}
	}
}

func (d *Scanner) keyBytes(start, end int) []byte {
	raw := d.Data[start+1 : end-1]
	if HasEscapeOrHigh(raw) {
		d.buf = appendUnquotedUnits(d.buf[:0], raw, -1, d.Std)
		return d.buf
	}
	return raw
}

// Value scans one JSON value at d.Pos (white space already skipped).
func (d *Scanner) Value(depth int) error {
	if d.Pos >= len(d.Data) {
		return d.syntax("unexpected end of input")
	}
	switch c := d.Data[d.Pos]; c {
	case '{', '[':
		return d.container(depth, nil)
	case '"':
		return d.SkipString()
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

func (d *Scanner) literal(word string) error {
	if len(d.Data)-d.Pos < len(word) || string(d.Data[d.Pos:d.Pos+len(word)]) != word {
		return d.syntax("invalid literal")
	}
	d.Pos += len(word)
	return nil
}

func (d *Scanner) digits() int {
	n := 0
	for d.Pos < len(d.Data) && '0' <= d.Data[d.Pos] && d.Data[d.Pos] <= '9' {
		d.Pos++
		n++
	}
	return n
}

func (d *Scanner) number() error {
	if d.Data[d.Pos] == '-' {
		d.Pos++
	}
	if d.Pos < len(d.Data) && d.Data[d.Pos] == '0' {
		d.Pos++
	} else if d.digits() == 0 {
		return d.syntax("invalid number")
	}
	if d.Pos < len(d.Data) && d.Data[d.Pos] == '.' {
		d.Pos++
		if d.digits() == 0 {
			return d.syntax("invalid number")
		}
	}
	if d.Pos < len(d.Data) && (d.Data[d.Pos] == 'e' || d.Data[d.Pos] == 'E') {
		d.Pos++
		if d.Pos < len(d.Data) && (d.Data[d.Pos] == '+' || d.Data[d.Pos] == '-') {
			d.Pos++
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

// SkipString scans a string at d.Pos, checking its escapes.
func (d *Scanner) SkipString() error {
	if d.Valid {
		d.skipValidString()
		return nil
	}
	d.Pos++     // opening quote
	quote := -1 // the first quote at or after d.Pos, once looked for
	for d.Pos < len(d.Data) {
		// Plain bytes: eight at a time, then one at a time; past the
		// first 32 (a long string), as plainRun finds them.
		data, i := d.Data, d.Pos
		for n := 0; i+8 <= len(data) && plain8(binary.LittleEndian.Uint64(data[i:])); n++ {
			i += 8
			if n == 3 {
				if quote < i {
					quote = len(data)
					if q := bytes.IndexByte(data[i:], '"'); q >= 0 {
						quote = i + q
					}
				}
				i = plainRun(data, i, quote)
			}
		}
		for i < len(data) && !stringStop[data[i]] {
			i++
		}
		d.Pos = i
		if d.Pos >= len(d.Data) {
			break
		}
		c := d.Data[d.Pos]
		switch {
		case c == '"':
			d.Pos++
			return nil
		case c == '\\':
			if d.Pos+1 >= len(d.Data) {
				return d.syntax("unterminated string")
			}
			switch e := d.Data[d.Pos+1]; {
			case unescape[e] != 0:
				d.Pos += 2
			case e == 'u':
				if d.Pos+6 > len(d.Data) || !isHex(d.Data[d.Pos+2]) || !isHex(d.Data[d.Pos+3]) || !isHex(d.Data[d.Pos+4]) || !isHex(d.Data[d.Pos+5]) {
					return d.syntax("invalid \\u escape")
				}
				d.Pos += 6
			default:
				return d.syntax("invalid escape")
			}
		case c < 0x20:
			return d.syntax("control character in string")
		default:
			d.Pos++
		}
	}
	return d.syntax("unterminated string")
}

// plainRun returns how far from i the bytes of data are plain string
// bytes, up to quote (the first quote at or after i, or len(data)), 32 at
// a time: the backslash is looked for with bytes.IndexByte, as the quote
// was, and so only control characters are left to the words, which is
// half the work of stops8. What it stops short of is left to the caller's
// exact loops.
func plainRun(data []byte, i, quote int) int {
	end := quote
	if b := bytes.IndexByte(data[i:end], '\\'); b >= 0 {
		end = i + b
	}
	for i+32 <= end {
		c := data[i : i+32]
		w0, w1 := binary.LittleEndian.Uint64(c), binary.LittleEndian.Uint64(c[8:])
		w2, w3 := binary.LittleEndian.Uint64(c[16:]), binary.LittleEndian.Uint64(c[24:])
		// The high bit of a byte below 0x20 (see stops8).
		if ((w0-ones*0x20)&^w0|(w1-ones*0x20)&^w1|(w2-ones*0x20)&^w2|(w3-ones*0x20)&^w3)&highs != 0 {
			break
		}
		i += 32
	}
	return i
}

// skipValidString skips the validated string at d.Pos: its end is the
// first quote after an even number of backslashes.
func (d *Scanner) skipValidString() {
	i := d.Pos + 1
	for {
		i += bytes.IndexByte(d.Data[i:], '"')
		k := i - 1
		for d.Data[k] == '\\' { // the opening quote stops this
			k--
		}
		i++
		if (i-2-k)%2 == 0 {
			d.Pos = i
			return
		}
	}
}

// HasEscapeOrHigh reports whether the inside of a string holds an escape
// or a byte outside ASCII: whether it decodes to other bytes.
func HasEscapeOrHigh(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// hasEscapeOrHighLong is HasEscapeOrHigh for long strings (a title), the
// backslash found by bytes.IndexByte, the high bits eight bytes at a time.
func hasEscapeOrHighLong(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return true
	}
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		if binary.LittleEndian.Uint64(raw[i:])&highs != 0 {
			return true
		}
	}
	for _, c := range raw[i:] {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// StrUnits returns the decoded value of a validated string span, cut as
// appendUnquotedUnits cuts it, without looking past the cut.
func (d *Scanner) StrUnits(sp Span, max int) string {
	raw := d.Data[sp.Start+1 : sp.End-1]
	if n := min(len(raw), max+1); !hasEscapeOrHighLong(raw[:n]) {
		return string(raw[:n]) // one byte, one code unit
	}
	// Room for the cut text: a code unit takes at most three bytes of
	// UTF-8, and the last character at most four.
	if room := min(3*len(raw), 3*max+4); cap(d.buf) < room {
		d.buf = make([]byte, 0, room)
	}
	d.buf = appendUnquotedUnits(d.buf[:0], raw, max, d.Std)
	return string(d.buf)
}

// Str returns the decoded value of a validated string span.
func (d *Scanner) Str(sp Span) string {
	raw := d.Data[sp.Start+1 : sp.End-1]
	if !HasEscapeOrHigh(raw) || bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	return string(appendUnquotedUnits(make([]byte, 0, len(raw)), raw, -1, d.Std))
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

// appendUnquotedUnits decodes the inside of a validated JSON string:
// invalid UTF-8 (each maximal subpart, SPEC.md C6; each byte with perByte)
// and unpaired surrogates become U+FFFD. When max >= 0 it stops after the
// first character that takes the decoded text past max UTF-16 code units:
// what statusfile's sanitizer looks at with the same max, and the one
// character that tells it there was more.
func appendUnquotedUnits(dst, raw []byte, max int, perByte bool) []byte {
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
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 && !perByte {
			size = maximalSubpart(string(raw[i:min(len(raw), i+utf8.UTFMax)]))
		}
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
