package jqrun

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's limit on nested arrays and objects.
const maxDepth = 10000

// parser decodes JSON text as encoding/json with UseNumber does, followed
// by convert without sanitizing: on what encoding/json rejects it fails,
// and on the rest it gives the same value (FuzzDecodeAlike).
type parser struct {
	data  []byte
	i     int
	depth int
}

// space skips white space.
func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// accept skips c if it comes next.
func (p *parser) accept(c byte) bool {
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// literal skips s if it comes next.
func (p *parser) literal(s string) bool {
	if bytes.HasPrefix(p.data[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// value parses one value, after white space.
func (p *parser) value() (any, bool) {
	p.space()
	if p.i == len(p.data) {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		return s, ok
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case p.literal("true"):
		return true, true
	case p.literal("false"):
		return false, true
	case p.literal("null"):
		return nil, true
	}
	return nil, false
}

// container parses what is between the brackets of an object or array,
// from the opening one to end, the closing one: each parses one member or
// element.
func (p *parser) container(end byte, each func() bool) bool {
	p.i++ // { or [
	if p.depth++; p.depth > maxDepth {
		return false
	}
	if p.space(); p.accept(end) {
		p.depth--
		return true
	}
	for {
		if !each() {
			return false
		}
		if p.space(); p.accept(end) {
			p.depth--
			return true
		}
		if !p.accept(',') {
			return false
		}
	}
}

func (p *parser) object() (any, bool) {
	m := make(map[string]any)
	ok := p.container('}', func() bool {
		if p.space(); p.i == len(p.data) || p.data[p.i] != '"' {
			return false
		}
		k, ok := p.str()
		if p.space(); !ok || !p.accept(':') {
			return false
		}
		v, ok := p.value()
		m[k] = v // the last of equal keys wins
		return ok
	})
	return m, ok
}

func (p *parser) array() (any, bool) {
	a := []any{}
	ok := p.container(']', func() bool {
		v, ok := p.value()
		a = append(a, v)
		return ok
	})
	return a, ok
}

// number parses a number and converts it as gojq does.
func (p *parser) number() (any, bool) {
	start := p.i
	p.accept('-')
	if !p.accept('0') && p.digits() == 0 {
		return nil, false
	}
	if p.accept('.') && p.digits() == 0 {
		return nil, false
	}
	if p.accept('e') || p.accept('E') {
		if !p.accept('+') {
			p.accept('-')
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return number(string(p.data[start:p.i])), true
}

// digits skips decimal digits and returns how many.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// str parses a string. A string without escapes and in valid UTF-8 is
// copied once.
func (p *parser) str() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			return string(p.data[start : p.i-1]), true
		case c < 0x20:
			return "", false
		case c == '\\':
			return p.strSlow(start)
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size == 1 {
				return p.strSlow(start)
			}
			p.i += size
		}
	}
	return "", false
}

// strSlow parses the rest of a string that started at start, from the
// first escape or invalid UTF-8 at p.i on, replacing as encoding/json does.
func (p *parser) strSlow(start int) (string, bool) {
	b := append(make([]byte, 0, p.i-start+64), p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if p.i+1 == len(p.data) {
				return "", false
			}
			if c, ok := unescape[p.data[p.i+1]]; ok {
				b = append(b, c)
				p.i += 2
				continue
			}
			r := p.u4(p.i)
			if r < 0 {
				return "", false
			}
			p.i += 6
			if utf16.IsSurrogate(r) {
				// A pair, or U+FFFD for the first half alone.
				if d := utf16.DecodeRune(r, p.u4(p.i)); d != unicode.ReplacementChar {
					r = d
					p.i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, unicode.ReplacementChar)
			} else {
				b = append(b, p.data[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", false
}

// unescape maps the character after a backslash to what it stands for,
// but for \u.
var unescape = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// u4 returns the code unit of the \uXXXX escape at i, or -1.
func (p *parser) u4(i int) rune {
	if len(p.data)-i < 6 || p.data[i] != '\\' || p.data[i+1] != 'u' {
		return -1
	}
	n, err := strconv.ParseUint(string(p.data[i+2:i+6]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}
