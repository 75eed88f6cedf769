package jqrun

import (
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
)

// parser decodes JSON text as encoding/json with UseNumber does, followed
// by convert without sanitizing: on what encoding/json rejects it fails,
// and on the rest it gives the same value (FuzzDecodeAlike). Strings,
// numbers and literals are checked by the scanner statusfile's decoder
// uses, in one pass with the building of the values.
type parser struct {
	jsonstr.Scanner
	depth int
}

// parse decodes data, exactly one JSON value.
func parse(data []byte) (any, bool) {
	p := parser{Scanner: jsonstr.Scanner{Data: data, Std: true}}
	v, ok := p.value()
	p.WS()
	return v, ok && p.Pos == len(data)
}

// accept skips c if it comes next.
func (p *parser) accept(c byte) bool {
	if p.Pos < len(p.Data) && p.Data[p.Pos] == c {
		p.Pos++
		return true
	}
	return false
}

// value parses one value, after white space.
func (p *parser) value() (any, bool) {
	p.WS()
	if p.Pos == len(p.Data) {
		return nil, false
	}
	switch start := p.Pos; p.Data[start] {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		s, ok := p.str()
		return s, ok
	default:
		if p.Value(0) != nil { // a number or a literal
			return nil, false
		}
		switch p.Data[start] {
		case 't':
			return true, true
		case 'f':
			return false, true
		case 'n':
			return nil, true
		}
		return number(string(p.Data[start:p.Pos])), true
	}
}

// container parses what is between the brackets of an object or array,
// from the opening one to end, the closing one: each parses one member or
// element.
func (p *parser) container(end byte, each func() bool) bool {
	p.Pos++ // { or [
	if p.depth++; p.depth > jsonstr.MaxDepth {
		return false
	}
	if p.WS(); p.accept(end) {
		p.depth--
		return true
	}
	for {
		if !each() {
			return false
		}
		if p.WS(); p.accept(end) {
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
		if p.WS(); p.Pos == len(p.Data) || p.Data[p.Pos] != '"' {
			return false
		}
		k, ok := p.str()
		if p.WS(); !ok || !p.accept(':') {
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

// str parses a string. A short one of printable ASCII, the common case,
// is found by one loop; others by the scanner's.
func (p *parser) str() (string, bool) {
	start, i := p.Pos, p.Pos+1
	for i < len(p.Data) && i < start+128 {
		if c := p.Data[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	if i < len(p.Data) && p.Data[i] == '"' {
		p.Pos = i + 1
		return string(p.Data[start+1 : i]), true
	}
	if p.SkipString() != nil {
		return "", false
	}
	return p.Str(jsonstr.Span{Start: start, End: p.Pos}), true
}
