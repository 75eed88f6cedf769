// Package vector reads the data of the conformance suite: the reader
// vectors (conformance/testdata/reader), the hook traces
// (conformance/hooktraces) and the session lines a reader prints. Package
// conformance runs them; conformance/README.md describes the formats.
package vector

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Levels say which implementations a reader case or publisher check
// applies to. A reader that claims a level must pass every case of that
// level and of the levels below it.
const (
	// Core is what the published page requires: the schema, 30 s
	// freshness, tolerance of files that vanish, well-formed records
	// displayed as they are.
	Core = "core"
	// Hardened adds what SPEC.md settles: no link followed, no FIFO hang,
	// the 64 KiB bound, names that must be the session's hash, future
	// timestamps, exact record validation, sanitized display, unknown keys
	// and states.
	Hardened = "hardened"
)

// Includes reports whether a run at level run includes a case or check of
// level c.
func Includes(run, c string) bool {
	return run == Hardened || c == Core
}

// Expect is what a reader case expects of the reader.
type Expect string

// Expectations.
const (
	// ExpectSessions: the reader exits 0 and prints exactly the expected
	// sessions (possibly none).
	ExpectSessions Expect = "sessions"
	// ExpectError: the directory must be refused (SPEC.md R2) and the
	// error be observable (SPEC.md R23): the reader passes when it prints
	// no session at all and reports an error, by a non-zero exit status
	// or a non-blank line on standard error (a reader in the harness's
	// process: by returning an error), exiting by itself within the timeout, not killed by a
	// signal.
	ExpectError Expect = "error"
)

// EntryKind is the kind of a directory entry a case creates.
type EntryKind string

// Entry kinds; see the README for the section syntax of each.
const (
	File    EntryKind = "file"    // a regular file with the section's content
	Symlink EntryKind = "symlink" // a symbolic link
	FIFO    EntryKind = "fifo"    // a named pipe
	Socket  EntryKind = "socket"  // a Unix domain socket
	Dir     EntryKind = "dir"     // a subdirectory
	Device  EntryKind = "device"  // a character device (a copy of /dev/zero); needs root
)

// Entry is one entry of a case's status directory.
type Entry struct {
	Kind       EntryKind
	Name       string
	Mode       fs.FileMode // permission bits; 0600 for files, 0700 for directories by default
	OtherOwner bool        // chown to another account (needs root)
	// Data is the content of a file, after the size and escape directives.
	Data []byte
	// Target is where a symlink points: the name of another entry of the
	// directory, or "outside/NAME" for a file of an "outside" section.
	Target string
}

// OutsideFile is a regular file next to, not inside, the status directory:
// the target of a symbolic link that a reader must not follow.
type OutsideFile struct {
	Name string
	Data []byte
}

// DirSpec describes the status directory itself.
type DirSpec struct {
	Mode          fs.FileMode // 0700 by default
	Symlink       bool        // the status directory is a symlink to the real one
	ParentSymlink bool        // the config home (its parent) is a symlink; trusted (L5)
	Missing       bool        // the status directory does not exist
	OtherOwner    bool        // owned by another account (needs root)
	// NotDir, when set, makes the status directory's path an entry of
	// another kind (File or FIFO): a reader must report an error
	// (R2).
	NotDir EntryKind
}

// Case is one reader vector: a status directory and the sessions a
// conforming reader shows for it.
type Case struct {
	ID           string   // equal to the file's path under testdata/reader, without ".txt"
	Level        string   // Core or Hardened
	Rules        []string // SPEC.md rule ids, e.g. "R4"
	Requirements []string // quoted from SPEC.md, one per line of the header
	Description  string
	Now          time.Time // the reader's "now"
	NowText      string    // exactly as given to the reader
	Expect       Expect
	Dir          DirSpec
	// Churn is the number of extra status files that are created and
	// removed over and over while the reader runs (SPEC.md R8).
	Churn int
	// Runs is how many times the reader is run on the directory (1 by
	// default); every run must pass. Cases whose outcome depends on timing
	// use it to catch a flaw that one run can miss.
	Runs     int
	Entries  []Entry
	Outside  []OutsideFile
	Sessions []Session // the expected live sessions
}

// NeedsRoot reports why the case cannot be materialized by an ordinary
// account, or "".
func (c *Case) NeedsRoot() string {
	if c.Dir.OtherOwner {
		return "the status directory must be owned by another account (chown needs root)"
	}
	for _, e := range c.Entries {
		switch {
		case e.OtherOwner:
			return fmt.Sprintf("%s must be owned by another account (chown needs root)", e.Name)
		case e.Kind == Device:
			return fmt.Sprintf("%s must be a character device (mknod needs root)", e.Name)
		}
	}
	return ""
}

// TimeLayout is how "now" is written in vectors and passed to readers:
// RFC 3339 in UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

var (
	ruleID     = regexp.MustCompile(`^[A-Z]{1,2}[0-9]{1,2}$`)
	escapeByte = regexp.MustCompile(`\\x[0-9a-fA-F]{2}`)
)

func parseMode(s string) (fs.FileMode, error) {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m > 0o777 || len(s) != 4 || s[0] != '0' {
		return 0, fmt.Errorf("mode must be four octal digits such as 0600, not %q", s)
	}
	return fs.FileMode(m), nil
}

// parseExpected reads one JSON object per non-blank line.
func parseExpected(data []byte) ([]Session, error) {
	var out []Session
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := ParseLine(line, true)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Load parses every vector under root in fsys ("*.txt" files, at any
// depth), sorted by id.
func Load(fsys fs.FS, root string) ([]*Case, error) {
	return load(fsys, root, ".txt", Parse, func(c *Case) string { return c.ID })
}

// load parses every file under root in fsys, each by parse with its path
// under root, less ext, as its id, and sorts them by key. A file whose name
// does not end in ext is an error, and so is each that does not parse; all
// of them are reported.
func load[T any](fsys fs.FS, root, ext string, parse func(id string, data []byte) (T, error), key func(T) string) ([]T, error) {
	var out []T
	var errs []error
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if path.Ext(p) != ext {
			errs = append(errs, fmt.Errorf("%s: not a vector (want a %s file)", p, ext))
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		x, err := parse(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(p, root), "/"), ext), data)
		if err != nil {
			errs = append(errs, err)
		} else {
			out = append(out, x)
		}
		return nil
	})
	if err = cmp.Or(err, errors.Join(errs...)); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out, nil
}
