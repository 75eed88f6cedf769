package safefs

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors: the rule that was broken.
var (
	ErrSymlink    = errors.New("symbolic link refused")
	ErrNotDir     = errors.New("not a directory")
	ErrNotRegular = errors.New("not a regular file")
	ErrNotOwned   = errors.New("owned by another account")
	ErrWritable   = errors.New("writable by group or others")
	ErrAccessible = errors.New("accessible by group or others")
	ErrLinks      = errors.New("more than one hard link")
	ErrTooLarge   = errors.New("larger than the size limit")
	ErrChanged    = errors.New("replaced while being checked")
)

// What a checked path is, as named in error messages.
const (
	ConfigHome = "config home"
	StatusDir  = "status directory"
	StatusFile = "status file"
)

// Error is a refusal: the path, what it is, and the rule it breaks.
type Error struct {
	What   string // ConfigHome, StatusDir or StatusFile
	Path   string
	Err    error  // one of the sentinel errors
	Detail string // e.g. "mode 0755" or "owner uid 1001"
}

func (e *Error) Error() string {
	msg := e.What + " " + e.Path + ": " + e.Err.Error()
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func refuse(what, path string, err error, detailf string, args ...any) *Error {
	e := &Error{What: what, Path: path, Err: err}
	if detailf != "" {
		e.Detail = fmt.Sprintf(detailf, args...)
	}
	return e
}

// Private modes.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// linkOrReparse reports whether a Lstat result must be refused as a link:
// symbolic links everywhere, and on Windows other reparse points that Go
// reports as irregular files.
func linkOrReparse(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0
}

// TypeName names the type of a file that is not regular, for messages:
// "directory", "named pipe (FIFO)", "socket", "device", ...
func TypeName(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "directory"
	case t&fs.ModeSymlink != 0:
		return "symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "device"
	case t == 0:
		return "regular file"
	}
	return "irregular file"
}

// DirEntry is a name in a directory and its type, as the directory listing
// tells it (the type bits of fs.FileMode; 0 for a regular file).
type DirEntry struct {
	Name string
	Type fs.FileMode
}
