package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// linkOrReparse reports whether a file mode must be refused as a link:
// symbolic links everywhere, and on Windows other reparse points that Go
// reports as irregular files.
func linkOrReparse(m fs.FileMode) bool {
	return m&(fs.ModeSymlink|fs.ModeIrregular) != 0
}

// checkDir applies the rules shared by the config home and the status
// directory: a real directory, owned by the current account, without the
// forbidden permission bits (which sentinel names). On Windows only the
// first two apply: see [sysStat].
func checkDir(what, path string, fi fs.FileInfo, forbidden fs.FileMode, sentinel error) error {
	if linkOrReparse(fi.Mode()) {
		return refuse(what, path, ErrSymlink, "")
	}
	if !fi.IsDir() {
		return refuse(what, path, ErrNotDir, "")
	}
	uid, _, perm := sysStat(fi)
	if me := os.Geteuid(); uid != me {
		return refuse(what, path, ErrNotOwned, "owner uid %d, current uid %d", uid, me)
	}
	if perm&forbidden != 0 {
		return refuse(what, path, sentinel, "mode %04o", perm)
	}
	return nil
}

// checkStatusDir applies the publisher's rules to a status directory
// described by Lstat.
func checkStatusDir(path string, fi fs.FileInfo) error {
	return checkDir(StatusDir, path, fi, 0o077, ErrAccessible)
}

// checkFile checks a status file about to be replaced, described by its
// mode, owner and link count: a regular file with one link, owned by the
// current account.
func checkFile(path string, mode fs.FileMode, uid int, nlink uint64) error {
	switch me := os.Geteuid(); {
	case linkOrReparse(mode):
		return refuse(StatusFile, path, ErrSymlink, "")
	case !mode.IsRegular():
		return refuse(StatusFile, path, ErrNotRegular, "%s", TypeName(mode))
	case nlink > 1:
		return refuse(StatusFile, path, ErrLinks, "%d links", nlink)
	case uid != me:
		return refuse(StatusFile, path, ErrNotOwned, "owner uid %d, current uid %d", uid, me)
	}
	return nil
}

// CheckConfigHome checks an existing config home: not a symbolic link (or,
// on Windows, other reparse point), a directory, and on Unix owned by the
// current account and not writable by group or others. Directories above
// it are trusted.
func CheckConfigHome(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkDir(ConfigHome, path, fi, 0o022, ErrWritable)
}

// CheckStatusDir checks an existing status directory: not a symbolic link
// (or, on Windows, other reparse point), a directory, and on Unix owned by
// the current account and without any group or other permission bit.
func CheckStatusDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkStatusDir(path, fi)
}

// EnsureConfigHome creates a missing config home (mode 0700, with missing
// parents) and checks it with [CheckConfigHome]. It never changes the mode of
// a directory it did not create.
func EnsureConfigHome(path string) error {
	return ensure(path, true, CheckConfigHome)
}

// EnsureStatusDir creates a missing status directory (mode 0700 whatever the
// umask) and checks it with [CheckStatusDir]. It never changes the mode of a
// directory it did not create.
func EnsureStatusDir(path string) error {
	return ensure(path, false, CheckStatusDir)
}

// ensure checks path, and only when it is missing creates it and checks
// again: one lstat when it exists, as it does at every heartbeat.
func ensure(path string, parents bool, check func(string) error) error {
	err := check(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parents {
		if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, DirMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return check(path) // created by someone else meanwhile
		}
		return err
	}
	// Ours, just created: set the mode the umask may have narrowed.
	if err := os.Chmod(path, DirMode); err != nil {
		return err
	}
	return check(path)
}

// CheckStatusFileIn checks the status file name inside root before it is
// replaced (see [checkFile]). A missing file is fine.
func CheckStatusFileIn(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	uid, nlink, _ := sysStat(fi)
	return checkFile(filepath.Join(root.Name(), name), fi.Mode(), uid, nlink)
}

// OpenStatusRoot checks the status directory and opens it as an [os.Root],
// verifying that the directory opened is the one that was checked.
func OpenStatusRoot(path string) (*os.Root, error) {
	root, _, err := openChecked(path, os.OpenRoot, func(r *os.Root) (fs.FileInfo, error) { return r.Stat(".") })
	return root, err
}

// openChecked checks the status directory at path and opens it with open,
// then makes sure, by what stat tells of the one opened, that it is the
// directory that was checked and not one put in its place in between. It
// returns the opened directory and that FileInfo.
func openChecked[D interface{ Close() error }](path string, open func(string) (D, error), stat func(D) (fs.FileInfo, error)) (D, fs.FileInfo, error) {
	var none D
	fi, err := os.Lstat(path)
	if err != nil {
		return none, nil, err
	}
	if err := checkStatusDir(path, fi); err != nil {
		return none, nil, err
	}
	d, err := open(path)
	if err != nil {
		return none, nil, err
	}
	info, err := stat(d)
	if err != nil {
		d.Close()
		return none, nil, err
	}
	if !os.SameFile(fi, info) {
		d.Close()
		return none, nil, refuse(StatusDir, path, ErrChanged, "")
	}
	return d, info, nil
}

// TypeName names the type of a file that is not regular, for messages:
// "directory", "named pipe (FIFO)", "socket", "device", ...
func TypeName(m fs.FileMode) string {
	t := m.Type()
	for _, n := range typeNames {
		if t&n.bit != 0 {
			return n.name
		}
	}
	if t == 0 {
		return "regular file"
	}
	return "irregular file"
}

// typeNames are the names of the type bits, in the order they are tried: a
// character device has ModeDevice set too.
var typeNames = []struct {
	bit  fs.FileMode
	name string
}{
	{fs.ModeDir, "directory"},
	{fs.ModeSymlink, "symbolic link"},
	{fs.ModeNamedPipe, "named pipe (FIFO)"},
	{fs.ModeSocket, "socket"},
	{fs.ModeCharDevice, "character device"},
	{fs.ModeDevice, "device"},
}

// DirEntry is a name in a directory and its type, as the directory listing
// tells it (the type bits of fs.FileMode; 0 for a regular file).
type DirEntry struct {
	Name string
	Type fs.FileMode
}
