//go:build windows

package safefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/windows"
)

// On Windows there are no mode bits and ownership is not checked: status
// files inherit the ACL of the config home. Symbolic links, junctions and
// other reparse points are refused.

// sysStat: Windows has no owner uid, link count or mode bits that the
// rules read. The owner given is the current account's (os.Geteuid, -1),
// one link, and no permission bit.
func sysStat(fs.FileInfo) (uid int, nlink uint64, perm fs.FileMode) {
	return os.Geteuid(), 1, 0
}

// Dir is a status directory opened for reading.
type Dir struct {
	f    *os.File
	path string
	info fs.FileInfo
}

// OpenDir opens a status directory for reading, refusing a link.
func OpenDir(path string) (*Dir, error) {
	f, info, err := openChecked(path, openShared, (*os.File).Stat)
	if err != nil {
		return nil, err
	}
	return &Dir{f: f, path: path, info: info}, nil
}

// FileStat is what a reader learns of an opened status file.
type FileStat struct {
	Size    int64
	Mode    fs.FileMode
	UID     int
	ModTime time.Time
	info    fs.FileInfo
}

func statOf(fi fs.FileInfo) FileStat {
	return FileStat{Size: fi.Size(), Mode: fi.Mode(), UID: -1, ModTime: fi.ModTime(), info: fi}
}

// ReadFile reads name inside the directory, refusing links and reparse
// points, non-regular files and files larger than max bytes.
func (d *Dir) ReadFile(name string, buf []byte, max int) ([]byte, FileStat, error) {
	path := filepath.Join(d.path, name)
	fi, err := os.Lstat(path)
	if err != nil {
		return buf[:0], FileStat{}, err
	}
	fst := statOf(fi)
	if linkOrReparse(fi.Mode()) {
		return buf[:0], fst, refuse(StatusFile, path, ErrSymlink, "")
	}
	if !fi.Mode().IsRegular() {
		return buf[:0], fst, refuse(StatusFile, path, ErrNotRegular, "%s", TypeName(fi.Mode()))
	}
	if fi.Size() > int64(max) {
		return buf[:0], fst, refuse(StatusFile, path, ErrTooLarge, "%d bytes, limit %d", fi.Size(), max)
	}
	f, err := openShared(path)
	if err != nil {
		return buf[:0], fst, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return buf[:0], fst, err
	}
	if !os.SameFile(fi, ofi) {
		return buf[:0], fst, refuse(StatusFile, path, ErrChanged, "")
	}
	if cap(buf) < max+1 {
		buf = make([]byte, 0, max+1)
	}
	n, err := io.ReadFull(f, buf[:max+1])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return buf[:0], fst, err
	}
	if n > max {
		return buf[:0], fst, refuse(StatusFile, path, ErrTooLarge, "more than %d bytes", max)
	}
	return buf[:n], fst, nil
}

// Remove removes name if it is still the regular file described by want.
func (d *Dir) Remove(name string, want FileStat) (bool, error) {
	if want.info == nil {
		return false, nil
	}
	return removeIfSame(os.Lstat, os.Remove, filepath.Join(d.path, name), want.info)
}

// openShared opens path for reading as os.Open does, but shares it for
// deletion too, and without following a reparse point at path itself: a
// reader holding a status file (or the status directory) open never makes
// a publisher's rename or removal fail, and what is opened is what Lstat
// described (the callers compare the two).
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// RemoveOwnFile removes name from root if it is still the regular file
// described by written (as returned by Stat on the file that was written),
// and reports whether it did. A file replaced by someone else is left alone.
func RemoveOwnFile(root *os.Root, name string, written fs.FileInfo) (bool, error) {
	return removeIfSame(root.Lstat, root.Remove, name, written)
}

// removeIfSame removes name, through lstat and remove, if it is still the
// regular file described by want.
func removeIfSame(lstat func(string) (fs.FileInfo, error), remove func(string) error, name string, want fs.FileInfo) (bool, error) {
	fi, err := lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, want) {
		return false, nil
	}
	if err := remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}
