package agentinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A small ordered JSON tree: settings files are edited without reordering
// the keys of their owner, without turning numbers into floats, and every
// value the edit does not touch is written back as it was written.

type jsonKind int

const (
	jObject jsonKind = iota
	jArray
	jScalar // string, number, true, false, null: kept as written
)

type member struct {
	key string
	val *jnode
	// Where the member was in the file, for the text-keeping edit of a
	// file with comments (jsonc.go): parsed is false for new members.
	parsed   bool
	idx      int // its index among the object's members as parsed
	keyStart int // the offset of its key
	valStart int // the offset of its value
}

type jnode struct {
	kind    jsonKind
	members []member // jObject, in file order
	elems   []*jnode // jArray
	raw     []byte   // jScalar: its text
	src     []byte   // the value's text in the file; nil for new values
	dirty   bool     // changed since parsed
	// Where the value was in the file (when src is not nil): its text is
	// data[start:end]; a container's closing bracket is at close, and
	// spans holds where each of its members or elements was, in file
	// order: data[spans[i][0]:spans[i][1]] (a member's from its key). idx
	// is the value's index among its parent array's elements.
	start, end, close, idx int
	spans                  [][2]int
}

// clean reports whether n and everything in it are as parsed.
func (n *jnode) clean() bool {
	if n.dirty || n.src == nil {
		return false
	}
	for _, m := range n.members {
		if !m.val.clean() {
			return false
		}
	}
	for _, e := range n.elems {
		if !e.clean() {
			return false
		}
	}
	return true
}

// ParseError is a file that does not parse, with where.
type ParseError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// LineCol turns a byte offset into a 1-based line and column.
func LineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// commentsNote ends the error about a plain JSON file that has comments.
const commentsNote = " (comments are not JSON; this file cannot be edited without losing them)"

// parseJSON parses one JSON document. Errors say where, line:col.
func parseJSON(path string, data []byte) (*jnode, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		var ue *json.UnmarshalTypeError
		off := int64(len(data))
		msg := err.Error()
		switch {
		case errors.As(err, &se):
			off = se.Offset
			if off > 0 {
				off-- // the offset is after the bad byte
			}
		case errors.As(err, &ue):
			off = ue.Offset
		}
		if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
			msg += commentsNote
		}
		line, col := LineCol(data, off)
		return nil, &ParseError{Path: path, Line: line, Col: col, Msg: msg}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec, data)
	if err != nil {
		return nil, &ParseError{Path: path, Line: 1, Col: 1, Msg: err.Error()}
	}
	return n, nil
}

// decodeNode decodes the next value, remembering its text.
func decodeNode(dec *json.Decoder, data []byte) (*jnode, error) {
	start := skipSeparators(data, int(dec.InputOffset()))
	n, err := decodeValue(dec, data)
	if err != nil {
		return nil, err
	}
	if end := int(dec.InputOffset()); end >= start && end <= len(data) {
		n.src = data[start:end]
		n.start, n.end = start, end
		if n.kind == jScalar {
			n.raw = n.src
		}
	}
	return n, nil
}

// skipSeparators returns the offset of the next token at or after off:
// past white space and the separators the decoder has not read yet.
func skipSeparators(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
}

func decodeValue(dec *json.Decoder, data []byte) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return &jnode{kind: jScalar}, nil // its raw text is set by decodeNode
	}
	if d != '{' && d != '[' {
		return nil, fmt.Errorf("unexpected %v", d)
	}
	n := &jnode{kind: jArray, elems: []*jnode{}}
	if d == '{' {
		n = &jnode{kind: jObject}
	}
	for dec.More() {
		start := skipSeparators(data, int(dec.InputOffset()))
		var key string
		if d == '{' {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ = kt.(string)
		}
		v, err := decodeNode(dec, data)
		if err != nil {
			return nil, err
		}
		if d == '{' {
			n.members = append(n.members, member{key: key, val: v, parsed: true, idx: len(n.spans), keyStart: start, valStart: v.start})
		} else {
			v.idx = len(n.spans)
			n.elems = append(n.elems, v)
		}
		n.spans = append(n.spans, [2]int{start, v.end})
	}
	_, err = dec.Token()
	n.close = int(dec.InputOffset()) - 1
	return n, err
}

func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func str(s string) *jnode { return &jnode{kind: jScalar, raw: marshalString(s)} }
func num(n int) *jnode    { return &jnode{kind: jScalar, raw: []byte(fmt.Sprint(n))} }

// get returns the member key of an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- { // the last duplicate wins, as in JSON.parse
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// set sets key (appended when new).
func (n *jnode) set(key string, v *jnode) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val = v
			n.dirty = true
			return
		}
	}
	n.members = append(n.members, member{key: key, val: v})
	n.dirty = true
}

func (n *jnode) del(key string) {
	n.dirty = true
	n.members = slices.DeleteFunc(n.members, func(m member) bool { return m.key == key })
}

// filter keeps the elements of an array that keep accepts, and reports
// whether any went.
func (n *jnode) filter(keep func(*jnode) bool) bool {
	before := len(n.elems)
	n.elems = slices.DeleteFunc(n.elems, func(e *jnode) bool { return !keep(e) })
	n.dirty = n.dirty || len(n.elems) < before
	return len(n.elems) < before
}

// stringValue returns a scalar string's value.
func (n *jnode) stringValue() (string, bool) {
	if n == nil || n.kind != jScalar || len(n.raw) == 0 || n.raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(n.raw, &s) != nil {
		return "", false
	}
	return s, true
}

// encode writes n indented by two spaces, as the agents' own files are.
func (n *jnode) encode() []byte {
	var b strings.Builder
	n.write(&b, 0)
	b.WriteByte('\n')
	return []byte(b.String())
}

func (n *jnode) write(b *strings.Builder, depth int) {
	ind := func(d int) { b.WriteString(strings.Repeat("  ", d)) }
	if n.clean() {
		b.Write(n.src)
		return
	}
	switch n.kind {
	case jScalar:
		b.Write(n.raw)
	default:
		open, end, count := "{", "}", len(n.members)
		if n.kind == jArray {
			open, end, count = "[", "]", len(n.elems)
		}
		if count == 0 {
			b.WriteString(open + end)
			return
		}
		b.WriteString(open + "\n")
		for i := range count {
			ind(depth + 1)
			if n.kind == jArray {
				n.elems[i].write(b, depth+1)
			} else {
				b.Write(marshalString(n.members[i].key))
				b.WriteString(": ")
				n.members[i].val.write(b, depth+1)
			}
			if i < count-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		ind(depth)
		b.WriteString(end)
	}
}
