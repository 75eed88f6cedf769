package vector

import (
	"bytes"

	"github.com/rogpeppe/go-internal/txtar"
)

// The vectors and traces are txtar archives (the format of the Go
// command's own test scripts): a comment, then sections that each start
// with a marker line "-- NAME --" and hold the lines up to the next marker.

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
	t := txtar.Parse(data)
	a := archive{comment: t.Comment}
	line := 1 + bytes.Count(t.Comment, []byte("\n"))
	for _, f := range t.Files {
		a.sections = append(a.sections, section{header: f.Name, line: line, data: f.Data})
		line += 1 + bytes.Count(f.Data, []byte("\n"))
	}
	return a
}
