package vector

import (
	"bytes"
	"strings"
)

// The vectors are txtar archives (the format of golang.org/x/tools/txtar and
// of the Go command's own test scripts): a comment, then sections that each
// start with a marker line "-- NAME --" and hold the lines up to the next
// marker. The format is small and frozen, so it is parsed here rather than
// adding a module dependency for one function.

// archive is a parsed txtar file.
type archive struct {
	comment  []byte
	sections []section
}

type section struct {
	header string // the text between "-- " and " --"
	line   int    // 1-based line number of the marker
	data   []byte
}

// parseTxtar splits data into its comment and sections. It never fails: any
// text is a valid archive.
func parseTxtar(data []byte) archive {
	var a archive
	cur := -1 // the section being filled; -1 is the comment
	lineNo := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		lineNo++
		if h, ok := marker(line); ok {
			a.sections = append(a.sections, section{header: h, line: lineNo})
			cur = len(a.sections) - 1
			continue
		}
		if cur < 0 {
			a.comment = append(a.comment, line...)
		} else {
			a.sections[cur].data = append(a.sections[cur].data, line...)
		}
	}
	return a
}

// marker reports whether line is a section marker and returns its header.
func marker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if len(s) < len("-- x --") || !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}
