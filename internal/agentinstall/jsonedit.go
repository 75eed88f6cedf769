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

// item is an object's member (with its key) or an array's element.
type item struct {
	key string
	val *jnode
	// Where the item was in the file, for the text-keeping edit of a file
	// with comments (jsonc.go): its index among the items as parsed, and
	// the offsets of its key (an element's: its value) and of its value.
	// start is 0 for a new item; a member set anew keeps them.
	idx, start, valStart int
}

type jnode struct {
	kind  jsonKind
	items []item // jObject, jArray: in file order
	raw   []byte // jScalar: its text
	src   []byte // the value's text in the file; nil for new values
	dirty bool   // changed since parsed
	// Where the value was in the file (when src is not nil): its text is
	// data[start:end]; a container's closing bracket is at close, and
	// spans holds where each of its items was, in file order:
	// data[spans[i][0]:spans[i][1]] (a member's from its key).
	start, end, close int
	spans             [][2]int
}

// clean reports whether n and everything in it are as parsed.
func (n *jnode) clean() bool {
	return !n.dirty && n.src != nil && !slices.ContainsFunc(n.items, func(it item) bool { return !it.val.clean() })
}

// ParseError is a file that does not parse, with where.
type ParseError struct {
	Path      string
	Line, Col int
	Msg       string
	off       int // the offset of Line and Col (parseJSON's)
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// LineCol turns a byte offset into a 1-based line and column.
func LineCol(data []byte, off int64) (int, int) {
	off = min(off, int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// commentsNote ends the error about a plain JSON file that has comments.
const commentsNote = " (comments are not JSON; this file cannot be edited without losing them)"

// parseJSON parses one JSON document. Errors say where, line:col.
func parseJSON(path string, data []byte) (*jnode, error) {
	// Checked as raw text: a number too large for a float64, such as
	// 1E700, is valid JSON, and is kept as written.
	var probe json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		off := int64(len(data))
		msg := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = max(se.Offset-1, 0) // the offset is after the bad byte
		}
		if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
			msg += commentsNote
		}
		line, col := LineCol(data, off)
		return nil, &ParseError{Path: path, Line: line, Col: col, Msg: msg, off: int(off)}
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
	n := &jnode{start: skipSeparators(data, int(dec.InputOffset()))}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n.kind = jObject
	case json.Delim('['):
		n.kind = jArray
	default:
		if _, ok := tok.(json.Delim); ok {
			return nil, fmt.Errorf("unexpected %v", tok)
		}
		n.kind = jScalar
	}
	for n.kind != jScalar && dec.More() {
		it := item{idx: len(n.spans), start: skipSeparators(data, int(dec.InputOffset()))}
		if n.kind == jObject {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			it.key, _ = kt.(string)
		}
		if it.val, err = decodeNode(dec, data); err != nil {
			return nil, err
		}
		it.valStart = it.val.start
		n.items = append(n.items, it)
		n.spans = append(n.spans, [2]int{it.start, it.val.end})
	}
	if n.kind != jScalar {
		_, err = dec.Token()
		n.close = int(dec.InputOffset()) - 1
	}
	if end := int(dec.InputOffset()); err == nil && end >= n.start && end <= len(data) {
		n.src, n.end = data[n.start:end], end
		if n.kind == jScalar {
			n.raw = n.src
		}
	}
	return n, err
}

// skipSeparators returns the offset of the next token at or after off:
// past white space and the separators the decoder has not read yet.
func skipSeparators(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
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

// find returns the index of the last member key (the last duplicate
// wins, as in JSON.parse), or -1.
func (n *jnode) find(key string) int {
	for i := len(n.items) - 1; i >= 0; i-- {
		if n.items[i].key == key {
			return i
		}
	}
	return -1
}

// get returns the member key of an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	if i := n.find(key); i >= 0 {
		return n.items[i].val
	}
	return nil
}

// set sets key (appended when new).
func (n *jnode) set(key string, v *jnode) {
	n.dirty = true
	if i := n.find(key); i >= 0 {
		n.items[i].val = v
		return
	}
	n.items = append(n.items, item{key: key, val: v})
}

// add appends v to an array.
func (n *jnode) add(v *jnode) {
	n.dirty = true
	n.items = append(n.items, item{val: v})
}

func (n *jnode) del(key string) {
	n.dirty = true
	n.items = slices.DeleteFunc(n.items, func(it item) bool { return it.key == key })
}

// filter keeps the elements of an array that keep accepts, and reports
// whether any went.
func (n *jnode) filter(keep func(*jnode) bool) bool {
	before := len(n.items)
	n.items = slices.DeleteFunc(n.items, func(it item) bool { return !keep(it.val) })
	n.dirty = n.dirty || len(n.items) < before
	return len(n.items) < before
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
	n.write(&b, "", "  ")
	b.WriteByte('\n')
	return []byte(b.String())
}

// write writes n with each level indented by unit more than indent.
func (n *jnode) write(b *strings.Builder, indent, unit string) {
	brackets := "{}"
	if n.kind == jArray {
		brackets = "[]"
	}
	switch {
	case n.clean():
		b.Write(n.src)
	case n.kind == jScalar:
		b.Write(n.raw)
	case len(n.items) == 0:
		b.WriteString(brackets)
	default:
		b.WriteString(brackets[:1] + "\n")
		for i, it := range n.items {
			b.WriteString(indent + unit)
			if n.kind == jObject {
				b.Write(marshalString(it.key))
				b.WriteString(": ")
			}
			it.val.write(b, indent+unit, unit)
			if i < len(n.items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + brackets[1:])
	}
}
