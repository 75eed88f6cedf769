package jqrun

import "github.com/agentstatus/agentstatus/internal/jsonstr"

// parse decodes JSON text as encoding/json with UseNumber does, followed
// by convert without sanitizing: on what encoding/json rejects it fails,
// and on the rest it gives the same value (FuzzDecodeAlike). The scanner
// statusfile's decoder uses validates the text first; the values are then
// built from text known to be valid.
func parse(data []byte) (any, bool) {
	d := jsonstr.Scanner{Data: data}
	d.WS()
	if d.Value(0) != nil || d.End() != nil {
		return nil, false
	}
	b := builder{Scanner: jsonstr.Scanner{Data: data, Valid: true, Std: true}}
	return b.value(), true
}

// builder builds values from valid JSON text.
type builder struct{ jsonstr.Scanner }

// next skips white space and commas, and returns the byte after them.
func (b *builder) next() byte {
	for b.WS(); b.Data[b.Pos] == ','; b.WS() {
		b.Pos++
	}
	return b.Data[b.Pos]
}

// value builds the value after white space.
func (b *builder) value() any {
	switch b.next() {
	case '{':
		m := make(map[string]any)
		for b.Pos++; b.next() != '}'; {
			k := b.str()
			b.WS()
			b.Pos++          // ':'
			m[k] = b.value() // the last of equal keys wins
		}
		b.Pos++
		return m
	case '[':
		a := []any{}
		for b.Pos++; b.next() != ']'; {
			a = append(a, b.value())
		}
		b.Pos++
		return a
	case '"':
		return b.str()
	case 't':
		b.Pos += len("true")
		return true
	case 'f':
		b.Pos += len("false")
		return false
	case 'n':
		b.Pos += len("null")
		return nil
	}
	start := b.Pos
	for b.Pos < len(b.Data) && isNumberByte(b.Data[b.Pos]) {
		b.Pos++
	}
	return number(string(b.Data[start:b.Pos]))
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str builds the string at b.Pos.
func (b *builder) str() string {
	start := b.Pos
	b.SkipString() // valid: cannot fail
	return b.Str(jsonstr.Span{Start: start, End: b.Pos})
}
