package agentinstall

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"
)

// Gemini CLI reads its settings.json as JSON with comments: it blanks the
// comments with strip-json-comments (v3, which keeps the white space of a
// comment and knows nothing of trailing commas) and hands the rest to
// JSON.parse (packages/cli/src/config/settings.ts). So `//` and `/* */`
// comments are fine there, anywhere white space is, while a trailing comma
// makes Gemini CLI 0.61.0 stop at startup ("Please fix the configuration
// file(s) and try again"). The settings of such an agent are parsed the
// same way here, and edited without touching a byte of the text the edit
// does not change: its comments, layout and order stay.

// stripComments returns data with its comments blanked as Gemini CLI does,
// byte for byte at the same offsets, and which bytes were in a comment.
// A comment's white space stays, the rest of it becomes spaces; an
// unterminated block comment runs to the end. White space is JavaScript's
// (\s): a comment holding a no-break space, a vertical tab or U+2028
// leaves it in the text, where JSON.parse refuses it, and so does the
// parser here.
func stripComments(data []byte) (out []byte, kind []byte) {
	out = append([]byte(nil), data...)
	kind = make([]byte, len(data))
	blank := func(from, to int, k byte) {
		for i := from; i < to; {
			// An invalid byte is U+FFFD to JavaScript: not a space.
			r, size := utf8.DecodeRune(data[i:to])
			for j := i; j < i+size; j++ {
				if !jsSpace(r) {
					out[j] = ' '
				}
				kind[j] = k
			}
			i += size
		}
	}
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte
			continue
		case c == '"':
			inString = !inString
		}
		if inString {
			continue
		}
		if c == '/' && i+1 < len(data) && data[i+1] == '/' {
			end := i + 2
			for end < len(data) && data[end] != '\n' && !(data[end] == '\r' && end+1 < len(data) && data[end+1] == '\n') {
				end++
			}
			blank(i, end, commentLine)
			i = end - 1
			continue
		}
		if c == '/' && i+1 < len(data) && data[i+1] == '*' {
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				blank(i, len(data), commentBlock)
				break
			}
			end += i + 4
			blank(i, end, commentBlock)
			i = end - 1
		}
	}
	return out, kind
}

// The kinds of comment stripComments tells apart.
const (
	commentLine  = 1
	commentBlock = 2
)

// jsSpace reports whether JavaScript's \s matches r.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsonDoc is a parsed settings file: its tree, and for a file with
// comments the text the edit keeps.
type jsonDoc struct {
	root    *jnode
	orig    []byte // the file as read; nil for plain JSON
	comment []byte // per byte of orig: 0, or the kind of comment it is in
}

// syntax is the dialect of JSON a program reads its settings in.
type syntax int

const (
	plainJSON syntax = iota
	// jsonComments: comments, as Gemini CLI and Qwen Code read their
	// settings (no trailing commas).
	jsonComments
	// zedJSON: comments and trailing commas, as Zed reads its
	// settings.json (serde_json_lenient): a comma may follow the last
	// member of an object or element of an array.
	zedJSON
)

// commentsIf is jsonComments when jsonc, else plainJSON.
func commentsIf(jsonc bool) syntax {
	if jsonc {
		return jsonComments
	}
	return plainJSON
}

// parseSettings parses a settings file in the syntax its program reads.
func parseSettings(path string, data []byte, syn syntax) (jsonDoc, error) {
	if syn == plainJSON {
		n, err := parseJSON(path, data)
		return jsonDoc{root: n}, err
	}
	stripped, comment := stripComments(data)
	if syn == zedJSON {
		blankTrailingCommas(stripped)
	}
	n, err := parseJSON(path, stripped)
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Msg = strings.TrimSuffix(pe.Msg, commentsNote)
		if syn == jsonComments && trailingComma(stripped, pe.off) {
			pe.Msg += " (a comma before a closing bracket: Gemini CLI refuses trailing commas too)"
		}
	}
	return jsonDoc{root: n, orig: data, comment: comment}, err
}

// blankTrailingCommas turns into a space, in text whose comments are
// blanked, each comma that ends an object or array: one that follows a
// member or element (not a bracket or another comma) and comes before a
// closing bracket. The offsets of the rest stay, so the parsed tree still
// points into the file as written.
func blankTrailingCommas(stripped []byte) {
	inString := false
	prev := byte(0) // the last byte outside white space and strings
	for i := 0; i < len(stripped); i++ {
		c := stripped[i]
		switch {
		case inString && c == '\\':
			i++
			continue
		case c == '"':
			inString = !inString
			prev = '"'
			continue
		case inString || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		if c == ',' && prev != ',' && prev != '[' && prev != '{' && prev != 0 {
			j := i + 1
			for j < len(stripped) && strings.IndexByte(" \t\r\n", stripped[j]) >= 0 {
				j++
			}
			if j < len(stripped) && (stripped[j] == '}' || stripped[j] == ']') {
				stripped[i] = ' '
				continue
			}
		}
		prev = c
	}
}

// trailingComma reports whether the error at off is at a closing bracket
// that follows a comma.
func trailingComma(stripped []byte, off int) bool {
	if off >= len(stripped) || stripped[off] != '}' && stripped[off] != ']' {
		return false
	}
	return bytes.HasSuffix(bytes.TrimRight(stripped[:off], " \t\r\n"), []byte(","))
}

// encode writes the edited settings. A file with comments keeps its text
// but for what the edit changed.
func (d jsonDoc) encode() []byte {
	if d.orig == nil || d.root.src == nil {
		return d.root.encode()
	}
	w := &textWriter{src: d.orig, kind: d.comment, unit: "  ", crlf: bytes.Contains(d.orig, []byte("\r\n"))}
	w.orig(0, d.root.start)
	d.root.splice(w)
	w.orig(d.root.end, len(d.orig))
	return []byte(w.b.String())
}

// splice writes a parsed value: its text as it was when nothing in it
// changed; else, for a container, the text of its kept members or
// elements with what separated them (a comment on a kept one's line stays
// with it), and new ones after the last, each on a line of its own,
// indented as the first one was.
func (n *jnode) splice(w *textWriter) {
	if n.clean() {
		w.orig(n.start, n.end)
		return
	}
	if n.kind == jScalar {
		w.str(string(n.raw))
		return
	}
	var kept, added []item
	for _, it := range n.items {
		if it.start > 0 {
			kept = append(kept, it)
		} else {
			added = append(added, it)
		}
	}
	open, closing, sp := n.start, n.close, n.spans
	w.orig(open, open+1)
	if len(sp) == 0 { // an empty container
		if len(added) == 0 {
			w.orig(open+1, closing+1)
			return
		}
		w.orig(open+1, w.trimEnd(open+1, closing))
		indent := lineIndent(w.src, open) + w.unit
		for i, it := range added {
			if i > 0 {
				w.str(",")
			}
			w.str("\n" + indent)
			w.item(it, n.kind, indent)
		}
		w.str("\n" + lineIndent(w.src, open))
		w.orig(closing, closing+1)
		return
	}
	k := len(sp)
	indent := lineIndent(w.src, sp[0][0])
	if strings.TrimLeft(string(w.src[lineStart(w.src, sp[0][0]):sp[0][0]]), " \t") != "" {
		indent = lineIndent(w.src, open) + w.unit // the first item shares a line
	} else if u, ok := strings.CutPrefix(indent, lineIndent(w.src, open)); ok && u != "" {
		w.unit = u
	}
	// sep(i) is what separates items i and i+1: pre, the comma, post.
	sep := func(i int) (pre, comma, post int) {
		a, b := sp[i][1], sp[i+1][0]
		c := a
		for c < b && (w.src[c] != ',' || w.kind[c] != 0) {
			c++
		}
		return a, c, b
	}
	head := sp[0][0]
	if len(kept) == 0 {
		head = w.trimEnd(open+1, sp[0][0])
		if len(added) == 0 && head == open+1 && len(bytes.TrimSpace(w.src[sp[k-1][1]:closing])) == 0 {
			w.orig(closing, closing+1) // nothing is left: {}
			return
		}
	}
	w.orig(open+1, head)
	last := -1
	for i, it := range kept {
		if i > 0 {
			if it.idx == last+1 {
				w.orig(sp[last][1], sp[it.idx][0])
			} else { // the items between went
				a, c, b := sep(last)
				w.orig(a, w.lineEnd(c+1, b)) // to the end of its line
				_, c2, b2 := sep(it.idx - 1)
				if nl := w.lineEnd(c2+1, b2); nl < b2 {
					w.orig(nl, b2)
				} else {
					w.str(" ")
				}
			}
		}
		w.item(it, n.kind, indent)
		last = it.idx
	}
	// What follows the last kept item: the tail, or, when the items after
	// it went, the rest of its line and the tail's last lines.
	// A trailing comma (zedJSON) stays one: after the last kept item
	// when the items after it went, after the last new item when items
	// are added.
	trailing := w.comma(sp[k-1][1], closing)
	var tail []int // pairs of offsets
	switch {
	case last == k-1:
		tail = []int{sp[k-1][1], closing}
	case last >= 0:
		a, c, b := sep(last)
		tail = []int{a, c, c + 1, w.lineEnd(c+1, b)}
		if trailing >= 0 {
			tail = []int{a, w.lineEnd(c+1, b)}
		}
		if nl := w.lineEnd(sp[k-1][1], closing); nl < closing {
			tail = append(tail, nl, closing)
		}
	default:
		if nl := w.lineEnd(sp[k-1][1], closing); nl < closing {
			tail = []int{nl, closing}
		}
	}
	// The new items go before the tail's last line break (outside a
	// comment), after the rest of the kept item's line, each on a line of
	// its own; when there is no such break, all on the line at its end.
	cut := -1
	for i := len(tail) - 2; i >= 0 && cut < 0 && len(added) > 0; i -= 2 {
		for j := tail[i+1] - 1; j >= tail[i]; j-- {
			if w.src[j] == '\n' && w.kind[j] == 0 {
				cut = j
				if j > tail[i] && w.src[j-1] == '\r' {
					cut = j - 1
				}
				break
			}
		}
	}
	if trailing > cut && last == k-1 {
		cut = -1 // the comma is on the closing bracket's line: add there
	}
	if cut >= 0 && last >= 0 && trailing < 0 {
		w.str(",")
	}
	at := cut
	if cut < 0 {
		at = closing
	}
	for i := 0; i < len(tail); i += 2 {
		w.orig(tail[i], min(tail[i+1], max(at, tail[i])))
	}
	for i, it := range added {
		switch {
		case cut >= 0:
			if i > 0 {
				w.str(",")
			}
			w.str("\n" + indent)
		case i == 0 && last >= 0 && trailing >= 0:
			w.str(" ")
		case i > 0 || last >= 0:
			w.str(", ")
		}
		w.item(it, n.kind, indent)
		if i == len(added)-1 && trailing >= 0 {
			w.str(",")
		}
	}
	for i := 0; i < len(tail); i += 2 {
		w.orig(max(tail[i], min(at, tail[i+1])), tail[i+1])
	}
	w.orig(closing, closing+1)
}

// textWriter writes an edited file with comments: pieces of the file as
// it was (src) and new text. It never lets new text continue a line
// comment: after a piece that ends in one, a line break comes first.
type textWriter struct {
	b      strings.Builder
	src    []byte
	kind   []byte // per byte of src: 0, or in a line (1) or block (2) comment
	inLine bool   // the text so far ends in a line comment
	crlf   bool   // new lines end in CR LF, as the file's do
	unit   string // one level of indentation, as the file has it
}

func (w *textWriter) orig(from, to int) {
	if from >= to {
		return
	}
	w.put(string(w.src[from:to]))
	w.inLine = w.kind[to-1] == commentLine
}

func (w *textWriter) str(s string) {
	if s == "" {
		return
	}
	if w.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	w.put(s)
	w.inLine = false
}

func (w *textWriter) put(s string) {
	if w.inLine && s[0] != '\n' && s[0] != '\r' {
		w.b.WriteByte('\n')
	}
	w.b.WriteString(s)
}

// trimEnd returns the end of src[from:to] without the white space that
// ends it outside a comment.
func (w *textWriter) trimEnd(from, to int) int {
	for to > from && w.kind[to-1] == 0 && strings.IndexByte(" \t\r\n", w.src[to-1]) >= 0 {
		to--
	}
	return to
}

// comma returns the offset of the first comma in src[from:to] that is
// not in a comment; -1 when there is none.
func (w *textWriter) comma(from, to int) int {
	for i := from; i < to; i++ {
		if w.src[i] == ',' && w.kind[i] == 0 {
			return i
		}
	}
	return -1
}

// lineEnd returns the offset of the first line break in src[from:to] that
// is not in a comment; to when there is none.
func (w *textWriter) lineEnd(from, to int) int {
	for i := from; i < to; i++ {
		if w.src[i] == '\n' && w.kind[i] == 0 {
			if i > from && w.src[i-1] == '\r' && w.kind[i-1] == 0 {
				return i - 1
			}
			return i
		}
	}
	return to
}

// item writes an item of a container of kind k: a member's key (with what
// followed it up to the value, when parsed) and its value.
func (w *textWriter) item(it item, k jsonKind, indent string) {
	if it.start > 0 {
		w.orig(it.start, it.valStart)
	} else if k == jObject {
		w.str(string(marshalString(it.key)) + ": ")
	}
	w.value(it.val, indent)
}

// value writes a member's or element's value: spliced when parsed, else
// encoded, its lines indented under the item's by the file's unit.
func (w *textWriter) value(v *jnode, indent string) {
	if v.src != nil {
		v.splice(w)
		return
	}
	var vb strings.Builder
	v.write(&vb, indent, w.unit)
	w.str(vb.String())
}

// lineStart is the offset of the start of off's line.
func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineIndent is the white space that starts off's line.
func lineIndent(data []byte, off int) string {
	line := data[lineStart(data, off):off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}
